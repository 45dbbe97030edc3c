"""Schemas of the annotated event log (api/annotations.py)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from schemas.common import StrictSchema


class AnnotationsQuery(StrictSchema):
    after = fields.Integer(
        load_default=0,
        validate=validate.Range(0, 10_000_000),
        metadata={"description": "Sentences of the events after this version"},
    )
    limit = fields.Integer(load_default=200, validate=validate.Range(1, 1000))


class AnnotationSchema(ma.Schema):
    version = fields.Integer(required=True, metadata={"description": "The version this event made"})
    text = fields.String(required=True, metadata={"description": "One plain-English sentence"})


class AnnotationsPageSchema(ma.Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "The game's current version"})
    finished = fields.Boolean(required=True)
    viewer = fields.String(required=True, metadata={"description": "full, spectator or 'seat <n>'"})
    annotations = fields.List(fields.Nested(AnnotationSchema), required=True)
    next_after = fields.Integer(
        allow_none=True, metadata={"description": "Pass as after= for the next page (null: none)"}
    )
