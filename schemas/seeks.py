"""Requests and responses of the seek routes (quick pairing)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from schemas.common import DisplayName, StrictSchema
from schemas.games import ClockControlSchema, GameConfig, TimeControlSchema


class CreateSeekRequest(StrictSchema):
    game = fields.String(required=True, validate=validate.Length(1, 64), metadata={"example": "condottiere"})
    config = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": "Engine configuration (its seat count is the table's size); no seed"},
    )
    clock = fields.Nested(TimeControlSchema, allow_none=True, load_default=lambda: None)
    rated = fields.Boolean(
        metadata={"description": "Rated (an account's default) or casual (an anonymous seek's only kind)"}
    )
    name = DisplayName(max_length=40, metadata={"description": "An anonymous seeker's display name"})
    rating_range = fields.Float(
        validate=validate.Range(0, 100),
        load_default=3.0,
        metadata={"description": "Rating distance accepted at once (rating mu units); widens while waiting"},
    )
    bots = fields.Boolean(load_default=True, metadata={"description": "Bot accounts may be paired with you"})


class SeekSchema(ma.Schema):
    """A seek (and `data` of the lobby stream's seek entries)."""

    id = fields.String(required=True)
    handle = fields.String(required=True, allow_none=True)
    game = fields.String(required=True)
    config = GameConfig(required=True, metadata={"description": "The public configuration (no seed)"})
    clock = fields.Nested(ClockControlSchema, required=True, allow_none=True)
    rated = fields.Boolean(required=True)
    seats = fields.Integer(required=True, metadata={"description": "Players at the table"})
    rating = fields.Float(required=True)
    rating_range = fields.Float(required=True)
    bots = fields.Boolean(required=True)
    bot_account = fields.Boolean(required=True)
    since = fields.Integer(required=True, metadata={"description": "When it was made (ms since the epoch)"})
    alive_until = fields.Integer(
        required=True,
        metadata={"description": "It lives until then (ms) unless kept or its owner's stream is open"},
    )


class NewSeekSchema(SeekSchema):
    token = fields.String(
        metadata={
            "description": "An anonymous seek's only: the token of the seat it will be paired into, "
            "shown only here; it also keeps (POST .../keep) and withdraws (DELETE) the seek"
        }
    )


class SeekPairingSchema(ma.Schema):
    seek_id = fields.String(required=True)
    game_id = fields.String(required=True, metadata={"description": "The started game it went to"})


class SeekListSchema(ma.Schema):
    seeks = fields.List(fields.Nested(SeekSchema), required=True)
