"""Requests and responses of a game's chat (and its stream's payload)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from schemas.common import STREAM_ID_PATTERN, BodyInteger, StrictSchema


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
        validate=validate.Regexp(STREAM_ID_PATTERN, error="Not a message id."),
        metadata={
            "description": "A message id; one past every id a stream can hold (a part over 64 bits) "
            "reads an empty page"
        },
    )


class ChatPageSchema(ma.Schema):
    messages = fields.List(fields.Nested(ChatMessageSchema), required=True)


class MuteRequest(StrictSchema):
    seat = BodyInteger(required=True, validate=validate.Range(0, 999))
    muted = fields.Boolean(load_default=True)


class MutedSeatsSchema(ma.Schema):
    muted = fields.List(fields.Integer(), required=True, metadata={"description": "The seats you muted"})
