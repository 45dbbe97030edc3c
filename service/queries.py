"""The game service's queries: views and their ETags, event pages, waiting for events,
the per-seat view streams (view updates) and who may still follow a game as a seat.

Reads only: through the repository (``service.repository``), which it shares with the command path.
"""

from __future__ import annotations

import hmac
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

import orjson

from games import get_game
from games.base import FULL, SPECTATOR, Game
from service import clocks, errors
from service.cache import CachedGame
from service.identity import (
    PLAY,
    READ,
    REVOKED_CREDENTIAL,
    InsufficientScope,
    credential_of,
    is_account_token,
)
from service.live import LiveHub, Subscription
from service.repository import GameRepository, hash_token, now_ms
from store import StreamEntry

MAX_EVENTS_PAGE = 500


@dataclass
class GameView:
    """What one viewer sees at one version. ``view`` is computed only when read (a 304 skips it)."""

    game: Game[Any]
    game_id: str
    version: int
    status: str
    seat: int | None
    state: Any
    clock: dict[str, Any] | None = None
    prearranged: bool = False

    @property
    def viewer(self) -> Any:
        return _viewer(self.seat, self.status)

    @property
    def etag(self) -> str:
        who = "spectator" if self.seat is None else f"s{self.seat}"
        return f'"{self.version}.{who}"'

    @cached_property
    def view(self) -> dict[str, Any] | None:
        if self.state is None:
            return None
        return self.game.view(self.state, self.viewer)

    def to_dict(self) -> dict[str, Any]:
        data = _view_answer(self.game_id, self.version, self.status, self.seat, self.prearranged, self.view)
        if self.clock is not None:
            data["clock"] = clocks.public(self.clock, now_ms())
        return data


def _viewer(seat: int | None, status: str) -> Any:
    """Who sees a view: the seat, else the spectator, or everyone (FULL) once the game is over."""
    if seat is not None:
        return seat
    return FULL if status == "finished" else SPECTATOR


def _view_answer(
    game_id: str, version: int, status: str, seat: int | None, prearranged: bool, view: dict[str, Any] | None
) -> dict[str, Any]:
    """A view as the API answers it (without the clock, computed at send time)."""
    return {
        "game_id": game_id,
        "version": version,
        "status": status,
        "seat": seat,
        "prearranged": prearranged,
        "view": view,
    }


@dataclass(frozen=True)
class EventsPage:
    game_id: str
    version: int  # the game's current version
    status: str
    events: list[dict[str, Any]]  # [{"version": v, "event": {...}}], redacted for the viewer
    limit: int
    seat: int | None = None  # the viewer (None: spectator)

    def to_dict(self) -> dict[str, Any]:
        last = self.events[-1]["version"] if self.events else None
        return {
            "game_id": self.game_id,
            "version": self.version,
            "status": self.status,
            "seat": self.seat,
            "events": self.events,
            "next_after": last,
            "has_more": last is not None and last < self.version,
        }


class ViewUpdate(NamedTuple):
    """One message of a per-seat view stream: the viewer's view at ``version``, encoded once. A
    named tuple: built for every message of every stream, where a frozen dataclass's ``__init__``
    showed in a profile of the hot path."""

    version: int
    status: str
    body: bytes  # JSON, the same document as GET /view answers
    # Why the stream's seat may no longer see this view (``revocation``): the stream ends with
    # that reason instead of a view (``body`` is then empty).
    revoked: str | None = None


class StreamGrant(NamedTuple):
    """Who a stream follows a game as: a seat and the hash of the token that opened it (directly
    or through a stream ticket), or the spectator (``None``, ``None``). A seat's stream lasts only
    as long as that token is still the seat's (``GameService.revocation``), and, when an account
    token opened it (``credential``: ``service.identity.credential_of``), as long as that account
    token works (``GameQueries.credential_revocation``)."""

    seat: int | None
    token_hash: str | None = None
    credential: str | None = None


SPECTATOR_GRANT = StreamGrant(None, None)

# Why a seat's stream ends before the game does (``event: revoked``, docs/condottiere-protocol.md).
REVOKED_ROTATED = "token_rotated"
REVOKED_BOT = "seat_handed_to_bot"

# Encoded views kept per process, keyed by (game, version, viewer): the streams of one viewer (or of
# every spectator) share the bytes; a seat's entry is only ever served to a stream of that seat.
ENCODED_VIEWS = 4096


class CredentialCheck:
    """A stream's check of the account token it was opened with: at once when the account announces
    a revocation (:meth:`watching`: the process's live reader follows the announcements), and in
    any case once per ``every`` seconds (its heartbeat; the fallback for an announcement missed)
    whatever else it sends, so a busy game never starves it. Free for a stream opened with a seat
    token."""

    def __init__(self, queries: GameQueries, grant: StreamGrant, every: float):
        self.queries = queries
        self.grant = grant
        self.every = every
        self.next = time.monotonic() + every

    @contextmanager
    def watching(self, wake: Callable[[], None]) -> Iterator[None]:
        """While inside, an announced revocation of the account's tokens makes the check due at
        once and calls ``wake`` (which ends the stream's wait; it must never block)."""
        identity = self.queries.repository.identity
        if self.grant.credential is None or identity is None:
            yield
            return
        key, position = identity.revocation_feed(self.grant.credential)

        def announced() -> None:
            self.next = 0.0
            wake()

        with self.queries.live.follow_feed(key, position, announced):
            yield

    def bound(self, timeout: float) -> float:
        """How long the stream may wait before its next check (``timeout`` when it has none)."""
        if self.grant.credential is None:
            return timeout
        return max(0.0, min(timeout, self.next - time.monotonic()))

    def due(self) -> str | None:
        """The revocation reason when the check is due and fails, else None."""
        if self.grant.credential is None or time.monotonic() < self.next:
            return None
        self.next = time.monotonic() + self.every
        return self.queries.credential_revocation(self.grant)


class GameQueries:
    def __init__(self, repository: GameRepository, live: LiveHub):
        self.repository = repository
        self.store = repository.store
        self.cache = repository.cache
        self.live = live
        # No lock: each of get, set and popitem is one C-level step of OrderedDict, atomic under
        # the GIL and never a switch point for gevent (the lock was 1% of a web worker's CPU).
        self.encoded: OrderedDict[tuple[str, int, Any], bytes] = OrderedDict()

    def get_view(self, game_id: str, token: str | None = None) -> GameView:
        """The view of ``token``'s seat (or the spectator's without a token) at the current version."""
        entry = self.repository.current(game_id)
        seat = self.repository.seat_for_token(entry.cached, token) if token is not None else None
        cached = entry.cached
        return _game_view(cached, seat)

    def cached_seat(self, game_id: str, token: str) -> int | None:
        """The seat whose token ``token`` is in this process's copy of the game (the rate
        limits key by it; an account token costs one read of its entry), None when the game is not
        cached here or the token is none of its seats'."""
        found = self.cached_player(game_id, token)
        return None if found is None else found[0]

    def cached_player(self, game_id: str, token: str) -> tuple[int, str | None] | None:
        """:meth:`cached_seat`, and for an account token that holds ``play`` its account's id: the
        token was checked just now, so the move it sends in the same request need not read its
        entry again (``GameService.submit_command``'s ``account``)."""
        cached = self.cache.get(game_id)
        if cached is None:
            return None
        if is_account_token(token):
            # An account token acts for its seat with ``play`` (a bot's token may hold nothing
            # else) and sees it with ``read``: either makes its seat count it, as the seat's own
            # token, so its moves take the hot path too. ``play`` is asked first: a move's token has
            # it, so one read of the token's entry answers. The route it asks for, not this lookup,
            # says whether its scope is enough.
            try:
                return self.repository.account_seat(cached, token, PLAY)
            except errors.InvalidToken:
                return None
            except InsufficientScope:
                pass
            try:
                return self.repository.seat_for_token(cached, token, READ), None
            except (errors.InvalidToken, InsufficientScope):
                return None
        try:
            return self.repository.seat_for_token(cached, token), None
        except errors.InvalidToken:
            return None

    def viewer_seat(
        self, game_id: str, token: str | None, scope: str = READ
    ) -> tuple[int | None, CachedGame]:
        """Resolve a (possibly absent) token to a seat of ``game_id``; InvalidToken when wrong. An
        account token needs ``scope`` (``play`` where the answer hands out the seat's token)."""
        entry = self.repository.current(game_id)
        seat = self.repository.seat_for_token(entry.cached, token, scope) if token is not None else None
        return seat, entry.cached

    def stream_viewer(self, game_id: str, token: str | None) -> tuple[StreamGrant, CachedGame]:
        """:meth:`viewer_seat` for a stream: the grant it follows as (the seat and its token's hash)."""
        if token is None:
            return SPECTATOR_GRANT, self.repository.current(game_id).cached
        seat, cached = self.viewer_seat(game_id, token)
        # An account's token acts for the seat as the seat's token does: its stream lasts as long as
        # the seat keeps that token (the account token itself was checked just now).
        held = cached.seat_hashes.get(seat) if seat is not None and is_account_token(token) else None
        grant = StreamGrant(seat, held or hash_token(token), credential_of(token) if held else None)
        if self.revocation(cached, grant) is not None:
            raise errors.InvalidToken()  # a seat handed to a bot: its old token follows it no more
        return grant, cached

    @staticmethod
    def revocation(cached: CachedGame, grant: StreamGrant) -> str | None:
        """Why ``grant``'s seat may no longer follow ``cached`` as that seat (None: it still may).
        A finished game's log is public: nothing to revoke then."""
        seat = grant.seat
        if seat is None or cached.status != "active":
            return None
        if cached.seat_kinds.get(seat) == "bot":
            return REVOKED_BOT
        stored = cached.seat_hashes.get(seat)
        if stored is None or grant.token_hash is None or not hmac.compare_digest(stored, grant.token_hash):
            return REVOKED_ROTATED
        return None

    def credential_revocation(self, grant: StreamGrant) -> str | None:
        """Why ``grant`` may no longer follow its seat because of the account token it was opened
        with (None: opened with a seat token, or that account token still works). One read of
        the account's slot: the streams call it once per heartbeat (:class:`CredentialCheck`), so
        a revocation reaches every stream in every process within one heartbeat."""
        if grant.credential is None or self.repository.identity is None:
            return None
        if self.repository.identity.credential_alive(grant.credential):
            return None
        return REVOKED_CREDENTIAL

    def credential_check(self, grant: StreamGrant, every: float) -> CredentialCheck:
        return CredentialCheck(self, grant, every)

    def stream_revocation(self, game_id: str, grant: StreamGrant, version: int) -> str | None:
        """:meth:`revocation` as of ``version`` or later (reading Redis when the cache is behind)."""
        if grant.seat is None:
            return None
        return self.revocation(self.repository.at_least(game_id, version), grant)

    def read_events(
        self, game_id: str, token: str | None = None, after: int = 0, limit: int = 100
    ) -> EventsPage:
        """Events with version > ``after`` (at most ``limit``), redacted for the token's seat or the
        spectator; everyone sees the full log of a finished game."""
        seat, cached = self.viewer_seat(game_id, token)
        limit = max(1, min(limit, MAX_EVENTS_PAGE))
        # The events, the status and the version in one read: a move between the token check and
        # this read is on the page, and so is the version it reached.
        entries, status, version = self.store.read_events_page(game_id, after=after, limit=limit)
        if status is None:
            raise errors.GameNotFound()
        return EventsPage(
            game_id=game_id,
            version=version,
            status=status,
            events=self.redact_entries(cached.name, entries, seat, status == "finished"),
            limit=limit,
            seat=seat,
        )

    @staticmethod
    def redact_entries(
        name: str, entries: Iterable[StreamEntry], seat: int | None, finished: bool
    ) -> list[dict[str, Any]]:
        game = get_game(name)
        viewer = FULL if finished else seat
        if viewer == FULL:
            return [{"version": e.version, "event": e.event} for e in entries]
        return [{"version": e.version, "event": game.redact(e.event, viewer)} for e in entries]

    def follow(self, game_id: str, after: int) -> Subscription:
        """Subscribe to ``game_id``'s news from version ``after`` on (close the subscription)."""
        return self.live.subscribe(game_id, after)

    def wait_for_events(
        self,
        game_id: str,
        seat: int | None,
        after: int,
        timeout: float,
        subscription: Subscription,
        name: str,
    ) -> tuple[list[dict[str, Any]], str, int]:
        """Wait up to ``timeout`` seconds for events after ``after``; return them redacted for
        ``seat`` (None: spectator), with the game's status and version once they are read (if the
        game is finished by then, the whole log is public and nothing is redacted)."""
        status, version = self.repository.status_and_version(game_id, after)
        if status == "finished" and version > after:
            # A finished game's log may be compacted (no stream for the listener to read): read it
            whole = self.store.read_events(game_id, after=after, limit=MAX_EVENTS_PAGE)
            return self.redact_entries(name, whole, seat, True), status, version
        entries = subscription.wait(after, timeout)
        if entries is None:  # fell behind what the listener keeps: read the log itself
            entries = self.store.read_events(game_id, after=after, limit=MAX_EVENTS_PAGE)
        status, version = self.repository.status_and_version(game_id, max(subscription.position, after))
        return self.redact_entries(name, entries, seat, status == "finished"), status, version

    def view_updates(
        self,
        game_id: str,
        grant: StreamGrant,
        known: int | None,
        timeout: float,
        current: CachedGame | None = None,
    ) -> Iterator[ViewUpdate | None]:
        """The per-seat view stream: the viewer's view now (unless ``known`` is its version), then
        its new view after every change, until the game is finished or the grant is revoked (a
        last update with ``revoked`` set); ``None`` after ``timeout`` seconds without a change (a
        heartbeat). ``grant`` must be authenticated by the caller; ``current``: see
        :meth:`open_view_stream`."""
        subscription, first, cached = self.open_view_stream(game_id, grant, known, current=current)
        check = self.credential_check(grant, timeout)
        with subscription, check.watching(subscription.interrupt):
            if first is not None:
                yield first
            while cached.status != "finished":
                waited = subscription.wait(cached.version, check.bound(timeout))
                revoked = check.due()
                if revoked is not None:
                    yield ViewUpdate(cached.version, cached.status, b"", revoked)
                    return
                if waited == []:
                    yield None
                    continue
                cached = self.repository.at_least(game_id, subscription.position)
                update = self._view_update(cached, grant)
                yield update
                if update.revoked is not None:
                    return

    def open_view_stream(
        self,
        game_id: str,
        grant: StreamGrant,
        known: int | None,
        push: Callable[[int], None] | None = None,
        current: CachedGame | None = None,
    ) -> tuple[Subscription, ViewUpdate | None, CachedGame]:
        """The start of a view stream: a subscription (whose news the live reader also hands to
        ``push``, for a pushed stream: ``api.edge.view_push``), the viewer's view now unless ``known`` is
        its version, and the game as of that view. The caller closes the subscription.

        ``current``: the game as the caller has just confirmed it (``viewer_seat``, which
        authenticated the viewer), else it is confirmed here (one round trip). A move taken in
        between is not missed: the subscription starts from that version, and the reader reads on
        from there."""
        cached = current if current is not None else self.repository.current(game_id).cached
        subscription = self.live.subscribe(game_id, cached.version, push)
        first = None if known == cached.version else self._view_update(cached, grant)
        return subscription, first, cached

    def cached_view_update(self, game_id: str, grant: StreamGrant, version: int) -> ViewUpdate | None:
        """The viewer's view at ``version`` or later when this process holds it (no I/O: the live
        reader calls this), else None."""
        cached = self.cache.get(game_id)
        if cached is None or cached.version < version:
            return None
        return self._view_update(cached, grant)

    def view_update_at_least(self, game_id: str, grant: StreamGrant, version: int) -> ViewUpdate:
        """The viewer's view at ``version`` or later, reading Redis when the cache is behind."""
        return self._view_update(self.repository.at_least(game_id, version), grant)

    def _view_update(self, cached: CachedGame, grant: StreamGrant) -> ViewUpdate:
        seat = grant.seat
        if seat is not None:
            revoked = self.revocation(cached, grant)
            if revoked is not None:
                return ViewUpdate(cached.version, cached.status, b"", revoked)
        if cached.clock is not None:  # the public clock is computed at send time: nothing to share
            return ViewUpdate(cached.version, cached.status, orjson.dumps(_game_view(cached, seat).to_dict()))
        # A move sends every seat's stream its view: built here without a GameView.
        viewer = _viewer(seat, cached.status)
        key = (cached.game_id, cached.version, viewer)
        body = self.encoded.get(key)
        if body is None:
            state = cached.state
            view = None if state is None else get_game(cached.name).view(state, viewer)
            answer = _view_answer(
                cached.game_id, cached.version, cached.status, seat, cached.prearranged, view
            )
            body = self.remember_view(key, orjson.dumps(answer))
        return ViewUpdate(cached.version, cached.status, body)

    def remember_view(self, key: tuple[str, int, Any], body: bytes) -> bytes:
        """Keep one viewer's encoded view (game, version, viewer) for its streams; returns ``body``."""
        self.encoded[key] = body
        while len(self.encoded) > ENCODED_VIEWS:
            try:
                self.encoded.popitem(last=False)
            except KeyError:  # another thread emptied it meanwhile
                break
        return body


def _game_view(cached: CachedGame, seat: int | None) -> GameView:
    """The view of ``seat`` (None: the spectator) of a cached game at its current version."""
    return GameView(
        get_game(cached.name),
        cached.game_id,
        cached.version,
        cached.status,
        seat,
        cached.state,
        cached.clock,
        cached.prearranged,
    )
