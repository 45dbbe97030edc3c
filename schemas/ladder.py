"""The bot ladder's standings (``GET /v1/ladder/{game}``)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields

from schemas.ratings import RatingSchema


class LadderRowSchema(ma.Schema):
    place = fields.Integer(required=True)
    player = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "A bot account's handle, or `bot:<level>` for a server level; null: deleted"
        },
    )
    level = fields.String(
        required=True, allow_none=True, metadata={"description": "The server's level, null for a bot account"}
    )
    rating = fields.Nested(
        RatingSchema, required=True, metadata={"description": "The game's rating (one scale)"}
    )
    games = fields.Integer(required=True, metadata={"description": "Ladder games finished"})
    wins = fields.Integer(required=True, metadata={"description": "Ladder games won (a shared win counts)"})


class LadderGameSchema(ma.Schema):
    game_id = fields.String(required=True)
    number = fields.Integer(required=True, metadata={"description": "The ladder's pairing number"})
    players = fields.List(fields.String(), required=True, metadata={"description": "Names in seat order"})


class LadderSchema(ma.Schema):
    game = fields.String(required=True)
    players = fields.Integer(required=True, metadata={"description": "Seats at a ladder table"})
    levels = fields.List(
        fields.String(), required=True, metadata={"description": "The server's levels seated"}
    )
    standings = fields.List(fields.Nested(LadderRowSchema), required=True)
    playing = fields.List(
        fields.Nested(LadderGameSchema),
        required=True,
        metadata={"description": "Ladder games not yet tallied"},
    )
