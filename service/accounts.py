"""Accounts: sign-up, sign-in, tokens with scopes (``service.account_tokens``), the
account's games, its feed, its public profile and its deletion. No Flask here; ``api/accounts.py``
is the HTTP edge.

Passwords are hashed with Argon2id (argon2-cffi). Its ``PasswordHasher()`` defaults are RFC 9106's
*low-memory* profile (t=3, m=64 MiB, p=4), which is what :data:`PASSWORD_PROFILE` names: the high
memory profile (2 GiB per hash) cannot run on a 2-core web box serving other requests. A sign-in
for an unknown handle verifies the password against a dummy hash made with the same parameters,
so a wrong handle and a wrong password cost the same time and get the same answer
(``bench/signin_timing.py`` measures both).

Deleting an account is in ``service.account_deletion`` (its second half, which the janitor
finishes when a process died in it), and the follow-up action that tells an account what its
games did in ``service.account_followup``.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson
from argon2 import PasswordHasher, profiles
from argon2.exceptions import InvalidHashError, VerificationError

from service import errors, handles
from service.account_deletion import finish_deletion

# Exported with the service that hands it out: api.accounts takes Identity from here.
from service.account_tokens import MOST_SESSIONS, SESSION_SECONDS, AccountTokens, Identity, TokenUses
from service.identity import ACCOUNT, READ, REVOKED_CREDENTIAL, SCOPES, fold_handle
from service.live import FeedSubscription
from store import parts, timestamps
from store.accounts import FeedEntry, account_keys

if TYPE_CHECKING:
    from service.ports import GameAccess

# argon2-cffi's recommended parameters: PasswordHasher()'s defaults are this very profile.
PASSWORD_PROFILE = profiles.RFC_9106_LOW_MEMORY
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


class HandleReserved(errors.ServiceError):
    status, code, title = 422, "HANDLE_RESERVED", "That handle passes for a bot or a placeholder"


class SeatNameTaken(errors.ServiceError):
    status, code, title = 409, "SEAT_NAME_TAKEN", "That seat name is another account's handle"


class InvalidCredentials(errors.ServiceError):
    status, code, title = 401, "INVALID_CREDENTIALS", "Wrong handle or password"


class PlayerNotFound(errors.ServiceError):
    status, code, title = 404, "PLAYER_NOT_FOUND", "No player with that handle"


class UnknownAccount(errors.ServiceError):
    status, code, title = 422, "UNKNOWN_ACCOUNT", "No account has that handle"


class TooManyStreams(errors.ServiceError):
    status, code, title = 429, "TOO_MANY_STREAMS", "Too many streams of this account are open"


class AccountService(AccountTokens):
    """Accounts on the game service's store; also the game service's ``identity`` resolver."""

    def __init__(
        self,
        games: GameAccess,
        uses: TokenUses,
        password_parameters: Any = None,
        stream_poll_seconds: float = FEED_POLL_SECONDS,
    ):
        """``uses``: the process's buffer of token uses, shared with the game service's identity
        resolver (an :class:`AccountTokens` on the same store, ``service.composition``)."""
        super().__init__(parts.accounts(games.store), uses)
        self.games = games
        parameters = password_parameters or PASSWORD_PROFILE
        self.hasher = PasswordHasher.from_parameters(parameters)
        # Verified for handles that name no account: the same work as a real verification.
        self._dummy = self.hasher.hash(secrets.token_urlsafe(16))
        self.stream_poll_seconds = stream_poll_seconds

    # -- sign-up, sign-in, sign-out, password -------------------------------------------------
    def create_account(self, handle: str, password: str, bot: bool = False) -> dict[str, Any]:
        if handles.reserved(handle):
            raise HandleReserved(
                "Handles that read as a bot (a first or last word 'bot', a bot's name) or as a name"
                " the server shows for seats of no account ('deleted player', ...) are reserved,"
                " whatever their case or look-alike letters."
            )
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

    # -- the account ------------------------------------------------------------------------------
    def me(self, identity: Identity) -> dict[str, Any]:
        record = self.store.record(identity.account_id)
        if record is None:
            raise errors.InvalidToken()
        return {
            "account": identity.account_id,
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

    def ids_of(self, names: Sequence[str]) -> list[str]:
        """The account ids ``names`` give (each a handle, compared as sign-in compares them, or an
        account id), in order, each once; 422 UNKNOWN_ACCOUNT naming every name that is neither
        (its ``unknown``), so an invitation list never holds an account nobody can be."""
        out: list[str] = []
        unknown: list[str] = []
        for name in names:
            found = self.account_id_of(name)
            if found is None and self._live_record(name) is not None:
                found = name
            if found is None:
                unknown.append(name)
            elif found not in out:
                out.append(found)
        if unknown:
            # starts with the title: a page then shows the detail alone (web/static/app.js describe)
            raise UnknownAccount(f"{UnknownAccount.title}: {', '.join(unknown)}", unknown=unknown)
        return out

    def check_seat_name(self, name: str, account_id: str | None) -> None:
        """A seat's display name may not be another account's handle (compared as handles are):
        the seat would pass for that account at the table and in the archive. SeatNameTaken."""
        owner = self.account_id_of(name)
        if owner is not None and owner != account_id:
            raise SeatNameTaken(f"{name!r} is an account's handle: sign in as it, or choose another name.")

    def delete(self, identity: Identity, password: str) -> None:
        """Needs the password again (a stolen session alone cannot destroy the account). Removes
        the account's credentials and webhooks at once, in one step (``store.account_deletion``),
        then renames its seats to a placeholder (its games stay), then removes its data and frees
        its handle. A process killed in between leaves the deletion noted: the janitor finishes it
        (``service.account_deletion.finish_deletions``)."""
        self._require(identity, ACCOUNT)
        record = self._live_record(identity.account_id)
        if record is None:
            raise errors.InvalidToken()
        try:
            self.hasher.verify(record.get("password") or self._dummy, password)
        except (VerificationError, InvalidHashError):
            raise InvalidCredentials("The password is wrong.") from None
        if not parts.account_deletion(self.games.store).begin(identity.account_id, int(time.time() * 1000)):
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
        self._online(
            identity.account_id, parts.bot_accounts(self.games.store).are_bots([identity.account_id])[0]
        )
        return stream_id

    def _online(self, account_id: str, bot: bool) -> None:
        """A bot account with a stream leased is online until the lease ends (``online_bots``)."""
        if bot:
            until = int(time.time() * 1000) + int(STREAM_LEASE_SECONDS * 1000)
            parts.bot_accounts(self.games.store).online(account_id, until)

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
        heartbeat. Ends when the lease cannot be renewed, or, with ``("revoked", None, data)``,
        at the first heartbeat after its token is revoked. The feed is read
        before the running games, so a change in between is sent, not lost (it may also show in
        ``open_games``). It reads the feed when ``feed`` (by default its own
        :meth:`follow_feed`) wakes it, at each heartbeat and at least every
        ``stream_poll_seconds`` (the fallback): an idle stream sends no command between
        heartbeats. Whoever passes ``feed`` closes it."""
        own = feed is None
        (bot,) = parts.bot_accounts(self.games.store).are_bots([identity.account_id])
        try:
            if feed is None:
                feed = self.follow_feed(identity)
            # Without Last-Event-ID: from now on (the running games say where things stand).
            last = after if after is not None else self.store.feed_last_id(identity.account_id)
            games = self.my_games(identity, None, 0)["running"]
            yield "open_games", None, orjson.dumps({"type": "open_games", "games": games})
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
                        # As a seat's streams say it (api.sse.revoked_message): the client stops.
                        yield "revoked", None, orjson.dumps({"type": "revoked", "reason": REVOKED_CREDENTIAL})
                        return
                    if not self.store.lease_stream(
                        identity.account_id,
                        stream_id,
                        int(time.time() * 1000),
                        int(STREAM_LEASE_SECONDS * 1000),
                        MOST_STREAMS,
                    ):
                        return
                    self._online(identity.account_id, bot)
                    yield None
        finally:
            if own and feed is not None:
                feed.close()
            self.store.end_stream(identity.account_id, stream_id)
            if bot:
                parts.bot_accounts(self.games.store).offline_unless_streaming(
                    identity.account_id, int(time.time() * 1000)
                )


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
