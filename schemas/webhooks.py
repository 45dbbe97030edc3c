"""Requests and responses of the webhook routes."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from schemas.common import StrictSchema

EVENTS = (
    "your_turn",
    "game_started",
    "game_finished",
    "verified",
    "export_ready",
    "challenge",
    "challenge_canceled",
    "challenge_declined",
    "challenge_expired",
    "tournament_round_started",
    "tournament_finished",
)
EVENTS_DESCRIPTION = (
    "`your_turn`, `game_started`, `game_finished`: the account's seats' games; `verified` (with the "
    "verdict `ok`) and `export_ready` (with the job's `result` link): a verification or an export the "
    "account asked for with its token (scope `read`) has finished; `challenge`, `challenge_canceled`, "
    "`challenge_declined`, `challenge_expired`: a challenge the account is a party to; "
    "`tournament_round_started` (with the account's own table, seat and `game_id`) and "
    "`tournament_finished` (with the final standings): a tournament the account entered"
)
GAME_EVENTS = ("game_started", "game_finished")
FORMATS = ("standard", "discord", "slack")
FORMAT_DESCRIPTION = (
    "`standard`: the Standard Webhooks body `{type, timestamp, data}`; `discord`: `{content}` and "
    "`slack`: `{text}`, one sentence with the game's link (a job's result for `verified` and "
    "`export_ready`), for those chats' incoming webhooks. Every "
    "format is signed alike."
)


def Url() -> fields.String:  # noqa: N802 - a field factory reads like a field class
    return fields.String(
        required=True,
        validate=validate.Length(1, 2000),
        metadata={
            "description": "http(s) URL; refused when it resolves to a loopback, private, link-local, "
            "metadata, unspecified or multicast address"
        },
    )


class CreateWebhookRequest(StrictSchema):
    url = Url()
    events = fields.List(
        fields.String(validate=validate.OneOf(EVENTS)),
        required=True,
        validate=validate.Length(1, len(EVENTS)),
        metadata={"description": EVENTS_DESCRIPTION},
    )
    game_id = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Regexp(r"^[0-9a-z]{20}$"),
        metadata={"description": "Only this game's events (default: every game of the account)"},
    )
    format = fields.String(
        load_default="standard",
        validate=validate.OneOf(FORMATS),
        metadata={"description": FORMAT_DESCRIPTION},
    )


class CreateGameWebhookRequest(StrictSchema):
    url = Url()
    events = fields.List(
        fields.String(validate=validate.OneOf(GAME_EVENTS)),
        required=True,
        validate=validate.Length(1, len(GAME_EVENTS)),
        metadata={
            "description": "Spectator events only: the game's start and its end (a job's `verified` or "
            "`export_ready` is told to the account that asked for the job, never to a game's audience)"
        },
    )
    format = fields.String(
        load_default="standard",
        validate=validate.OneOf(FORMATS),
        metadata={"description": FORMAT_DESCRIPTION},
    )


class UpdateWebhookRequest(StrictSchema):
    paused = fields.Boolean(required=True, metadata={"description": "A paused webhook is sent nothing"})


class WebhookSchema(ma.Schema):
    id = fields.String(required=True)
    url = fields.String(required=True)
    events = fields.List(fields.String(validate=validate.OneOf(EVENTS)), required=True)
    game_id = fields.String(required=True, allow_none=True)
    format = fields.String(required=True, validate=validate.OneOf(FORMATS))
    paused = fields.Boolean(required=True)
    game_wide = fields.Boolean(
        required=True,
        metadata={"description": "A game's creator's webhook for the whole game (spectator events)"},
    )
    created = fields.String(required=True, metadata={"description": "RFC 3339, UTC"})
    failing_since = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "RFC 3339: since when every attempt failed (paused after days of it)"},
    )


class NewWebhookSchema(WebhookSchema):
    secret = fields.String(
        required=True,
        metadata={
            "description": "The signing secret (`whsec_<base64>`), shown only here: verify "
            "`webhook-signature` with a Standard Webhooks library"
        },
    )


class WebhookListSchema(ma.Schema):
    webhooks = fields.List(fields.Nested(WebhookSchema), required=True)


class PingSchema(ma.Schema):
    delivery_id = fields.String(required=True, metadata={"description": "The `webhook-id` it will carry"})


class DeliveryAttemptSchema(ma.Schema):
    delivery_id = fields.String(required=True)
    event = fields.String(required=True)
    at = fields.String(required=True, metadata={"description": "RFC 3339, UTC"})
    attempt = fields.Integer(required=True)
    outcome = fields.String(required=True, validate=validate.OneOf(("delivered", "retrying", "failed")))
    status = fields.Integer(required=True, allow_none=True, metadata={"description": "HTTP status, if any"})
    latency_ms = fields.Float(required=True, allow_none=True)
    error = fields.String(required=True, allow_none=True)


class DeliveryLogSchema(ma.Schema):
    attempts = fields.List(
        fields.Nested(DeliveryAttemptSchema),
        required=True,
        metadata={"description": "The last attempts, newest first"},
    )
