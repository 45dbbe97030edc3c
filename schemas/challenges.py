"""Requests and responses of the challenge routes, and the payloads of their events."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from bots import all_levels
from schemas.common import BodyInteger, DisplayName, StrictSchema
from schemas.games import BOT_SEAT_PATTERN, ClockControlSchema, GameConfig, TimeControlSchema

DECLINE_REASONS = (
    "generic",
    "later",
    "tooFast",
    "tooSlow",
    "timeControl",
    "rated",
    "casual",
    "noBot",
    "onlyBot",
)
HANDLE = validate.Length(1, 40)


class CreateChallengeRequest(StrictSchema):
    game = fields.String(required=True, validate=validate.Length(1, 64), metadata={"example": "condottiere"})
    config = fields.Dict(
        keys=fields.String(), load_default=dict, metadata={"description": "Engine configuration"}
    )
    clock = fields.Nested(TimeControlSchema, allow_none=True, load_default=lambda: None)
    rated = fields.Boolean(load_default=True, metadata={"description": "Rated (default) or casual"})
    invite = fields.List(
        fields.String(validate=HANDLE),
        validate=validate.Length(0, 15),
        load_default=list,
        metadata={"description": "Handles of the accounts challenged (humans or bot accounts)"},
    )
    open_seats = fields.Integer(
        validate=validate.Range(0, 15),
        load_default=0,
        metadata={"description": "Seats left open: anyone with the link takes them, seat by seat"},
    )
    anonymous = fields.Boolean(
        load_default=False, metadata={"description": "Open seats may be taken without an account"}
    )
    bots = fields.Dict(
        keys=fields.String(validate=validate.Regexp(BOT_SEAT_PATTERN)),
        values=fields.String(validate=validate.Length(1, 32), metadata={"examples": all_levels()}),
        load_default=dict,
        metadata={"description": 'Seats a server bot fills: {"<seat>": "<level>"}'},
    )
    seat_order = fields.String(
        validate=validate.OneOf(("random", "given")),
        load_default="random",
        metadata={
            "description": "`random`: everyone's seat drawn when the challenge is made; `given`: see `seats`"
        },
    )
    seats = fields.Dict(
        keys=fields.String(validate=validate.Regexp(BOT_SEAT_PATTERN)),
        values=fields.String(validate=HANDLE),
        load_default=dict,
        metadata={
            "description": 'With seat_order `given`: {"<seat>": "<handle>" or "open"} for every seat no '
            "bot takes, the challenger's included"
        },
    )
    expires_in = fields.Integer(
        validate=validate.Range(10, 7 * 24 * 3600),
        load_default=600,
        metadata={"description": "Seconds the challenge waits for its answers (default 600)"},
    )


class AcceptChallengeRequest(StrictSchema):
    seat = BodyInteger(
        validate=validate.Range(0, 999), metadata={"description": "An open seat (default: the lowest)"}
    )
    name = DisplayName(max_length=40, metadata={"description": "An anonymous taker's display name"})


class DeclineChallengeRequest(StrictSchema):
    reason = fields.String(
        validate=validate.OneOf(DECLINE_REASONS),
        load_default="generic",
        metadata={"description": "Why, as Lichess's reason codes"},
    )


class ChallengeSeatSchema(ma.Schema):
    seat = fields.Integer(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(("account", "open", "bot")))
    name = fields.String(
        required=True, allow_none=True, metadata={"description": "Handle, taker's name or bot"}
    )
    bot = fields.String(required=True, allow_none=True, metadata={"description": "A server bot's level"})
    bot_account = fields.Boolean(required=True, metadata={"description": "The account is a bot account"})
    answer = fields.String(required=True, validate=validate.OneOf(("pending", "accepted")))


class ChallengeSchema(ma.Schema):
    """A challenge, as every party sees it (and the payload of the `challenge*` events)."""

    id = fields.String(required=True, metadata={"description": "Also the id of the game it becomes"})
    game = fields.String(required=True)
    title = fields.String(required=True)
    # The game's own configuration schema (the contract's <Game>Config), as a game summary's.
    config = GameConfig(required=True, metadata={"description": "The public configuration (no seed)"})
    clock = fields.Nested(ClockControlSchema, required=True, allow_none=True)
    rated = fields.Boolean(required=True)
    seat_count = fields.Integer(required=True)
    seat_order = fields.String(required=True, validate=validate.OneOf(("random", "given")))
    challenger = fields.String(required=True, allow_none=True)
    anonymous = fields.Boolean(required=True)
    created = fields.String(required=True)
    expires = fields.String(required=True)
    url = fields.String(required=True)
    status = fields.String(
        required=True, validate=validate.OneOf(("pending", "started", "declined", "canceled", "expired"))
    )
    reason = fields.String(required=True, allow_none=True, metadata={"description": "A decline's reason"})
    declined_by = fields.String(allow_none=True)
    seats = fields.List(fields.Nested(ChallengeSeatSchema), required=True)
    game_id = fields.String(required=True, allow_none=True, metadata={"description": "Once started"})


class ChallengeEventSchema(ChallengeSchema):
    """`event: challenge`, `challenge_canceled`, `challenge_declined`, `challenge_expired` of
    GET /v1/me/stream (and their webhooks' `data`)."""

    type = fields.String(
        required=True,
        validate=validate.OneOf(
            ("challenge", "challenge_canceled", "challenge_declined", "challenge_expired")
        ),
    )


class ChallengeListSchema(ma.Schema):
    incoming = fields.List(fields.Nested(ChallengeSchema), required=True)
    outgoing = fields.List(fields.Nested(ChallengeSchema), required=True)


class OpenChallengeListSchema(ma.Schema):
    challenges = fields.List(fields.Nested(ChallengeSchema), required=True)


class AcceptChallengeResponse(ma.Schema):
    challenge = fields.Nested(ChallengeSchema, required=True)
    seat = fields.Integer(required=True)
    token = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "An anonymous taker's seat token, shown once"},
    )
    started = fields.Boolean(required=True)
    game_id = fields.String(required=True)
