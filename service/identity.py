"""The seam between the game service and accounts: how a bearer token that is not a seat's names
an account, and the refusals that come with it.

:class:`service.GameService` is given an :class:`IdentityResolver` at start-up (``create_app``:
``service.accounts.AccountService``); without one, an account token is just an invalid seat token.
A token is an account's when it starts with one of :data:`ACCOUNT_TOKEN_PREFIXES`; seat tokens
(``cst_``) never do, so an anonymous seat's request never reaches the resolver (no extra round trip).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Protocol

from service.errors import InvalidToken, ServiceError

# Scopes of an account's tokens (Lichess's personal access tokens have the same idea): a session
# token (sign-in) holds them all; a personal access token the ones it was created with.
PLAY = "play"  # moves, resignations, aborts, seat claims and seat token fetches as the account
READ = "read"  # the account's seats' views, events and streams; its games and its feed
WEBHOOKS = "webhooks"  # reserved for the account's webhooks (not served yet)
ACCOUNT = "account"  # the account itself: tokens, password, deletion
SCOPES = (PLAY, READ, WEBHOOKS, ACCOUNT)

SESSION_PREFIX = "csa_"  # a session token (POST /v1/sessions)
PERSONAL_PREFIX = "csp_"  # a personal access token (POST /v1/me/tokens)
ACCOUNT_TOKEN_PREFIXES = (SESSION_PREFIX, PERSONAL_PREFIX)

# Why a stream opened with an account token ends (``event: revoked``): the token was revoked, by
# its owner, a sign-out, a password change (the other sessions) or the account's deletion.
REVOKED_CREDENTIAL = "account_token_revoked"


def is_account_token(token: str) -> bool:
    return token.startswith(ACCOUNT_TOKEN_PREFIXES)


def credential_of(token: str | None) -> str | None:
    """``<account id>.<token id>`` of an account token (its secret left out), None for any other
    token: what a stream, a stream ticket or a device link keeps of the account token it was opened
    or issued with, so it ends when that token is revoked (``IdentityResolver.credential_alive``)."""
    if token is None or not is_account_token(token):
        return None
    pieces = token[len(SESSION_PREFIX) :].split(".")
    if len(pieces) != 3 or not all(pieces):
        return None
    return f"{pieces[0]}.{pieces[1]}"


class InsufficientScope(ServiceError):
    status, code, title = 403, "INSUFFICIENT_SCOPE", "This token lacks the scope the request needs"

    def __init__(self, scope: str):
        super().__init__(f"This request needs a token with the {scope!r} scope.", scope=scope)


class NotSeated(InvalidToken):
    """A valid account token whose account holds no seat of the game: for the game, it is no seat's
    token (so wherever another seat's token is refused, this one is too, e.g. a seat's job: 404)."""

    status, code, title = 403, "NOT_SEATED", "The token's account holds no seat of this game"


class AlreadySeated(ServiceError):
    status, code, title = 409, "ALREADY_SEATED", "The account already holds a seat of this game"


class IdentityResolver(Protocol):
    def account_for(self, token: str, scope: str) -> str:
        """The id of the account ``token`` belongs to, if the token is valid and has ``scope``;
        raises :class:`service.errors.InvalidToken` or :class:`InsufficientScope`."""
        ...

    def credential_alive(self, credential: str) -> bool:
        """Whether the account token named by ``credential`` (:func:`credential_of`) still works:
        False once it is revoked, signed out, ended by a password change or the account's deletion,
        or expired. One read of the account's slot."""
        ...

    def revocation_feed(self, credential: str) -> tuple[str, Callable[[], str]]:
        """The stream that announces revocations of the account's tokens (``LiveHub.follow_feed``:
        its key, and how to read its newest entry id)."""
        ...


def fold_handle(handle: str) -> str:
    """The form handles are compared in: NFC of the case fold of the NFC name, so "Ann", "ANN" and
    "ann" (and their decomposed spellings) are one handle."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", handle).casefold())
