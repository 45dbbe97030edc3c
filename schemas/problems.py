"""RFC 9457 problem details (``application/problem+json``)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields


class ProblemSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE  # extension members (errors, current_version, rule, ...)

    type = fields.String(required=True, metadata={"description": "URI identifying the problem type"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String()
    instance = fields.String()
    code = fields.String(required=True, metadata={"description": "Stable machine-readable code"})
    errors = fields.Dict(metadata={"description": "Field errors (VALIDATION_ERROR)"})
    current_version = fields.Integer(metadata={"description": "VERSION_CONFLICT: the game's version"})
    rule = fields.String(metadata={"description": "Rule ID that refuses the command, when there is one"})
