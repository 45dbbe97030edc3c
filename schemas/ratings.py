"""Ratings responses (issue 32): leaderboards, a player's rating history, head-to-head."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from schemas.common import StrictSchema


class RatingQuery(StrictSchema):
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100))


class RatingSchema(ma.Schema):
    mu = fields.Float(required=True, metadata={"description": "The skill estimate's mean"})
    sigma = fields.Float(required=True, metadata={"description": "Its uncertainty (standard deviation)"})
    ordinal = fields.Float(
        required=True, metadata={"description": "mu - 3 sigma: the figure shown and ranked"}
    )
    games = fields.Integer(required=True, metadata={"description": "Rated games played"})
    provisional = fields.Boolean(required=True, metadata={"description": "Fewer than 10 rated games"})


class RatingLeaderSchema(RatingSchema):
    place = fields.Integer(required=True)
    player = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "The account's handle, `bot:<level>` for a server bot, null: account deleted"
        },
    )
    bot = fields.Boolean(required=True)


class LeaderboardSchema(ma.Schema):
    game = fields.String(required=True)
    players = fields.Integer(required=True, metadata={"description": "Rated players of this game"})
    leaders = fields.List(fields.Nested(RatingLeaderSchema), required=True)


class OpponentSchema(ma.Schema):
    seat = fields.Integer(required=True)
    player = fields.String(required=True, allow_none=True)
    rank = fields.Integer(required=True, metadata={"description": "1: a winner, 2: everyone else"})
    ordinal = fields.Float(required=True, metadata={"description": "Their ordinal before the game"})


class HistoryEntrySchema(ma.Schema):
    game_id = fields.String(required=True)
    game = fields.String(required=True)
    finished = fields.String(required=True)
    seats = fields.List(fields.Integer(), required=True)
    rank = fields.Integer(required=True)
    before = fields.Nested(RatingSchema, required=True)
    after = fields.Nested(RatingSchema, required=True)
    against = fields.List(fields.Nested(OpponentSchema), required=True)


class RatingHistorySchema(ma.Schema):
    game = fields.String(required=True)
    player = fields.String(required=True)
    rating = fields.Nested(RatingSchema, required=True)
    history = fields.List(
        fields.Nested(HistoryEntrySchema), required=True, metadata={"description": "Newest first"}
    )


class HeadToHeadGameSchema(ma.Schema):
    game = fields.String(required=True)
    games = fields.Integer(required=True, metadata={"description": "Rated games both played"})
    first_ahead = fields.Integer(required=True, metadata={"description": "Games the first finished ahead"})
    second_ahead = fields.Integer(required=True)
    ties = fields.Integer(required=True)


class HeadToHeadSchema(ma.Schema):
    first = fields.String(required=True)
    second = fields.String(required=True)
    games = fields.List(
        fields.Nested(HeadToHeadGameSchema), required=True, metadata={"description": "Per game engine"}
    )
