"""The job resource (``/v1/jobs/{id}``): what a started job answers and what polling it returns."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields

from schemas.problems import ProblemSchema


class JobSchema(ma.Schema):
    id = fields.String(required=True)
    kind = fields.String(
        required=True,
        metadata={
            "enum": [
                "verify",
                "game-stats",
                "player-stats",
                "global-stats",
                "export",
                "bulk-export",
                "observations",
                "import",
            ]
        },
    )
    status = fields.String(required=True, metadata={"enum": ["queued", "started", "finished", "failed"]})
    progress = fields.Float(required=True, metadata={"description": "0 to 1"})
    attempts = fields.Integer(
        required=True, metadata={"description": "Runs started (a retry or a re-run after a crash adds one)"}
    )
    params = fields.Dict(required=True)
    data_version = fields.String(required=True, metadata={"description": "The data the result depends on"})
    created = fields.String(allow_none=True)
    started = fields.String(allow_none=True)
    finished = fields.String(allow_none=True)
    result = fields.String(allow_none=True, metadata={"description": "URL of the result once finished"})
    content_type = fields.String(allow_none=True)
    error = fields.Nested(
        ProblemSchema, allow_none=True, metadata={"description": "problem+json of a failed job"}
    )
