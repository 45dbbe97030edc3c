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
    errors = fields.Dict(
        keys=fields.String(metadata={"description": "Where: json, query, headers"}),
        values=fields.Dict(
            keys=fields.String(metadata={"description": "The field (or _schema: the whole document)"}),
            # A field's messages, or a nested field's (an object, by field name or list index).
            values=fields.Raw(
                metadata={
                    "anyOf": [
                        {"type": "array", "items": {"type": "string"}},
                        {"type": "object", "additionalProperties": True},
                    ]
                }
            ),
        ),
        metadata={"description": "VALIDATION_ERROR: the messages by location and field"},
    )
    current_version = fields.Integer(metadata={"description": "VERSION_CONFLICT: the game's version"})
    last_version = fields.Integer(metadata={"description": "VERSION_OUT_OF_RANGE: the game's last version"})
    rule = fields.String(metadata={"description": "Rule ID that refuses the command, when there is one"})
    index = fields.Integer(metadata={"description": "An import refused: the offending event's index"})
