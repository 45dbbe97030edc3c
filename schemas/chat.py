"""Requests and responses of a game's chat (and its stream's payload)."""

from __future__ import annotations

import re

import marshmallow as ma
from marshmallow import fields, validate

from schemas.common import BodyInteger, StrictSchema

_STREAM_ID = re.compile(r"\A(\d{1,20})-(\d{1,20})\Z")
_MOST = 2**64 - 1


def is_message_id(value: str) -> bool:
    """A Redis stream entry id (two 64-bit numbers): what ``after`` and Last-Event-ID take. ``\\Z``,
    not ``$`` (which lets a trailing newline through), and each part within 64 bits, since Redis
    refuses anything else with an error rather than an empty answer."""
    found = _STREAM_ID.match(value)
    return found is not None and all(int(part) <= _MOST for part in found.groups())


def _a_message_id(value: str) -> None:
    if not is_message_id(value):
        raise ma.ValidationError("Not a message id.")


class ChatMessageSchema(ma.Schema):
    """A message (and `event: chat` of a room's stream)."""

    id = fields.String(required=True, metadata={"description": "What `after` and Last-Event-ID take"})
    room = fields.String(required=True, validate=validate.OneOf(("players", "spectators")))
    seat = fields.Integer(
        required=True, allow_none=True, metadata={"description": "The writer's seat (players' room)"}
    )
    name = fields.String(required=True, allow_none=True)
    text = fields.String(required=True)
    at = fields.String(required=True)


class PostChatRequest(StrictSchema):
    text = fields.String(required=True, metadata={"description": "1-300 characters, no control characters"})


class ChatQuery(StrictSchema):
    class Meta:
        unknown = ma.RAISE

    after = fields.String(
        validate=[validate.Regexp(r"^\d{1,20}-\d{1,20}$"), _a_message_id],
        metadata={"description": "A message id"},
    )


class ChatPageSchema(ma.Schema):
    messages = fields.List(fields.Nested(ChatMessageSchema), required=True)


class MuteRequest(StrictSchema):
    seat = BodyInteger(required=True, validate=validate.Range(0, 999))
    muted = fields.Boolean(load_default=True)


class MutedSeatsSchema(ma.Schema):
    muted = fields.List(fields.Integer(), required=True, metadata={"description": "The seats you muted"})
