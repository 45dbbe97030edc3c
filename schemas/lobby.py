"""The payloads of the live lobby's stream (GET /v1/lobby/stream)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from schemas.challenges import ChallengeSchema
from schemas.seeks import SeekSchema

CHANGES = ("added", "changed", "gone")


class LobbyGameSchema(ma.Schema):
    """An open game anyone may join."""

    id = fields.String(required=True)
    game = fields.String(required=True)
    title = fields.String(required=True)
    seat_count = fields.Integer(required=True)
    free_seats = fields.List(fields.Integer(), required=True)
    created = fields.String(required=True, allow_none=True)


class LobbySnapshotSchema(ma.Schema):
    """`event: lobby`: everything open now (first, and after a resume the stream cannot serve)."""

    games = fields.List(fields.Nested(LobbyGameSchema), required=True)
    challenges = fields.List(fields.Nested(ChallengeSchema), required=True)
    seeks = fields.List(fields.Nested(SeekSchema), required=True)


class LobbyGameEventSchema(ma.Schema):
    """`event: game`: an open game added, or gone (started)."""

    change = fields.String(required=True, validate=validate.OneOf(CHANGES))
    id = fields.String(required=True)
    data = fields.Nested(
        LobbyGameSchema, required=True, allow_none=True, metadata={"description": "null when gone"}
    )


class LobbyChallengeEventSchema(ma.Schema):
    """`event: challenge`: an open challenge added, changed (a seat taken) or gone."""

    change = fields.String(required=True, validate=validate.OneOf(CHANGES))
    id = fields.String(required=True)
    data = fields.Nested(
        ChallengeSchema, required=True, allow_none=True, metadata={"description": "null when gone"}
    )


class LobbySeekEventSchema(ma.Schema):
    """`event: seek`: a seek added or gone (paired, withdrawn, dead)."""

    change = fields.String(required=True, validate=validate.OneOf(CHANGES))
    id = fields.String(required=True)
    data = fields.Nested(
        SeekSchema, required=True, allow_none=True, metadata={"description": "null when gone"}
    )
