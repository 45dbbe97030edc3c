"""Requests and responses of the account routes."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from schemas.common import DisplayName, StrictSchema

SCOPES = ("play", "read", "webhooks", "account")
# Argon2 takes any length, but every byte of a password is hashed with 64 MiB of memory: a bound
# keeps a sign-in's cost a sign-in's.
PASSWORD: dict[str, Any] = {"validate": validate.Length(8, 256)}
HANDLE_DESCRIPTION = (
    "The account's public handle: the rules of seat names (Unicode NFC, 1-40 characters, no "
    "bidirectional controls, something visible); unique without regard to case"
)


class CreateAccountRequest(StrictSchema):
    handle = DisplayName(max_length=40, required=True, metadata={"description": HANDLE_DESCRIPTION})
    password = fields.String(required=True, **PASSWORD, metadata={"description": "8 to 256 characters"})
    bot = fields.Boolean(
        load_default=False,
        metadata={"description": "A bot account (marked as such on its profile and in its games' listings)"},
    )


class AccountSchema(ma.Schema):
    handle = fields.String(required=True)
    bot = fields.Boolean(required=True)
    created = fields.String(required=True, metadata={"description": "RFC 3339, UTC"})


class MeSchema(AccountSchema):
    account = fields.String(
        required=True,
        metadata={"description": "The account's id, as tournaments and games list their players"},
    )
    scopes = fields.List(fields.String(validate=validate.OneOf(SCOPES)), required=True)
    token_kind = fields.String(required=True, validate=validate.OneOf(("session", "personal")))


class SignInRequest(StrictSchema):
    handle = fields.String(required=True, validate=validate.Length(1, 200))
    password = fields.String(required=True, validate=validate.Length(1, 256))


class SessionSchema(ma.Schema):
    token = fields.String(
        required=True,
        metadata={"description": "The session token (`csa_...`), shown only here: send it as a Bearer token"},
    )
    handle = fields.String(required=True)
    expires = fields.String(required=True, metadata={"description": "RFC 3339, UTC"})
    scopes = fields.List(fields.String(validate=validate.OneOf(SCOPES)), required=True)


class PasswordChangeRequest(StrictSchema):
    current = fields.String(required=True, validate=validate.Length(1, 256))
    new = fields.String(required=True, **PASSWORD)


class DeleteAccountRequest(StrictSchema):
    password = fields.String(
        required=True,
        validate=validate.Length(1, 256),
        metadata={"description": "The account's password, asked again: a session alone cannot delete it"},
    )


class CreateTokenRequest(StrictSchema):
    name = DisplayName(max_length=60, required=True, metadata={"description": "What the token is for"})
    scopes = fields.List(
        fields.String(validate=validate.OneOf(SCOPES)),
        required=True,
        validate=validate.Length(1, len(SCOPES)),
        metadata={"description": "What the token may do: play, read, webhooks, account"},
    )


class TokenSchema(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    scopes = fields.List(fields.String(validate=validate.OneOf(SCOPES)), required=True)
    created = fields.String(required=True)
    last_used = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "RFC 3339; written at most once a minute per token, so up to a minute old"},
    )


class NewTokenSchema(TokenSchema):
    token = fields.String(
        required=True, metadata={"description": "The personal access token (`csp_...`), shown only here"}
    )


class TokenListSchema(ma.Schema):
    tokens = fields.List(fields.Nested(TokenSchema), required=True)


class MyGameSchema(ma.Schema):
    game_id = fields.String(required=True)
    game = fields.String(required=True)
    seat = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(("open", "active", "finished")))
    version = fields.Integer(required=True)
    your_turn = fields.Boolean(required=True)
    deadline = fields.String(
        allow_none=True, required=True, metadata={"description": "RFC 3339, timed games"}
    )
    result = fields.Dict(allow_none=True, required=True)
    won = fields.Boolean(allow_none=True, required=True, metadata={"description": "Finished games only"})


class MyGamesQuery(StrictSchema):
    before = fields.Integer(
        validate=validate.Range(0, 2**53 - 1),
        metadata={"description": "The `next_before` of the previous page (finished games)"},
    )
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100))


class MyGamesSchema(ma.Schema):
    running = fields.List(
        fields.Nested(MyGameSchema), required=True, metadata={"description": "Those awaiting me first"}
    )
    finished = fields.List(
        fields.Nested(MyGameSchema), required=True, metadata={"description": "Newest first"}
    )
    next_before = fields.Integer(allow_none=True, required=True)


class GameCountSchema(ma.Schema):
    game = fields.String(required=True)
    played = fields.Integer(required=True)
    won = fields.Integer(required=True)


class ProfileSchema(AccountSchema):
    games = fields.List(fields.Nested(GameCountSchema), required=True, metadata={"description": "Per game"})
    recent = fields.List(
        fields.Nested(MyGameSchema), required=True, metadata={"description": "Finished games"}
    )


class OnlineBotSchema(ma.Schema):
    handle = fields.String(required=True)
    bot = fields.Boolean(required=True, metadata={"description": "Always true: a bot account"})


class OnlineBotsSchema(ma.Schema):
    bots = fields.List(fields.Nested(OnlineBotSchema), required=True)
