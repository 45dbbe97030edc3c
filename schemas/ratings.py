"""Ratings responses: leaderboards, a player's rating history, head-to-head."""

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
    bot = fields.Boolean(
        required=True,
        metadata={
            "description": "A bot: a server bot (`bot:<level>`) or a bot account (POST "
            "/v1/me/upgrade-to-bot, or signed up with `bot: true`); false: a person's account"
        },
    )


class LeaderboardSchema(ma.Schema):
    game = fields.String(required=True)
    players = fields.Integer(required=True, metadata={"description": "Rated players of this game"})
    leaders = fields.List(fields.Nested(RatingLeaderSchema), required=True)


class OpponentSchema(ma.Schema):
    seat = fields.Integer(required=True)
    player = fields.String(required=True, allow_none=True)
    rank = fields.Integer(
        required=True,
        metadata={"description": "1: a winner, 2: everyone else, 3: a seat that left (last place)"},
    )
    ordinal = fields.Float(required=True, metadata={"description": "Their ordinal before the game"})
    bot = fields.Boolean(
        required=True,
        metadata={
            "description": "A bot: a server bot (`bot:<level>`) or a bot account (POST "
            "/v1/me/upgrade-to-bot, or signed up with `bot: true`); false: a person's account"
        },
    )


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
    bot = fields.Boolean(
        required=True,
        metadata={
            "description": "A bot: a server bot (`bot:<level>`) or a bot account (POST "
            "/v1/me/upgrade-to-bot, or signed up with `bot: true`); false: a person's account"
        },
    )
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


class GameRatingsQuery(StrictSchema):
    joining = fields.String(
        validate=validate.Length(1, 64),
        metadata={
            "description": "An account's handle: the chances if that player takes the first free seat "
            "(a game about to start)"
        },
    )


class SeatRatingSchema(ma.Schema):
    seat = fields.Integer(required=True)
    player = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The account's handle or `bot:<level>`; null: a free or anonymous seat"},
    )
    bot = fields.Boolean(
        required=True,
        metadata={
            "description": "A bot: a server bot (`bot:<level>`) or a bot account (POST "
            "/v1/me/upgrade-to-bot, or signed up with `bot: true`); false: a person's account"
        },
    )
    rating = fields.Nested(
        RatingSchema, required=True, allow_none=True, metadata={"description": "The current rating"}
    )
    before = fields.Nested(RatingSchema, metadata={"description": "A finished rated game: before it"})
    after = fields.Nested(RatingSchema, metadata={"description": "A finished rated game: after it"})


class GameRatingsSchema(ma.Schema):
    game_id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True)
    seats = fields.List(fields.Nested(SeatRatingSchema), required=True)
    rated = fields.Boolean(metadata={"description": "A finished game: whether it changed ratings"})
    predict_win = fields.List(
        fields.Float(),
        metadata={
            "description": "Not finished, every seat rated (counting `joining`): each seat's chance to win"
        },
    )
    joining_seat = fields.Integer(metadata={"description": "The seat `joining` was counted in"})
