"""Accounts (issue 31): sign-up, sign-in, tokens with scopes, the account's games, its feed, its
public profile and its deletion. No Flask here; ``api/accounts.py`` is the HTTP edge.

Passwords are hashed with Argon2id (argon2-cffi). Its ``PasswordHasher()`` defaults are RFC 9106's
*low-memory* profile (t=3, m=64 MiB, p=4), which is what :data:`PASSWORD_PROFILE` names: the high
memory profile (2 GiB per hash) cannot run on a 2-core web box serving other requests. A sign-in
for an unknown handle verifies the password against a dummy hash made with the same parameters,
so a wrong handle and a wrong password cost the same time and get the same answer
(``bench/signin_timing.py`` measures both).

Tokens: ``<prefix><account id>.<token id>.<secret>`` (``service.identity``: ``csa_`` for sessions,
``csp_`` for personal access tokens, so a secret scanner can find them). Only the SHA-256 of the
whole token is stored, under the account's hash tag, so resolving one is one HGET on one slot. The
last use of each token is kept for its listing, written at most once per
:data:`LAST_USE_WRITE_SECONDS` per token and process (in one pipeline with the others due), never
once per request.

Deleting an account is in ``service.account_deletion`` (its second half, which the janitor
finishes when a process died in it), and the follow-up action that tells an account what its
games did in ``service.account_followup``.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from argon2 import PasswordHasher, profiles
from argon2.exceptions import InvalidHashError, VerificationError

from service import errors
from service.account_deletion import finish_deletion
from service.identity import (
    ACCOUNT,
    PERSONAL_PREFIX,
    READ,
    SCOPES,
    SESSION_PREFIX,
    InsufficientScope,
    fold_handle,
    is_account_token,
)
from service.live import FeedSubscription
from store import parts, timestamps
from store.accounts import FeedEntry, account_keys

if TYPE_CHECKING:
    from service.ports import GameAccess

log = logging.getLogger(__name__)

# argon2-cffi's recommended parameters: PasswordHasher()'s defaults are this very profile.
PASSWORD_PROFILE = profiles.RFC_9106_LOW_MEMORY
SESSION_SECONDS = 30 * 24 * 3600
MOST_SESSIONS = 20  # per account: the oldest session goes when a 21st signs in
MOST_PERSONAL_TOKENS = 50
LAST_USE_WRITE_SECONDS = 60.0
# Accounts whose tokens' last uses this process still has to write or remembers having written.
LAST_USES_KEPT = 10_000
# GET /v1/me/stream: at most this many open at once per account (every device and script of the
# account together); each holds a lease renewed at every heartbeat, so a stream of a killed process
# stops counting after STREAM_LEASE_SECONDS.
MOST_STREAMS = 8
STREAM_LEASE_SECONDS = 60.0
# An open stream reads its feed when the process's live reader (service.live, the XREAD every
# game stream already shares) sees the feed move, and otherwise at least this often: the fallback
# for a wake that did not come (the reader failing, say). Its heartbeat reads it too.
FEED_POLL_SECONDS = 15.0
NO_ACCOUNT = "0" * 20  # an id no account has (ids are random hex): read in place of a missing one


class HandleTaken(errors.ServiceError):
    status, code, title = 409, "HANDLE_TAKEN", "That handle is taken"


class InvalidCredentials(errors.ServiceError):
    status, code, title = 401, "INVALID_CREDENTIALS", "Wrong handle or password"


class PlayerNotFound(errors.ServiceError):
    status, code, title = 404, "PLAYER_NOT_FOUND", "No player with that handle"


class TokenNotFound(errors.ServiceError):
    status, code, title = 404, "TOKEN_NOT_FOUND", "The account has no such token"


class TooManyStreams(errors.ServiceError):
    status, code, title = 429, "TOO_MANY_STREAMS", "Too many streams of this account are open"


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
    pieces = token[4:].split(".")  # not ``parts``: that name is the store's accessors here
    if len(pieces) != 3 or not all(pieces):
        return None
    return pieces[0], pieces[1]


class AccountService:
    """Accounts on the game service's store; also the game service's ``identity`` resolver."""

    def __init__(
        self,
        games: GameAccess,
        password_parameters: Any = None,
        stream_poll_seconds: float = FEED_POLL_SECONDS,
    ):
        self.games = games
        self.store = parts.accounts(games.store)
        parameters = password_parameters or PASSWORD_PROFILE
        self.hasher = PasswordHasher.from_parameters(parameters)
        # Verified for handles that name no account: the same work as a real verification.
        self._dummy = self.hasher.hash(secrets.token_urlsafe(16))
        self.stream_poll_seconds = stream_poll_seconds
        self._uses: OrderedDict[str, dict[str, str]] = OrderedDict()  # account -> token id -> when
        self._written: OrderedDict[str, float] = OrderedDict()  # token id -> when last written
        self._uses_lock = threading.Lock()
        self._last_flush = time.monotonic()

    # -- sign-up, sign-in, sign-out, password -------------------------------------------------
    def create_account(self, handle: str, password: str, bot: bool = False) -> dict[str, Any]:
        folded = fold_handle(handle)
        if self.store.account_for_handle(folded) is not None and self._handle_live(folded):
            raise HandleTaken()
        account_id = secrets.token_hex(10)
        created = timestamps.now()
        self.store.write_pending(
            account_id,
            {
                "handle": handle,
                "folded": folded,
                "password": self.hasher.hash(password),
                "bot": "1" if bot else "0",
                "created": created,
            },
        )
        if not self.store.claim_handle(folded, account_id):
            self.store.discard_pending(account_id)
            raise HandleTaken()
        self.store.confirm(account_id)
        return {"handle": handle, "bot": bot, "created": created}

    def _handle_live(self, folded: str) -> bool:
        account_id = self.store.account_for_handle(folded)
        return account_id is not None and self.store.record(account_id) is not None

    def _live_record(self, account_id: str | None) -> dict[str, str] | None:
        """The account's record, None for no account or one being deleted."""
        record = self.store.record(account_id) if account_id else None
        return None if record is None or record.get("deleting") else record

    def sign_in(self, handle: str, password: str) -> dict[str, Any]:
        """A new session token for the right handle and password; InvalidCredentials otherwise,
        the same answer after the same work whether the handle or the password was wrong."""
        folded = fold_handle(handle)
        account_id = self.store.account_for_handle(folded)
        # An unknown handle reads a record too (of no account): the same round trips either way.
        record = self.store.record(account_id or NO_ACCOUNT)
        stored = record.get("password") if record is not None else None
        try:
            self.hasher.verify(stored or self._dummy, password)
        except (VerificationError, InvalidHashError):
            raise InvalidCredentials() from None
        if stored is None or account_id is None or record is None:
            raise InvalidCredentials()  # the dummy matched (it cannot in practice): still refused
        if self.hasher.check_needs_rehash(stored):
            self.store.set_password(account_id, self.hasher.hash(password))
        token, entry = self._new_token(account_id, "session", "session", SCOPES, SESSION_SECONDS)
        if not self.store.add_token(account_id, entry["id"], entry, MOST_SESSIONS):
            raise InvalidCredentials()  # deleted meanwhile
        return {
            "token": token,
            "handle": record["handle"],
            "expires": entry["expires"],
            "scopes": list(SCOPES),
        }

    def sign_out(self, identity: Identity) -> None:
        self.store.revoke(identity.account_id, [identity.token_id])

    def change_password(self, identity: Identity, current: str, new: str) -> None:
        """Needs the current password; every other session of the account ends (personal access
        tokens stay: they are revoked one by one)."""
        self._require(identity, ACCOUNT)
        record = self.store.record(identity.account_id)
        if record is None:
            raise errors.InvalidToken()
        try:
            self.hasher.verify(record["password"], current)
        except (VerificationError, InvalidHashError):
            raise InvalidCredentials("The current password is wrong.") from None
        self.store.set_password(identity.account_id, self.hasher.hash(new))
        entries, _ = self.store.tokens(identity.account_id)
        others = [tid for tid, e in entries.items() if e["kind"] == "session" and tid != identity.token_id]
        self.store.revoke(identity.account_id, others)

    # -- tokens -----------------------------------------------------------------------------------
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

    def create_token(self, identity: Identity, name: str, scopes: Sequence[str]) -> dict[str, Any]:
        self._require(identity, ACCOUNT)
        token, entry = self._new_token(identity.account_id, "personal", name, scopes, None)
        if not self.store.add_token(identity.account_id, entry["id"], entry, MOST_PERSONAL_TOKENS):
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
        with self._uses_lock:
            written = self._written.get(token_id)
            if written is None or now - written >= LAST_USE_WRITE_SECONDS:
                self._uses.setdefault(account_id, {})[token_id] = timestamps.from_ms(int(now * 1000))
                self._written[token_id] = now
                self._written.move_to_end(token_id)
                while len(self._written) > LAST_USES_KEPT:
                    self._written.popitem(last=False)
        if time.monotonic() - self._last_flush >= LAST_USE_WRITE_SECONDS:
            self.flush_uses()

    def flush_uses(self, force: bool = False) -> None:
        """Write the last uses noted since the previous flush, in one pipeline."""
        with self._uses_lock:
            if not self._uses or (not force and time.monotonic() - self._last_flush < LAST_USE_WRITE_SECONDS):
                return
            uses, self._uses = dict(self._uses), OrderedDict()
            self._last_flush = time.monotonic()
        try:
            self.store.note_uses(uses)
        except Exception:  # noqa: BLE001 - a listing's "last used" is best effort
            log.exception("could not write the tokens' last uses")

    # -- the account ------------------------------------------------------------------------------
    def me(self, identity: Identity) -> dict[str, Any]:
        record = self.store.record(identity.account_id)
        if record is None:
            raise errors.InvalidToken()
        return {
            "handle": record["handle"],
            "bot": record.get("bot") == "1",
            "created": record["created"],
            "scopes": list(identity.scopes),
            "token_kind": identity.kind,
        }

    def handle_of(self, account_id: str) -> str | None:
        record = self.store.record(account_id)
        return record["handle"] if record is not None else None

    def my_games(self, identity: Identity, before: float | None, limit: int) -> dict[str, Any]:
        """Running games (those awaiting me first, then newest), and a page of finished ones."""
        self._require(identity, READ)
        entries = self.store.games(identity.account_id)
        running = [_game_item(gid, e) for gid, e in entries.items() if e.get("status") in ("open", "active")]
        running.sort(key=lambda g: g["game_id"], reverse=True)
        running.sort(key=lambda g: not g["your_turn"])
        page = self.store.finished_page(identity.account_id, before, limit + 1)
        more = len(page) > limit
        page = page[:limit]
        found = self.store.game_entries(identity.account_id, [gid for gid, _ in page])
        finished = [_game_item(gid, e) for (gid, _), e in zip(page, found, strict=True) if e]
        cursor = int(page[-1][1]) if more and page else None
        return {"running": running, "finished": finished, "next_before": cursor}

    def profile(self, handle: str, recent: int = 10) -> dict[str, Any]:
        account_id = self.store.account_for_handle(fold_handle(handle))
        record = self._live_record(account_id)
        if account_id is None or record is None:
            raise PlayerNotFound()
        counts = self.store.stats(account_id)
        per_game: dict[str, dict[str, int]] = {}
        for field, value in counts.items():
            what, _, game = field.partition(":")
            per_game.setdefault(game, {"played": 0, "won": 0})[what] = value
        page = self.store.finished_page(account_id, None, recent)
        found = self.store.game_entries(account_id, [gid for gid, _ in page])
        games = [_game_item(gid, e) for (gid, _), e in zip(page, found, strict=True) if e]
        return {
            "handle": record["handle"],
            "bot": record.get("bot") == "1",
            "created": record["created"],
            "games": [{"game": g, **c} for g, c in sorted(per_game.items())],
            "recent": games,
        }

    def account_id_of(self, handle: str) -> str | None:
        """The id of the account ``handle`` names (the archive's ``?account=`` filter), or None."""
        account_id = self.store.account_for_handle(fold_handle(handle))
        return account_id if self._live_record(account_id) is not None else None

    def delete(self, identity: Identity) -> None:
        """Removes the account's credentials at once, then renames its seats to a placeholder (its
        games stay), then removes its data and frees its handle. A process killed in between leaves
        the deletion noted: the janitor finishes it (:func:`finish_deletions`)."""
        self._require(identity, ACCOUNT)
        if not self.store.begin_delete(identity.account_id, int(time.time() * 1000)):
            raise errors.InvalidToken()
        finish_deletion(self.games, identity.account_id)

    # -- the account's stream ---------------------------------------------------------------------
    def open_stream(self, identity: Identity) -> str:
        """A lease for one more open stream of the account; TooManyStreams beyond MOST_STREAMS."""
        self._require(identity, READ)
        stream_id = secrets.token_hex(8)
        if not self.store.lease_stream(
            identity.account_id,
            stream_id,
            int(time.time() * 1000),
            int(STREAM_LEASE_SECONDS * 1000),
            MOST_STREAMS,
        ):
            raise TooManyStreams(f"At most {MOST_STREAMS} streams of an account may be open at once.")
        return stream_id

    def follow_feed(self, identity: Identity) -> FeedSubscription:
        """A wake-up for each new entry of the account's feed, from the process's live reader
        (``service.live.LiveHub.follow_feed``): what :meth:`stream` waits on."""
        key = account_keys(identity.account_id).feed
        return self.games.live.follow_feed(key, lambda: self.store.feed_last_id(identity.account_id))

    def stream(
        self,
        identity: Identity,
        stream_id: str,
        after: str | None,
        heartbeat: float,
        gone: Callable[[], bool] = lambda: False,
        feed: FeedSubscription | None = None,
    ) -> Iterator[tuple[str, str | None, bytes] | None]:
        """The account's stream: ``("open_games", None, data)`` first, then each feed entry after
        ``after`` (None: after the newest one now) as ``(kind, id, data)``, and ``None`` for a
        heartbeat. Ends when the token is revoked or the lease cannot be renewed. The feed is read
        before the running games, so a change in between is sent, not lost (it may also show in
        ``open_games``). It reads the feed when ``feed`` (by default its own
        :meth:`follow_feed`) wakes it, at each heartbeat and at least every
        ``stream_poll_seconds`` (the fallback): an idle stream sends no command between
        heartbeats. Whoever passes ``feed`` closes it."""
        own = feed is None
        try:
            if feed is None:
                feed = self.follow_feed(identity)
            # Without Last-Event-ID: from now on (the running games say where things stand).
            last = after if after is not None else self.store.feed_last_id(identity.account_id)
            games = self.my_games(identity, None, 0)["running"]
            yield "open_games", None, orjson.dumps({"games": games})
            beat = time.monotonic() + heartbeat
            while True:
                entries = self.store.feed_after(identity.account_id, last)
                for entry in entries:
                    last = entry.id
                    yield entry.kind, entry.id, _feed_data(entry)
                if entries:
                    continue
                # Subscribed before the first read: an entry added since wakes this at once.
                feed.wait(max(0.0, min(self.stream_poll_seconds, beat - time.monotonic())))
                if gone():  # the client hung up: its lease goes back at once (finally, below)
                    return
                if time.monotonic() >= beat:
                    beat = time.monotonic() + heartbeat
                    # The token still holds (revoked: the stream ends) and the lease is renewed.
                    try:
                        self.identify_by_id(identity)
                    except errors.InvalidToken:
                        return
                    if not self.store.lease_stream(
                        identity.account_id,
                        stream_id,
                        int(time.time() * 1000),
                        int(STREAM_LEASE_SECONDS * 1000),
                        MOST_STREAMS,
                    ):
                        return
                    yield None
        finally:
            if own and feed is not None:
                feed.close()
            self.store.end_stream(identity.account_id, stream_id)

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


def _game_item(game_id: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "game": entry.get("game"),
        "seat": int(entry.get("seat", 0)),
        "status": entry.get("status"),
        "version": int(entry.get("version", 0)),
        "your_turn": bool(entry.get("turn")) and entry.get("status") == "active",
        "deadline": entry.get("deadline") or None,
        "result": entry.get("result") or None,
        "won": bool(entry.get("won")) if entry.get("status") == "finished" else None,
    }


def _feed_data(entry: FeedEntry) -> bytes:
    body = {k: (None if v is None else v) for k, v in entry.body.items()}
    return orjson.dumps({"type": entry.kind, **body})
