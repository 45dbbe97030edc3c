"""The job resource (``/v1/jobs/{id}``): what a started job answers and what polling it returns."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from schemas.problems import ProblemSchema

JOB_KINDS = (
    "verify",
    "game-stats",
    "player-stats",
    "global-stats",
    "export",
    "bulk-export",
    "observations",
    "import",
    "analysis",
)
JOB_STATUSES = ("queued", "started", "finished", "failed")


class JobParamsSchema(ma.Schema):
    """What the job was started with; which fields are present depends on its ``kind``."""

    game_id = fields.String(metadata={"description": "verify, game-stats, export, import, analysis"})
    revision = fields.String(metadata={"description": "analysis: the rules revision and analysis version"})
    format = fields.String(
        validate=validate.OneOf(["log", "json", "markdown", "html", "ndjson", "ndjson.gz"]),
        metadata={"description": "export, bulk-export, observations"},
    )
    viewer = fields.Raw(
        metadata={
            "description": "export: full, spectator, or the seat it is redacted for",
            "anyOf": [{"type": "string", "enum": ["full", "spectator"]}, {"type": "integer", "minimum": 0}],
        }
    )
    game = fields.String(metadata={"description": "player-stats, global-stats: the game's name"})
    name = fields.String(metadata={"description": "player-stats: the player's name, case-folded"})
    filters = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.Raw(metadata={"type": ["string", "integer", "boolean"]})),
        metadata={"description": "bulk-export, observations: the archive filters"},
    )
    finished_from = fields.Integer(allow_none=True, metadata={"description": "bulk-export: epoch ms"})
    finished_to = fields.Integer(allow_none=True, metadata={"description": "bulk-export: epoch ms"})
    limit = fields.Integer(metadata={"description": "observations: at most this many games"})


class JobSchema(ma.Schema):
    id = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(JOB_KINDS))
    status = fields.String(required=True, validate=validate.OneOf(JOB_STATUSES))
    progress = fields.Float(required=True, metadata={"description": "0 to 1"})
    attempts = fields.Integer(
        required=True, metadata={"description": "Runs started (a retry or a re-run after a crash adds one)"}
    )
    params = fields.Nested(JobParamsSchema, required=True)
    data_version = fields.String(required=True, metadata={"description": "The data the result depends on"})
    created = fields.String(allow_none=True)
    started = fields.String(allow_none=True)
    finished = fields.String(allow_none=True)
    result = fields.String(allow_none=True, metadata={"description": "URL of the result once finished"})
    content_type = fields.String(allow_none=True)
    error = fields.Nested(
        ProblemSchema, allow_none=True, metadata={"description": "problem+json of a failed job"}
    )


class VerifyReportSchema(ma.Schema):
    """A verify job's result (``replays.core.verify`` and what the service adds)."""

    class Meta:
        unknown = ma.INCLUDE  # the engine's divergence details

    ok = fields.Boolean(required=True)
    game_id = fields.String(required=True)
    status = fields.String(required=True)
    meta_version = fields.Integer(required=True)
    meta_version_matches = fields.Boolean()
    archived = fields.Boolean()
