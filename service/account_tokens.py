"""Account tokens: issuing, resolving, listing and revoking them, and their last uses;
the token half of ``service.accounts.AccountService`` (:class:`AccountTokens` is its base).

Tokens: ``<prefix><account id>.<token id>.<secret>`` (``service.identity``: ``csa_`` for sessions,
``csp_`` for personal access tokens, so a secret scanner can find them). Only the SHA-256 of the
whole token is stored, under the account's hash tag, so resolving one is one HGET on one slot. The
last use of each token is kept for its listing, written at most once per
:data:`LAST_USE_WRITE_SECONDS` per token and process (in one pipeline with the others due), never
once per request.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service import errors
from service.identity import (
    ACCOUNT,
    PERSONAL_PREFIX,
    SCOPES,
    SESSION_PREFIX,
    InsufficientScope,
    is_account_token,
)
from store import timestamps
from store.accounts import AccountStore, account_keys

log = logging.getLogger(__name__)

SESSION_SECONDS = 30 * 24 * 3600
MOST_SESSIONS = 20  # per account: the oldest session goes when a 21st signs in
MOST_PERSONAL_TOKENS = 50
LAST_USE_WRITE_SECONDS = 60.0
# Accounts whose tokens' last uses this process still has to write or remembers having written.
LAST_USES_KEPT = 10_000


class TokenNotFound(errors.ServiceError):
    status, code, title = 404, "TOKEN_NOT_FOUND", "The account has no such token"


class TooManyTokens(errors.ServiceError):
    status, code, title = 409, "TOO_MANY_TOKENS", "The account holds as many personal access tokens as it may"

    def __init__(self) -> None:
        super().__init__(
            f"An account holds at most {MOST_PERSONAL_TOKENS} personal access tokens: revoke one first.",
            limit=MOST_PERSONAL_TOKENS,
        )


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Identity:
    account_id: str
    token_id: str
    kind: str  # "session" or "personal"
    scopes: tuple[str, ...]


def parse_token(token: str) -> tuple[str, str] | None:
    """(account id, token id) of a well-formed account token, else None."""
    if not is_account_token(token):
        return None
    pieces = token[4:].split(".")  # not ``parts``: service.accounts names the store's accessors so
    if len(pieces) != 3 or not all(pieces):
        return None
    return pieces[0], pieces[1]


class TokenUses:
    """The last uses of account tokens this process has still to write: one per process, shared by
    whoever identifies tokens (the game service's identity resolver, the account service)."""

    def __init__(self) -> None:
        self.pending: OrderedDict[str, dict[str, str]] = OrderedDict()  # account -> token id -> when
        self.written: OrderedDict[str, float] = OrderedDict()  # token id -> when last written
        self.lock = threading.Lock()
        self.last_flush = time.monotonic()


class AccountTokens:
    """An account's tokens on the accounts store, with the last uses this process has still to write."""

    def __init__(self, store: AccountStore, uses: TokenUses):
        self.store = store
        self.uses = uses

    @staticmethod
    def _new_token(
        account_id: str, kind: str, name: str, scopes: Sequence[str], ttl: float | None
    ) -> tuple[str, dict[str, Any]]:
        token_id = secrets.token_hex(6)
        prefix = SESSION_PREFIX if kind == "session" else PERSONAL_PREFIX
        token = f"{prefix}{account_id}.{token_id}.{secrets.token_urlsafe(32)}"
        now = time.time()
        entry = {
            "id": token_id,
            "hash": _hash(token),
            "kind": kind,
            "name": name,
            "scopes": [s for s in SCOPES if s in scopes],
            "created": timestamps.from_ms(int(now * 1000)),
            "expires": timestamps.from_ms(int((now + ttl) * 1000)) if ttl else None,
        }
        return token, entry

    def identify(self, token: str, scope: str | None = None) -> Identity:
        """The identity of an account ``token`` (with ``scope`` when given), or InvalidToken /
        InsufficientScope. One HGET on the account's slot."""
        parsed = parse_token(token)
        if parsed is None:
            raise errors.InvalidToken()
        account_id, token_id = parsed
        entry = self.store.token(account_id, token_id)
        if entry is None or not hmac.compare_digest(entry["hash"], _hash(token)):
            raise errors.InvalidToken()
        expires = entry.get("expires")
        if expires and timestamps.to_ms(expires) <= int(time.time() * 1000):
            raise errors.InvalidToken()
        identity = Identity(account_id, token_id, entry["kind"], tuple(entry["scopes"]))
        if scope is not None:
            self._require(identity, scope)
        self._note_use(account_id, token_id)
        return identity

    def account_for(self, token: str, scope: str) -> str:
        """``service.identity.IdentityResolver``: the game service asks this for account tokens."""
        return self.identify(token, scope).account_id

    @staticmethod
    def _require(identity: Identity, scope: str) -> None:
        if scope not in identity.scopes:
            raise InsufficientScope(scope)

    def credential_alive(self, credential: str) -> bool:
        """``service.identity.IdentityResolver``: whether the token ``<account id>.<token id>``
        still works (its entry is gone once it is revoked, signed out, ended by a password change or
        by the account's deletion)."""
        account_id, _, token_id = credential.partition(".")
        entry = self.store.token(account_id, token_id)
        if entry is None:
            return False
        expires = entry.get("expires")
        return not (expires and timestamps.to_ms(expires) <= int(time.time() * 1000))

    def revocation_feed(self, credential: str) -> tuple[str, Callable[[], str]]:
        """``service.identity.IdentityResolver``: the key of the stream announcing the revocations of
        the account's tokens, and how to read where it stands now (``LiveHub.follow_feed``)."""
        account_id = credential.partition(".")[0]
        return account_keys(account_id).revoked, lambda: self.store.revocation_feed(account_id)[1]

    def create_token(self, identity: Identity, name: str, scopes: Sequence[str]) -> dict[str, Any]:
        """A token never holds a scope its maker lacks (a personal token with ``account`` alone
        cannot mint one that plays), and the account's personal tokens are capped: the one beyond
        the cap is refused (TooManyTokens), never made by dropping the oldest, which some script may
        still rely on."""
        self._require(identity, ACCOUNT)
        for scope in scopes:
            self._require(identity, scope)
        token, entry = self._new_token(identity.account_id, "personal", name, scopes, None)
        added = self.store.add_token(
            identity.account_id, entry["id"], entry, MOST_PERSONAL_TOKENS, refuse_beyond=True
        )
        if added is None:
            raise TooManyTokens()
        if not added:
            raise errors.InvalidToken()
        return {**_listed(entry, None), "token": token}

    def list_tokens(self, identity: Identity) -> list[dict[str, Any]]:
        self._require(identity, ACCOUNT)
        self.flush_uses(force=True)
        entries, used = self.store.tokens(identity.account_id)
        listed = [_listed(e, used.get(tid)) for tid, e in entries.items() if e["kind"] == "personal"]
        return sorted(listed, key=lambda t: t["created"])

    def revoke_token(self, identity: Identity, token_id: str) -> None:
        self._require(identity, ACCOUNT)
        entry = self.store.token(identity.account_id, token_id)
        if entry is None or entry["kind"] != "personal":
            raise TokenNotFound()
        self.store.revoke(identity.account_id, [token_id])

    def _note_use(self, account_id: str, token_id: str) -> None:
        now = time.time()
        uses = self.uses
        with uses.lock:
            written = uses.written.get(token_id)
            if written is None or now - written >= LAST_USE_WRITE_SECONDS:
                uses.pending.setdefault(account_id, {})[token_id] = timestamps.from_ms(int(now * 1000))
                uses.written[token_id] = now
                uses.written.move_to_end(token_id)
                while len(uses.written) > LAST_USES_KEPT:
                    uses.written.popitem(last=False)
        if time.monotonic() - uses.last_flush >= LAST_USE_WRITE_SECONDS:
            self.flush_uses()

    def flush_uses(self, force: bool = False) -> None:
        """Write the last uses noted since the previous flush, in one pipeline."""
        buffer = self.uses
        with buffer.lock:
            recent = time.monotonic() - buffer.last_flush < LAST_USE_WRITE_SECONDS
            if not buffer.pending or (not force and recent):
                return
            uses, buffer.pending = dict(buffer.pending), OrderedDict()
            buffer.last_flush = time.monotonic()
        try:
            self.store.note_uses(uses)
        except Exception:  # noqa: BLE001 - a listing's "last used" is best effort
            log.exception("could not write the tokens' last uses")

    def identify_by_id(self, identity: Identity) -> None:
        if self.store.token(identity.account_id, identity.token_id) is None:
            raise errors.InvalidToken()


def _listed(entry: Mapping[str, Any], last_used: str | None) -> dict[str, Any]:
    return {
        "id": entry["id"],
        "name": entry["name"],
        "scopes": list(entry["scopes"]),
        "created": entry["created"],
        "last_used": last_used,
    }
