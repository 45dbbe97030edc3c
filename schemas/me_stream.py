"""The events of GET /v1/me/stream, one schema: each event's `data` is a JSON object whose `type`
names it (the same word as the SSE `event:` line), so a client reads every message with one
discriminated union (:data:`ACCOUNT_STREAM_EVENT`) instead of an untyped document."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from schemas.accounts import MyGameSchema
from schemas.challenges import ChallengeEventSchema
from schemas.tournaments import StandingSchema


def _type(*names: str) -> fields.String:
    return fields.String(required=True, validate=validate.OneOf(names))


class FeedResultSchema(ma.Schema):
    """A finished game's result as the account's stream tells it (the summary has the rest)."""

    winners = fields.List(fields.Integer(), required=True)
    reason = fields.String(allow_none=True)
    rated = fields.Boolean()


class OpenGamesEventSchema(ma.Schema):
    """`event: open_games`, first: the account's running games (no id)."""

    type = _type("open_games")
    games = fields.List(fields.Nested(MyGameSchema), required=True)


class _AccountGameEvent(ma.Schema):
    game_id = fields.String(required=True)
    game = fields.String(required=True, metadata={"description": "The game's engine"})
    seat = fields.Integer(required=True, metadata={"description": "The account's seat"})
    version = fields.Integer(required=True)


class GameStartedEventSchema(_AccountGameEvent):
    """`event: game_started`: a game with a seat of the account started."""

    type = _type("game_started")


class YourTurnEventSchema(_AccountGameEvent):
    """`event: your_turn`: the account's seat is awaited."""

    type = _type("your_turn")
    deadline = fields.String(allow_none=True, metadata={"description": "RFC 3339, timed games"})


class GameFinishedEventSchema(_AccountGameEvent):
    """`event: game_finished`: a game with a seat of the account is over."""

    type = _type("game_finished")
    result = fields.Nested(FeedResultSchema, allow_none=True)
    won = fields.Boolean(required=True)


class JobEventSchema(ma.Schema):
    """`event: verified` or `export_ready`: a job the account asked for has finished."""

    type = _type("verified", "export_ready")
    job_id = fields.String(required=True)
    job = fields.String(required=True, metadata={"description": "The job's kind"})
    result = fields.String(required=True, metadata={"description": "The result's link"})
    game_id = fields.String()
    format = fields.String()
    ok = fields.Boolean(metadata={"description": "A verification's verdict"})


class WebhookPausedEventSchema(ma.Schema):
    """`event: webhook_paused`: a webhook of the account failed too long and was paused."""

    type = _type("webhook_paused")
    webhook_id = fields.String(required=True)
    url = fields.String(required=True)
    failing_since_ms = fields.Integer(required=True)


class TournamentRoundStartedEventSchema(ma.Schema):
    """`event: tournament_round_started`: a round of a tournament the account entered started; its
    own table, seat and game."""

    type = _type("tournament_round_started")
    tournament = fields.String(required=True)
    title = fields.String(allow_none=True)
    game = fields.String(allow_none=True, metadata={"description": "The game's engine"})
    round = fields.Integer(required=True)
    table = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    game_id = fields.String(required=True)


class TournamentFinishedEventSchema(ma.Schema):
    """`event: tournament_finished`: a tournament the account entered ended, its final standings."""

    type = _type("tournament_finished")
    tournament = fields.String(required=True)
    title = fields.String(allow_none=True)
    game = fields.String(allow_none=True, metadata={"description": "The game's engine"})
    rounds = fields.Integer(required=True)
    standings = fields.List(fields.Nested(StandingSchema), required=True)


class RevokedEventSchema(ma.Schema):
    """`event: revoked`, last: the stream's token was revoked (the stream ends)."""

    type = _type("revoked")
    reason = fields.String(required=True)


# Event name -> its component (the challenge's four share one).
VARIANTS: dict[str, tuple[str, type[ma.Schema]]] = {
    "open_games": ("OpenGamesEvent", OpenGamesEventSchema),
    "game_started": ("GameStartedEvent", GameStartedEventSchema),
    "your_turn": ("YourTurnEvent", YourTurnEventSchema),
    "game_finished": ("GameFinishedEvent", GameFinishedEventSchema),
    "verified": ("JobEvent", JobEventSchema),
    "export_ready": ("JobEvent", JobEventSchema),
    "webhook_paused": ("WebhookPausedEvent", WebhookPausedEventSchema),
    "challenge": ("ChallengeEvent", ChallengeEventSchema),
    "challenge_canceled": ("ChallengeEvent", ChallengeEventSchema),
    "challenge_declined": ("ChallengeEvent", ChallengeEventSchema),
    "challenge_expired": ("ChallengeEvent", ChallengeEventSchema),
    "tournament_round_started": ("TournamentRoundStartedEvent", TournamentRoundStartedEventSchema),
    "tournament_finished": ("TournamentFinishedEvent", TournamentFinishedEventSchema),
    "revoked": ("RevokedEvent", RevokedEventSchema),
}


def _ref(component: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{component}"}


# The union, discriminated by `type`: a component of its own (``api``'s documented schemas).
ACCOUNT_STREAM_EVENT: dict[str, Any] = {
    "description": "The `data` of every event of GET /v1/me/stream, by its `type`",
    "oneOf": [_ref(name) for name in dict.fromkeys(component for component, _ in VARIANTS.values())],
    "discriminator": {
        "propertyName": "type",
        "mapping": {kind: f"#/components/schemas/{component}" for kind, (component, _) in VARIANTS.items()},
    },
}


# One message of the stream as a client holds it once read: the SSE fields, `data` decoded. A
# component too (a union alone is no class in some generated clients: this one is).
ACCOUNT_STREAM_MESSAGE: dict[str, Any] = {
    "type": "object",
    "description": "One message of GET /v1/me/stream: its `event:` name, its `id:` (none for "
    "`open_games` and `revoked`) and its `data:`, decoded",
    "properties": {
        "event": {"type": "string", "enum": list(VARIANTS)},
        "id": {"type": ["string", "null"]},
        "data": _ref("AccountStreamEvent"),
    },
    "required": ["event", "data"],
}
