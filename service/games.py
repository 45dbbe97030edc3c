"""Application logic of the game server: create, claim, view, move, read and follow events.

No Flask here: the API and the workers (bots, archive) call these methods directly. One
``GameService`` per process (it owns a per-process cache); build it with :meth:`GameService.from_url`.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

import orjson

from bots import levels as bot_levels
from games import game_names, get_game
from games.base import (
    ABORTED,
    COMMITMENT,
    FULL,
    SEAT_HANDED_TO_BOT,
    SEAT_TOKEN_ROTATED,
    SPECTATOR,
    Game,
    GameError,
    encode_state,
    fold,
    hook,
    public_config,
    secret_config_keys,
)
from replays import fairness
from service import clocks, errors
from service.cache import CachedGame, GameCache
from service.faults import fault_point
from service.followups import FollowUps, actions_for
from service.identity import PLAY, READ, AlreadySeated, IdentityResolver, NotSeated, is_account_token
from service.ids import is_game_id, new_game_id, new_placed_game_id
from service.live import LiveHub, Subscription
from service.signals import events_appended
from store import (
    SNAPSHOT_INTERVAL,
    ClaimResult,
    GameStore,
    StoredGame,
    StreamEntry,
    connect,
    queue_connection,
    timestamps,
)
from store.live import EventsReader

log = logging.getLogger(__name__)

SEED_BITS = 128
MAX_DECIDE_ATTEMPTS = 8
MAX_EVENTS_PAGE = 500
# A stream ticket only bridges the gap between asking for it and opening the stream (EventSource
# cannot send Authorization): half a minute covers a slow network, and it is single-use anyway.
STREAM_TICKET_TTL_SECONDS = 30
# A device link is typed or scanned by a person on another device: minutes, not seconds.
DEVICE_LINK_TTL_SECONDS = 600


def now_iso() -> str:
    return timestamps.now()


def now_ms() -> int:
    return int(time.time() * 1000)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# A fixed prefix: a token can never start with "-" (which command lines would take for an option),
# and secret scanners can recognise a leaked one.
TOKEN_PREFIX = "cst_"


def new_token() -> str:
    """32 random bytes (256 bits), URL-safe, after ``TOKEN_PREFIX``."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hidden_config(config: Mapping[str, Any], public: Mapping[str, Any]) -> dict[str, Any]:
    """The configuration's keys that ``public`` leaves out (the seed, a deck order): kept beside
    the public ones (meta ``hidden_config``) and shown once the game is finished, when the log
    (its ``game_started`` event) reveals them anyway."""
    return {k: v for k, v in config.items() if k not in public}


def summary_config(meta: Mapping[str, Any]) -> dict[str, Any]:
    """A game's configuration as its summary shows it: the public keys, and once the game is
    finished the hidden ones too (docs/condottiere-protocol.md, "What a finished game reveals")."""
    config: dict[str, Any] = _json(meta.get("config"), {})
    if meta.get("status") == "finished":
        config.update(_json(meta.get("hidden_config"), {}))
    return config


def _json(value: str | None, default: Any = None) -> Any:
    return orjson.loads(value) if value else default


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
class ClaimOutcome:
    game_id: str
    seat: int
    name: str
    kind: str
    bot: str | None
    token: str | None  # shown once; None for bot seats (only trusted workers act for them)
    started: bool
    version: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "seat": self.seat,
            "name": self.name,
            "kind": self.kind,
            "bot": self.bot,
            "token": self.token,
            "started": self.started,
            "version": self.version,
        }


@dataclass(frozen=True)
class MoveOutcome:
    """The answer to a move. ``body`` holds ``game_id`` and ``version``, and the redacted ``events``
    and the seat's ``view`` unless the caller asked for a minimal answer (and sent no idempotency
    key: a key's stored answer is always the whole one). ``view_json`` is ``body["view"]`` already
    encoded, when this process encoded it (the API sends those bytes rather than encoding again)."""

    status_code: int
    body: dict[str, Any]
    replayed: bool = False
    seat: int | None = None
    view_json: bytes | None = None


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


@dataclass
class _Entry:
    """A game as this request knows it; ``fresh`` when read from Redis during this request."""

    cached: CachedGame
    fresh: bool


class ViewUpdate(NamedTuple):
    """One message of a per-seat view stream: the viewer's view at ``version``, encoded once. A
    named tuple: built for every message of every stream, where a frozen dataclass's ``__init__``
    showed in issue 12's profile."""

    version: int
    status: str
    body: bytes  # JSON, the same document as GET /view answers
    # Why the stream's seat may no longer see this view (``revocation``): the stream ends with
    # that reason instead of a view (``body`` is then empty).
    revoked: str | None = None


class StreamGrant(NamedTuple):
    """Who a stream follows a game as: a seat and the hash of the token that opened it (directly
    or through a stream ticket), or the spectator (``None``, ``None``). A seat's stream lasts only
    as long as that token is still the seat's (``GameService.revocation``)."""

    seat: int | None
    token_hash: str | None = None


SPECTATOR_GRANT = StreamGrant(None, None)

# Events the server records beside the engine's: they change what the cache holds outside the state.
SERVER_EVENTS = frozenset({SEAT_TOKEN_ROTATED, SEAT_HANDED_TO_BOT})

# Why a seat's stream ends before the game does (``event: revoked``, docs/condottiere-protocol.md).
REVOKED_ROTATED = "token_rotated"
REVOKED_BOT = "seat_handed_to_bot"

# Encoded views kept per process, keyed by (game, version, viewer): the streams of one viewer (or of
# every spectator) share the bytes; a seat's entry is only ever served to a stream of that seat.
ENCODED_VIEWS = 4096


class GameService:
    def __init__(self, store: GameStore, cache_size: int = 1024, live_block_seconds: float = 5.0):
        self.store = store
        store.engine_names = tuple(game_names())
        self.cache = GameCache(cache_size)
        self.followups = FollowUps(self)
        self.live = LiveHub(
            EventsReader(store.redis), on_news=self._advance, block_seconds=live_block_seconds
        )
        # No lock: each of get, set and popitem is one C-level step of OrderedDict, atomic under
        # the GIL and never a switch point for gevent (the lock was 1% of a web worker's CPU).
        self._encoded: OrderedDict[tuple[str, int, Any], bytes] = OrderedDict()
        # Who an account token names (service.identity): set at start-up by whoever serves
        # accounts (create_app); None: account tokens are refused as invalid seat tokens.
        self.identity: IdentityResolver | None = None
        # Each seat's chance to win from a game's metadata (issue 32, service.ratings), set at
        # start-up by create_app; None when a seat has no rating (anonymous) or nobody serves them.
        self.predictor: Callable[[Mapping[str, str]], list[float] | None] | None = None

    @classmethod
    def from_url(
        cls,
        url: str,
        cache_size: int = 1024,
        live_block_seconds: float = 5.0,
        queue_url: str | None = None,
        **redis_kwargs: Any,
    ) -> GameService:
        """A service on the event store at ``url`` whose jobs go to RQ at ``queue_url`` (default: the
        store's own Redis when it is a plain server; on a cluster without one, anything that
        enqueues fails with ``store.QueueRedisRequired``)."""
        queue = None
        if queue_url and queue_url != url:
            socket_options = {k: v for k, v in redis_kwargs.items() if k.startswith("socket_")}
            queue = queue_connection(queue_url, **socket_options)
        return cls(
            GameStore(connect(url, **redis_kwargs), queue=queue),
            cache_size=cache_size,
            live_block_seconds=live_block_seconds,
        )

    # -- creating and joining ---------------------------------------------------------------------
    def create_game(
        self,
        name: str,
        config: Mapping[str, Any] | None = None,
        bots: Mapping[Any, str] | None = None,
        clock: Mapping[str, Any] | None = None,
        placed: Callable[[str], bool] | None = None,
    ) -> dict[str, Any]:
        """Create a game (all seats free except those given to ``bots``: {seat: level}). Draws a
        ``seed`` when the configuration has none. ``placed``, when given, is the web server's hint
        of which ids it would serve best (``service.ids.new_placed_game_id``). Returns the public
        summary."""
        try:
            game = get_game(name)
        except KeyError:
            raise errors.UnknownGame(f"No game engine named {name!r}") from None
        raw = dict(config or {})
        # A creator who fixes the shuffles (a seed or a deck order) can know every hand (issue 8:
        # a private rehearsal with the same seed deals the same cards): such a game says so,
        # publicly, from its creation on.
        prearranged = any(raw.get(key) is not None for key in secret_config_keys(game))
        if raw.get("seed") is None:
            # 128 bits, so no seed can be searched for; as a decimal string, because a JSON number
            # past 2**53 loses bits in many clients (JavaScript's).
            seed = secrets.randbits(SEED_BITS)
            raw["seed"] = str(seed) if seed > 2**53 - 1 else seed
        try:
            normalised = game.configure(raw)
            seat_count = game.seat_count(normalised)
        except GameError as err:
            raise errors.RuleRefusal(err) from None
        bot_seats = self._validate_bots(game.name, bots or {}, seat_count)
        try:
            control = clocks.control(clock)
        except clocks.ClockError as err:
            raise errors.InvalidClock(str(err)) from None
        if control is not None and hook(game, "timeout") is None:
            raise errors.NotSupported(f"{game.title} games have no timeout policy: they cannot be timed.")
        game_id = new_game_id() if placed is None else new_placed_game_id(placed)
        stamp = now_iso()
        public = public_config(game, normalised)
        meta = {
            "game": game.name,
            "title": game.title,
            "status": "open",
            "version": 0,
            "seat_count": seat_count,
            "config": public,
            "prearranged": prearranged,
            "created": stamp,
            "updated": stamp,
        }
        if normalised.get("seed") is not None:
            # Committed before anyone can see a card: the first event repeats it (docs/fairness.md).
            meta["commitment"] = fairness.commitment(normalised["seed"], game_id, prearranged)
        hidden = hidden_config(normalised, public)
        if hidden:
            meta["hidden_config"] = hidden
        if control is not None:
            meta["clock"] = clocks.new_state(control, seat_count)
        created = {"index": "open"}
        self.store.create(game_id, meta, normalised, followups=created)
        self.followups.run(game_id, created)
        for seat, level in sorted(bot_seats.items()):
            self._claim(game_id, game, normalised, seat=seat, name=f"{level} bot", bot=level)
        return self.get_summary(game_id)

    @staticmethod
    def _validate_bots(name: str, bots: Mapping[Any, str], seat_count: int) -> dict[int, str]:
        seats: dict[int, str] = {}
        levels = bot_levels(name) if bots else []
        for key, level in bots.items():
            try:
                seat = int(key)
            except (TypeError, ValueError):
                raise errors.NoSuchSeat(f"Bot seat {key!r} is not a seat number") from None
            if not 0 <= seat < seat_count or str(seat) != str(key).strip():
                raise errors.NoSuchSeat(f"Bot seat {key!r} is not a seat of this game (0..{seat_count - 1})")
            if level not in levels:
                raise errors.InvalidBot(f"No bot level {level!r} for {name}", levels=levels)
            seats[seat] = level
        return seats

    def claim_seat(
        self,
        game_id: str,
        name: str | None = None,
        seat: int | None = None,
        bot: str | None = None,
        account: str | None = None,
    ) -> ClaimOutcome:
        """Claim ``seat`` (or the lowest free one) for a human ``name`` or a ``bot`` level. The claim
        that fills the last seat starts the game (genesis events appended atomically with it).
        ``account``: the account (id) the seat is bound to (``service.identity``)."""
        meta = self._meta(game_id)
        if bot is not None:
            levels = bot_levels(meta["game"])
            if bot not in levels:
                raise errors.InvalidBot(f"No bot level {bot!r} for {meta['game']}", levels=levels)
        if meta["status"] != "open":
            raise errors.GameFull()
        if seat is not None and not 0 <= seat < int(meta["seat_count"]):
            raise errors.NoSuchSeat(f"Seats of this game are 0..{int(meta['seat_count']) - 1}")
        game = get_game(meta["game"])
        display = name if name is not None else f"{bot} bot"
        return self._claim(
            game_id, game, None, seat=seat, name=display, bot=bot, meta=meta, account=account or ""
        )

    def _claim(
        self,
        game_id: str,
        game: Game[Any],
        config: Mapping[str, Any] | None,
        *,
        seat: int | None,
        name: str,
        bot: str | None,
        meta: Mapping[str, str] | None = None,
        account: str = "",
    ) -> ClaimOutcome:
        """``meta``: the game's metadata as the caller just read it (else read here); ``config``:
        its full configuration (None: read here, when this claim may start the game).

        A claim that leaves other seats free, by ``meta``, is sent without the game's start: the
        genesis events, their snapshot and the start's follow-ups are computed, sent and recorded
        by the last claim only (issue 12: the first three claims of a four-seat game went from
        0.83-1.4 ms to 0.57-0.63 ms of web CPU each, one round trip fewer). Should other claims
        have come in since ``meta`` was read, the script refuses the short claim untouched and it
        is sent again with the start."""
        token = new_token()  # bots get one too, thrown away: nobody can act for them over HTTP
        claimant: dict[str, Any] = {  # who claims: the same in both claims below
            "seat": seat,
            "name": name,
            "token_hash": hash_token(token),
            "kind": "bot" if bot else "human",
            "bot": bot,
            "account": account,
        }
        # An account's claim tells the account's feed (the 'accounts' follow-up, service.accounts).
        own = {"accounts": 0} if account else {}
        if meta is not None:
            count = int(meta["seat_count"])
            if sum(1 for s in range(count) if f"kind:{s}" in meta) + 1 < count:
                result = self.store.claim(game_id, **claimant, now=now_iso(), followups_on_start=own)
                if result.outcome != "need_start":
                    claimed = self._claimed(game_id, result, seat, name, bot, token)
                    if own:
                        self.followups.run(game_id, own)
                    return claimed
                meta = None  # stale: the clock below needs every seat's kind as it is now
        if config is None:
            config = self.store.full_config(game_id)
            if config is None:  # written with the game's metadata: absent only if the game is gone
                raise errors.GameNotFound()
        genesis = game.start(dict(config))
        state = fold(game, genesis)
        stamp = now_iso()
        meta_on_start = self._meta_fields(game, state, stamp, started=True)
        if meta is None:
            meta = self.store.meta(game_id) or {}
        committed = _json(meta.get("commitment"))
        if committed is not None and genesis:
            # The commitment published at creation opens the log (games.base.COMMITMENT).
            genesis[0] = {**genesis[0], COMMITMENT: committed}
        clock = _json(meta.get("clock"))
        if clock is not None:
            # Only read when this claim fills the last seat: then every other seat's kind is known
            # and this claim takes the given seat or the only free one.
            count = int(meta["seat_count"])
            kinds = {s: meta.get(f"kind:{s}") for s in range(count)}
            mine = seat if seat is not None else next((s for s, k in kinds.items() if k is None), None)
            if mine is not None:  # else no seat is free: the claim script refuses it below
                kinds[mine] = "bot" if bot else "human"
            humans = [s for s, k in kinds.items() if k == "human"]
            meta_on_start["clock"] = clocks.advance(clock, now_ms(), game.awaiting(state), humans)
        start_actions = actions_for(game, state, len(genesis), True, ())
        if not game.is_over(state):
            # Which seats are bots is known only once all are claimed: "bot" is recorded on every
            # start and its handler finds out (done at once when a human is awaited).
            start_actions["bot"] = len(genesis)
        result = self.store.claim(
            game_id,
            **claimant,
            now=stamp,
            genesis=genesis,
            snapshot=_snapshot(game, len(genesis), state),
            meta_on_start=meta_on_start,
            followups_on_start=start_actions,
        )
        claimed = self._claimed(game_id, result, seat, name, bot, token)
        if claimed.started:
            fault_point("after_start")
            loaded = self._reload(game_id)
            if result.bound:  # the script recorded it with the start's version
                start_actions["accounts"] = result.version
            self.followups.run(game_id, start_actions)
            self._schedule_clock(loaded.cached)
            self._notify(loaded.cached, genesis)
        return claimed

    @staticmethod
    def _claimed(
        game_id: str, result: ClaimResult, seat: int | None, name: str, bot: str | None, token: str
    ) -> ClaimOutcome:
        """The outcome of a claim the script answered (its refusals raised)."""
        if result.outcome == "not_found":
            raise errors.GameNotFound()
        if result.outcome in ("not_open", "full"):
            raise errors.GameFull()
        if result.outcome == "taken":
            raise errors.SeatTaken(f"Seat {seat} is already taken")
        if result.outcome == "no_such_seat":
            raise errors.NoSuchSeat()
        if result.outcome == "already_seated":
            raise AlreadySeated()
        assert result.outcome in ("claimed", "started"), f"unexpected claim outcome {result.outcome}"
        assert result.seat is not None, "the claim script returns the seat with 'claimed' and 'started'"
        return ClaimOutcome(
            game_id=game_id,
            seat=result.seat,
            name=name,
            kind="bot" if bot else "human",
            bot=bot,
            token=None if bot else token,
            started=result.outcome == "started",
            version=result.version,
        )

    @staticmethod
    def _meta_fields(game: Game[Any], state: Any, stamp: str, started: bool = False) -> dict[str, Any]:
        over = game.is_over(state)
        fields: dict[str, Any] = {
            "status": "finished" if over else "active",
            "updated": stamp,
            "awaiting": game.awaiting(state),
        }
        if started:
            fields["started"] = stamp
        if over:
            fields["finished"] = stamp
            result = game.result(state)
            if result is not None and result.get("reason") == ABORTED:
                result = {**result, "rated": False}  # no rating or statistic may count it
            fields["result"] = result
        return fields

    # -- reading ----------------------------------------------------------------------------------
    def get_summary(self, game_id: str) -> dict[str, Any]:
        meta = self._meta(game_id)
        summary = self._summary(game_id, meta)
        if self.predictor is not None and meta["status"] != "finished":
            chances = self.predictor(meta)
            if chances is not None:
                summary["predict_win"] = chances
        return summary

    @staticmethod
    def _summary(game_id: str, meta: Mapping[str, str]) -> dict[str, Any]:
        count = int(meta["seat_count"])
        seats = []
        for seat in range(count):
            kind = meta.get(f"kind:{seat}")
            seats.append(
                {
                    "seat": seat,
                    "claimed": kind is not None,
                    "name": meta.get(f"name:{seat}"),
                    "kind": kind,
                    "bot": meta.get(f"bot:{seat}") or None,
                }
            )
        return {
            "id": game_id,
            "game": meta["game"],
            "title": meta.get("title", meta["game"]),
            "status": meta["status"],
            "version": int(meta.get("version", 0)),
            "seat_count": count,
            "seats": seats,
            "config": summary_config(meta),
            "prearranged": _json(meta.get("prearranged"), False),
            "commitment": _json(meta.get("commitment")),
            "awaiting": _json(meta.get("awaiting"), []),
            "result": _json(meta.get("result")),
            "created": meta.get("created"),
            "updated": meta.get("updated"),
            "started": meta.get("started"),
            "finished": meta.get("finished"),
            "clock": clocks.public(_json(meta.get("clock")), now_ms()),
        }

    def list_games(
        self, status: str | None = None, game: str | None = None, cursor: str | None = None, limit: int = 20
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Summaries, newest first, and the cursor of the next page (None at the end)."""
        ids = self.store.list_ids(status=status, name=game, before=cursor, limit=limit + 1)
        more = len(ids) > limit
        ids = ids[:limit]
        summaries = []
        for game_id, meta in zip(ids, self.store.metas(ids), strict=True):
            # The index is updated after the per-game write: a crash in between leaves it stale,
            # so the game's own metadata has the last word.
            if meta is None or (status and meta["status"] != status):
                continue
            summaries.append(self._summary(game_id, meta))
        return summaries, (ids[-1] if more and ids else None)

    def get_view(self, game_id: str, token: str | None = None) -> GameView:
        """The view of ``token``'s seat (or the spectator's without a token) at the current version."""
        entry = self._current(game_id)
        seat = self._seat_for_token(entry.cached, token) if token is not None else None
        cached = entry.cached
        return _game_view(cached, seat)

    def cached_seat(self, game_id: str, token: str) -> int | None:
        """The seat whose token ``token`` is in this process's copy of the game (no I/O; the rate
        limits key by it), None when the game is not cached here or the token is none of its seats'."""
        cached = self.cache.get(game_id)
        if cached is None:
            return None
        try:
            return self._seat_for_token(cached, token)
        except errors.InvalidToken:
            return None

    def viewer_seat(self, game_id: str, token: str | None) -> tuple[int | None, CachedGame]:
        """Resolve a (possibly absent) token to a seat of ``game_id``; InvalidToken when wrong."""
        entry = self._current(game_id)
        seat = self._seat_for_token(entry.cached, token) if token is not None else None
        return seat, entry.cached

    def stream_viewer(self, game_id: str, token: str | None) -> tuple[StreamGrant, CachedGame]:
        """:meth:`viewer_seat` for a stream: the grant it follows as (the seat and its token's hash)."""
        if token is None:
            return SPECTATOR_GRANT, self._current(game_id).cached
        seat, cached = self.viewer_seat(game_id, token)
        # An account's token acts for the seat as the seat's token does: its stream lasts as long as
        # the seat keeps that token (the account token itself was checked just now).
        held = cached.seat_hashes.get(seat) if seat is not None and is_account_token(token) else None
        grant = StreamGrant(seat, held or hash_token(token))
        if self.revocation(cached, grant) is not None:
            raise errors.InvalidToken()  # a seat handed to a bot: its old token follows it no more
        return grant, cached

    def issue_stream_ticket(self, game_id: str, token: str) -> tuple[str, int, int]:
        """A short-lived, single-use ticket that opens ``game_id``'s stream as ``token``'s seat, for
        clients that cannot send a header (the browser's EventSource). Only its hash is stored,
        with the hash of ``token``: a ticket taken before a rotation opens nothing after it.
        Returns (ticket, seat, seconds it stays valid)."""
        grant, _ = self.stream_viewer(game_id, token)
        assert grant.seat is not None and grant.token_hash is not None
        ticket = new_token()
        self.store.put_stream_ticket(
            game_id, hash_token(ticket), grant.seat, grant.token_hash, STREAM_TICKET_TTL_SECONDS
        )
        return ticket, grant.seat, STREAM_TICKET_TTL_SECONDS

    def redeem_stream_ticket(self, game_id: str, ticket: str) -> tuple[StreamGrant, CachedGame]:
        """The grant a ticket was issued for, consuming it; InvalidTicket when it is unknown,
        expired, already used, issued for another game, or taken with a token the seat no longer
        has (rotated since, or the seat handed to a bot)."""
        entry = self._current(game_id)  # GameNotFound first: an unknown game is a 404, as elsewhere
        taken = self.store.take_stream_ticket(game_id, hash_token(ticket))
        if taken is None:
            raise errors.InvalidTicket()
        grant = StreamGrant(*taken)
        if self.revocation(entry.cached, grant) is not None:
            raise errors.InvalidTicket()
        return grant, entry.cached

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

    def stream_revocation(self, game_id: str, grant: StreamGrant, version: int) -> str | None:
        """:meth:`revocation` as of ``version`` or later (reading Redis when the cache is behind)."""
        if grant.seat is None:
            return None
        return self.revocation(self._at_least(game_id, version), grant)

    def issue_device_link(self, game_id: str, token: str) -> tuple[str, int, int]:
        """A one-time code that hands ``token``'s seat to another device (a browser that does not
        hold the token). Only its hash is stored; it is worth nothing once used or after
        DEVICE_LINK_TTL_SECONDS, or once the token that made it is replaced. Returns (code, seat,
        seconds it stays valid)."""
        cached = self._current(game_id).cached
        seat = self._seat_for_token(cached, token)
        code = new_token()
        self.store.put_device_link(
            game_id, hash_token(code), seat, cached.seat_hashes[seat], DEVICE_LINK_TTL_SECONDS
        )
        return code, seat, DEVICE_LINK_TTL_SECONDS

    def redeem_device_link(self, game_id: str, code: str) -> dict[str, Any]:
        """Consume a device link: its seat gets a new token (returned, shown only here) and the
        token of the device that made the link stops working, so a seat is played from one place
        at a time and no token ever travels in a link (as :meth:`rotate_token`, logged alike)."""
        self._current(game_id)  # GameNotFound first: an unknown game is a 404, as elsewhere
        taken = self.store.take_device_link(game_id, hash_token(code))
        if taken is None:
            raise errors.InvalidDeviceLink()
        seat, token_hash = taken
        # The rotation swaps the hash only if it is still the one that made the link: a link made
        # before the seat's token was replaced (another link, a rotation) moves nothing.
        try:
            return self._rotate(game_id, lambda cached: (seat, token_hash))
        except errors.InvalidToken:
            raise errors.InvalidDeviceLink() from None

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
        status, version = self._status_and_version(game_id, after)
        if status == "finished" and version > after:
            # A finished game's log may be compacted (no stream for the listener to read): read it
            whole = self.store.read_events(game_id, after=after, limit=MAX_EVENTS_PAGE)
            return self.redact_entries(name, whole, seat, True), status, version
        entries = subscription.wait(after, timeout)
        if entries is None:  # fell behind what the listener keeps: read the log itself
            entries = self.store.read_events(game_id, after=after, limit=MAX_EVENTS_PAGE)
        status, version = self._status_and_version(game_id, max(subscription.position, after))
        return self.redact_entries(name, entries, seat, status == "finished"), status, version

    def _status_and_version(self, game_id: str, at_least: int) -> tuple[str, int]:
        """From the cache when it is at least at ``at_least`` (the listener keeps it current), else
        from Redis."""
        cached = self.cache.get(game_id)
        if cached is not None and cached.version >= at_least:
            return cached.status, cached.version
        current = self.store.status_and_version(game_id)
        if current is None:
            raise errors.GameNotFound()
        return current

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
        with subscription:
            if first is not None:
                yield first
            while cached.status != "finished":
                if subscription.wait(cached.version, timeout) == []:
                    yield None
                    continue
                cached = self._at_least(game_id, subscription.position)
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
        ``push``, for a pushed stream: ``api.view_push``), the viewer's view now unless ``known`` is
        its version, and the game as of that view. The caller closes the subscription.

        ``current``: the game as the caller has just confirmed it (``viewer_seat``, which
        authenticated the viewer), else it is confirmed here (one round trip). A move taken in
        between is not missed: the subscription starts from that version, and the reader reads on
        from there."""
        cached = current if current is not None else self._current(game_id).cached
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
        return self._view_update(self._at_least(game_id, version), grant)

    def _at_least(self, game_id: str, version: int) -> CachedGame:
        cached = self.cache.get(game_id)
        if cached is not None and cached.version >= version:
            return cached
        return self._reload(game_id).cached

    def _view_update(self, cached: CachedGame, grant: StreamGrant) -> ViewUpdate:
        seat = grant.seat
        if seat is not None:
            revoked = self.revocation(cached, grant)
            if revoked is not None:
                return ViewUpdate(cached.version, cached.status, b"", revoked)
        if cached.clock is not None:  # the public clock is computed at send time: nothing to share
            return ViewUpdate(cached.version, cached.status, orjson.dumps(_game_view(cached, seat).to_dict()))
        # A move sends every seat's stream its view: built here without a GameView (issue 12).
        viewer = _viewer(seat, cached.status)
        key = (cached.game_id, cached.version, viewer)
        body = self._encoded.get(key)
        if body is None:
            state = cached.state
            view = None if state is None else get_game(cached.name).view(state, viewer)
            answer = _view_answer(
                cached.game_id, cached.version, cached.status, seat, cached.prearranged, view
            )
            body = self._remember_view(key, orjson.dumps(answer))
        return ViewUpdate(cached.version, cached.status, body)

    def _remember_view(self, key: tuple[str, int, Any], body: bytes) -> bytes:
        """Keep one viewer's encoded view (game, version, viewer) for its streams; returns ``body``."""
        self._encoded[key] = body
        while len(self._encoded) > ENCODED_VIEWS:
            try:
                self._encoded.popitem(last=False)
            except KeyError:  # another thread emptied it meanwhile
                break
        return body

    def _advance(self, game_id: str, entries: list[StreamEntry]) -> None:
        """Bring the cached game up to the events the live listener read, once per process, so the
        streams of this game need no Redis read. Folding the events is enough for the engine state;
        what the server keeps beside it (seat token hashes, seat kinds, the clock) changes with a
        token rotation, a handover to a bot or any move of a timed game, and is then read again
        (one load here rather than one per stream). A gap (or an uncached game) is left to a reload."""
        cached = self.cache.get(game_id)
        if cached is None or not entries or entries[-1].version <= cached.version:
            return
        news = [entry.event for entry in entries if entry.version > cached.version]
        if entries[-1].version - cached.version != len(news):
            return
        if cached.clock is not None or any(event.get("type") in SERVER_EVENTS for event in news):
            self.cache.drop(game_id)  # never serve the old token hashes, kinds or clock
            self._reload(game_id)
            return
        game = get_game(cached.name)
        state = fold(game, news, cached.state)
        self.cache.put(
            CachedGame(
                game_id=game_id,
                name=cached.name,
                version=entries[-1].version,
                status="finished" if game.is_over(state) else "active",
                state=state,
                seat_hashes=cached.seat_hashes,
                seat_kinds=cached.seat_kinds,
                bots=cached.bots,
                clock=None,
                prearranged=cached.prearranged,
                seat_accounts=cached.seat_accounts,
            )
        )

    def _name_of(self, game_id: str) -> str:
        cached = self.cache.get(game_id)
        if cached is not None:
            return cached.name
        return self._meta(game_id)["game"]

    # -- moving -----------------------------------------------------------------------------------
    def submit_command(
        self,
        game_id: str,
        token: str | None,
        command: Mapping[str, Any],
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        minimal: bool = False,
    ) -> MoveOutcome:
        """Decide ``command`` for the seat of ``token`` and append its events atomically.

        With ``expected_version`` the move applies only at that version (else VersionConflict with
        the current one); without it, a stale cache is refreshed from the script's answer and the
        command re-decided. A retried ``idempotency_key`` returns the first answer unchanged.
        ``minimal``: the caller follows its view stream and wants only the new version, so the
        answer's events and view are not computed (unless a key needs the whole answer stored)."""

        def resolve(cached: CachedGame) -> tuple[int, str]:
            if token is None:
                raise errors.InvalidToken()
            seat = self._seat_for_token(cached, token, PLAY)
            return seat, cached.seat_hashes[seat]

        return self._submit(game_id, resolve, command, expected_version, idempotency_key, minimal=minimal)

    def _resolve_token(self, token: str | None) -> Callable[[CachedGame], tuple[int, str]]:
        def resolve(cached: CachedGame) -> tuple[int, str]:
            if token is None:
                raise errors.InvalidToken()
            seat = self._seat_for_token(cached, token, PLAY)
            return seat, cached.seat_hashes[seat]

        return resolve

    def resign(self, game_id: str, token: str | None) -> MoveOutcome:
        """The token's seat leaves the game for good; the engine's ``resign`` hook says what
        follows (``games.base.SeatHooks``)."""
        return self._seat_action(game_id, token, "resign")

    def abort(self, game_id: str, token: str | None) -> MoveOutcome:
        """End the game with no result while the engine allows it (``SeatHooks.abort``)."""
        return self._seat_action(game_id, token, "abort")

    def _seat_action(self, game_id: str, token: str | None, name: str) -> MoveOutcome:
        game = get_game(self._name_of(game_id))
        action = hook(game, name)
        if action is None:
            raise errors.NotSupported(f"{game.title} games cannot {name}.")
        return self._submit(
            game_id,
            self._resolve_token(token),
            {"type": name},
            None,
            None,
            decide=lambda s, seat: action(s, seat),
        )

    def rotate_token(self, game_id: str, token: str | None) -> dict[str, Any]:
        """Give the token's seat a new token; the old one stops working at once (one atomic script
        swaps the hash and records ``seat_token_rotated`` in the log)."""
        return self._rotate(game_id, self._resolve_token(token))

    def _rotate(self, game_id: str, resolve: Callable[[CachedGame], tuple[int, str]]) -> dict[str, Any]:
        entry = self._entry(game_id)
        if entry.cached.status == "open":
            resolve(self._reload(game_id).cached)
            raise errors.GameNotStarted()
        for _ in range(MAX_DECIDE_ATTEMPTS):
            cached = entry.cached
            try:
                seat, token_hash = resolve(cached)
            except errors.InvalidToken:
                if entry.fresh:
                    raise
                entry = self._reload(game_id)
                continue
            if cached.status != "active":
                raise errors.RuleRefusal(GameError("GAME_OVER", "The game is over."))
            game = get_game(cached.name)
            event = {"type": SEAT_TOKEN_ROTATED, "v": 1, "seat": seat}
            state = game.evolve(cached.state, event)
            version = cached.version + 1
            fresh_token = new_token()
            result = self.store.rotate_token(
                game_id,
                seat=seat,
                token_hash=token_hash,
                new_token_hash=hash_token(fresh_token),
                expected_version=cached.version,
                events=[event],
                snapshot=_snapshot(game, version, state),
                meta=self._meta_fields(game, state, now_iso()),
            )
            if result.outcome == "ok":
                hashes = {**cached.seat_hashes, seat: hash_token(fresh_token)}
                new = CachedGame(
                    game_id=game_id,
                    name=cached.name,
                    version=version,
                    status=cached.status,
                    state=state,
                    seat_hashes=hashes,
                    seat_kinds=cached.seat_kinds,
                    bots=cached.bots,
                    clock=cached.clock,
                    prearranged=cached.prearranged,
                    seat_accounts=cached.seat_accounts,
                )
                self.cache.put(new)
                self.live.deliver_local(game_id, cached.version, [event])  # its streams end now
                self._notify(new, [event])
                return {"game_id": game_id, "seat": seat, "token": fresh_token, "version": version}
            if result.outcome == "bad_token":
                self.cache.drop(game_id)
                raise errors.InvalidToken()
            entry = self._reload(game_id)  # conflict or finished meanwhile: decide again
        raise errors.Busy()

    def submit_as_seat(
        self,
        game_id: str,
        seat: int,
        command: Mapping[str, Any],
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> MoveOutcome:
        """For trusted in-process callers (bot workers): act for a *bot* seat without its token."""

        def resolve(cached: CachedGame) -> tuple[int, str]:
            if cached.seat_kinds.get(seat) != "bot":
                raise errors.NotABotSeat()
            return seat, ""

        return self._submit(game_id, resolve, command, expected_version, idempotency_key)

    def _submit(
        self,
        game_id: str,
        resolve: Callable[[CachedGame], tuple[int, str]],
        command: Mapping[str, Any],
        expected: int | None,
        idempotency_key: str | None,
        decide: Callable[[Any, int], list[dict[str, Any]]] | None = None,
        timed_out: bool = False,
        minimal: bool = False,
    ) -> MoveOutcome:
        entry = self._entry(game_id)
        if entry.cached.status == "open":
            resolve_open = self._reload(game_id)  # tokens of an open game are not cached
            resolve(resolve_open.cached)
            raise errors.GameNotStarted()
        try:
            try:
                seat, token_hash = resolve(entry.cached)
            except errors.InvalidToken:
                if entry.fresh:
                    raise
                # The token may be newer than this process's copy (rotated elsewhere): read again.
                entry = self._reload(game_id)
                seat, token_hash = resolve(entry.cached)
        except errors.SeatTokensExpired:
            # A move for a game that ended long ago: what it would have been told with its token
            if idempotency_key:
                raise errors.RetryAfterFinish(entry.cached.version) from None
            raise errors.RuleRefusal(GameError("GAME_OVER", "The game is over.")) from None
        idem_field = f"{seat}:{idempotency_key}" if idempotency_key else ""
        # Only a key's retry is ever compared with the first request: without a key, nothing to hash.
        fingerprint = (
            hashlib.sha256(
                orjson.dumps({"command": command, "expected_version": expected}, option=orjson.OPT_SORT_KEYS)
            ).hexdigest()
            if idem_field
            else ""
        )
        game = get_game(entry.cached.name)
        # The engine's decide evolves its events anyway: take the state it reached (games.base.DecideHooks).
        decide_and_evolve = hook(game, "decide_and_evolve") if decide is None else None
        whole_answer = not minimal or bool(idem_field)

        for _ in range(MAX_DECIDE_ATTEMPTS):
            cached = entry.cached
            if expected is not None and expected != cached.version:
                if not entry.fresh:
                    entry = self._reload(game_id)
                    continue
                replayed = self._replay(game_id, idem_field, fingerprint)
                if replayed:
                    return replayed
                if idem_field and cached.status == "finished":
                    raise errors.RetryAfterFinish(cached.version)
                raise errors.VersionConflict(cached.version)
            try:
                if decide_and_evolve is not None:
                    events, state = decide_and_evolve(cached.state, seat, dict(command))
                elif decide is not None:
                    events = decide(cached.state, seat)
                    state = fold(game, events, cached.state)
                else:
                    events = game.decide(cached.state, seat, dict(command))
                    state = fold(game, events, cached.state)
            except GameError as err:
                # A refusal decided on a cached state may be stale: only a fresh one is final.
                if not entry.fresh:
                    entry = self._reload(game_id)
                    continue
                replayed = self._replay(game_id, idem_field, fingerprint)
                if replayed:
                    return replayed
                if idem_field and cached.status == "finished":
                    raise errors.RetryAfterFinish(cached.version) from None
                raise errors.RuleRefusal(err) from None
            kinds, bots, clock = cached.seat_kinds, cached.bots, None
            if cached.clock is not None:
                kinds, bots, clock, handover = self._next_clock(game, cached, state, seat, timed_out)
                if handover is not None:
                    events = [*events, handover]
                    state = game.evolve(state, handover)
            version = cached.version + len(events)
            stamp = now_iso()
            meta = self._meta_fields(game, state, stamp)
            if clock is not None:
                meta["clock"] = clock
                if kinds is not cached.seat_kinds:
                    meta[f"kind:{seat}"], meta[f"bot:{seat}"] = "bot", bots[seat]
            new = CachedGame(
                game_id=game_id,
                name=cached.name,
                version=version,
                status=meta["status"],
                state=state,
                seat_hashes=cached.seat_hashes,
                seat_kinds=kinds,
                bots=bots,
                clock=clock,
                prearranged=cached.prearranged,
                seat_accounts=cached.seat_accounts,
            )
            body: dict[str, Any] = {"game_id": game_id, "version": version}
            if whole_answer:
                body["events"] = [
                    {"version": cached.version + i + 1, "event": game.redact(event, seat)}
                    for i, event in enumerate(events)
                ]
                body["view"] = GameView(
                    game, game_id, version, new.status, seat, state, clock, new.prearranged
                ).to_dict()
            followups = actions_for(game, state, version, new.status != cached.status, bots)
            if cached.seat_accounts and (new.status != cached.status or _turn_moved(cached, game, meta)):
                followups["accounts"] = version  # an account's turn or game's end: its feed says so
            # Rewritten at every change of status and when the change crosses a multiple of the
            # interval; in between, the stored snapshot stays behind and a load folds the events
            # after it (store.scripts.SNAPSHOT_INTERVAL).
            snapshot_due = (
                new.status != cached.status
                or version // SNAPSHOT_INTERVAL != cached.version // SNAPSHOT_INTERVAL
            )
            result = self.store.append(
                game_id,
                expected_version=cached.version,
                events=events,
                snapshot=_snapshot(game, version, state) if snapshot_due else None,
                meta=meta,
                seat=seat if token_hash else None,
                token_hash=token_hash,
                idempotency_field=idem_field,
                fingerprint=fingerprint,
                response={"status": 200, "body": body} if idem_field else None,
                followups=followups,
            )
            if result.outcome == "ok":
                self.cache.put(new)
                fault_point("after_commit")
                self.live.deliver_local(game_id, cached.version, events)
                if followups:
                    self.followups.run(game_id, followups)
                self._schedule_clock(new)
                self._notify(new, events)
                view_json = None
                if "view" in body and clock is None:
                    # The seat's own view stream sends these very bytes (a timed view's clock is
                    # computed at each send: nothing to share).
                    view_json = self._remember_view((game_id, version, seat), orjson.dumps(body["view"]))
                return MoveOutcome(200, body, seat=seat, view_json=view_json)
            if result.outcome == "replay":
                stored = result.response
                assert stored is not None, "the append script returns the stored response with 'replay'"
                return MoveOutcome(stored["status"], stored["body"], replayed=True, seat=seat)
            if result.outcome == "idem_mismatch":
                raise errors.IdempotencyKeyReused()
            if result.outcome == "bad_token":
                self.cache.drop(game_id)
                raise errors.InvalidToken()
            if result.outcome == "not_found":
                self.cache.drop(game_id)
                raise errors.GameNotFound()
            if result.outcome == "conflict" and expected is not None:
                raise errors.VersionConflict(result.version)
            if result.outcome == "conflict" and result.snapshot is not None and cached.clock is None:
                current = self._from_snapshot(cached, game, result.snapshot, result.tail)
                if current.version == result.version:
                    entry = _Entry(current, fresh=True)
                    self.cache.put(current)
                    continue
            # not_active (finished meanwhile), a conflict whose snapshot and events do not reach the
            # current version, or a timed game (its clock is in the metadata, not in the snapshot):
            # read everything again.
            entry = self._reload(game_id)
        raise errors.Busy()

    # -- clocks -----------------------------------------------------------------------------------
    @staticmethod
    def _next_clock(
        game: Game[Any], cached: CachedGame, state: Any, seat: int, timed_out: bool
    ) -> tuple[dict[int, str], dict[int, str], dict[str, Any], dict[str, Any] | None]:
        """The seat kinds, bots and clock after a change by ``seat`` (a move, or its timeout), and
        the record of its handover to the bot when this timeout is one too many."""
        assert cached.clock is not None
        now = now_ms()
        kinds, bots = cached.seat_kinds, cached.bots
        awaiting = [] if game.is_over(state) else game.awaiting(state)
        humans = [s for s, kind in kinds.items() if kind == "human"]
        acted, late = (None, seat) if timed_out else (seat, None)
        clock = clocks.advance(cached.clock, now, awaiting, humans, acted=acted, timed_out=late)
        limit = int(cached.clock["control"]["timeouts_to_bot"])
        if not timed_out or game.is_over(state) or clock["timeouts"][seat] < limit:
            return kinds, bots, clock, None
        level = clocks.TIMEOUT_BOT_LEVEL
        kinds = {**kinds, seat: "bot"}
        bots = {**bots, seat: level}
        humans = [s for s in humans if s != seat]
        clock = clocks.advance(cached.clock, now, awaiting, humans, timed_out=seat)
        handover = {"type": SEAT_HANDED_TO_BOT, "v": 1, "seat": seat, "level": level}
        return kinds, bots, clock, handover

    def _schedule_clock(self, cached: CachedGame) -> None:
        """Tell the enforcers when this game's next deadline falls (after the append that set it: a
        crash in between is repaired by :meth:`rescan_clocks`)."""
        if cached.clock is None:
            return
        deadline = clocks.next_deadline(cached.clock) if cached.status == "active" else None
        self.store.schedule_clock(cached.game_id, deadline)

    def enforce_clock(self, game_id: str, now: int | None = None) -> list[dict[str, Any]]:
        """Apply the timeout of the first human seat past its deadline (the engine's ``timeout``
        hook), at the version the deadline belongs to. Returns the timeouts applied (0 or 1; a
        further overdue seat is due again at once)."""
        now = now_ms() if now is None else now
        entry = self._reload(game_id)
        cached = entry.cached
        if cached.status != "active" or cached.clock is None:
            self.store.schedule_clock(game_id, None)
            return []
        late = [s for s in clocks.overdue(cached.clock, now) if cached.seat_kinds.get(s) == "human"]
        if not late:
            self.store.schedule_clock(game_id, clocks.next_deadline(cached.clock))
            return []
        seat = late[0]
        game = get_game(cached.name)
        action = hook(game, "timeout")
        if action is None:  # timed games are refused at creation for such engines
            self.store.schedule_clock(game_id, None)
            return []
        try:
            outcome = self._submit(
                game_id,
                lambda _cached: (seat, ""),
                {"type": "timeout", "seat": seat},
                cached.version,
                None,
                decide=lambda state, who: action(state, who),
                timed_out=True,
            )
        except errors.VersionConflict:
            return []  # the seat (or another) moved meanwhile: the new version has its own deadlines
        return [{"game_id": game_id, "seat": seat, "version": outcome.body["version"]}]

    def clock_of(self, game_id: str) -> dict[str, Any] | None:
        """The public clock of a timed game now (None for an untimed one)."""
        return clocks.public(self.store.clock(game_id), now_ms())

    def rescan_clocks(self, page: int = 500) -> int:
        """Put every active timed game's next deadline into the enforcers' due set (never later than
        one already there): repairs a process that died between an append and its scheduling."""
        scheduled = 0
        cursor = None
        while True:
            ids = self.store.list_ids(status="active", before=cursor, limit=page)
            for game_id, clock in zip(ids, self.store.clocks(ids), strict=True):
                deadline = clocks.next_deadline(clock)
                if deadline is not None:
                    self.store.schedule_clock(game_id, deadline, only_earlier=True)
                    scheduled += 1
            if len(ids) < page:
                return scheduled
            cursor = ids[-1]

    def _replay(self, game_id: str, idem_field: str, fingerprint: str) -> MoveOutcome | None:
        if not idem_field:
            return None
        seat = int(idem_field.partition(":")[0])
        stored = self.store.get_idempotent(game_id, idem_field)
        if stored is None:
            return None
        if stored[0] != fingerprint:
            raise errors.IdempotencyKeyReused()
        return MoveOutcome(stored[1]["status"], stored[1]["body"], replayed=True, seat=seat)

    def _notify(self, cached: CachedGame, events: list[dict[str, Any]]) -> None:
        game = get_game(cached.name)
        try:
            events_appended.send(
                self,
                game_id=cached.game_id,
                game=cached.name,
                version=cached.version,
                events=events,
                state=cached.state,
                finished=cached.status == "finished",
                awaiting=game.awaiting(cached.state),
                seat_kinds=dict(cached.seat_kinds),
                bots=dict(cached.bots),
            )
        except Exception:  # noqa: BLE001 - the append is committed; a receiver must not undo the answer
            log.exception("events_appended receiver failed for game %s v%s", cached.game_id, cached.version)

    # -- loading ----------------------------------------------------------------------------------
    def _meta(self, game_id: str) -> dict[str, str]:
        if not is_game_id(game_id):
            raise errors.GameNotFound()
        meta = self.store.meta(game_id)
        if meta is None:
            raise errors.GameNotFound()
        return meta

    def _entry(self, game_id: str) -> _Entry:
        """The cached game (maybe stale) or a fresh load."""
        cached = self.cache.get(game_id)
        if cached is not None:
            return _Entry(cached, fresh=False)
        return self._reload(game_id)

    def _current(self, game_id: str) -> _Entry:
        """The game at its current version: the cache when one HMGET confirms it, else a load."""
        cached = self.cache.get(game_id)
        if cached is not None:
            current = self.store.status_and_version(game_id)
            if current is None:
                self.cache.drop(game_id)
                raise errors.GameNotFound()
            if current == (cached.status, cached.version):
                return _Entry(cached, fresh=True)
        return self._reload(game_id)

    def _reload(self, game_id: str) -> _Entry:
        if not is_game_id(game_id):
            raise errors.GameNotFound()
        stored = self.store.load(game_id)
        if stored is None:
            self.cache.drop(game_id)
            raise errors.GameNotFound()
        cached = self._from_stored(stored)
        if cached.status != "open":
            self.cache.put(cached)
        return _Entry(cached, fresh=True)

    @staticmethod
    def _from_stored(stored: StoredGame) -> CachedGame:
        meta = stored.meta
        name = meta["game"]
        state = None
        version = 0
        if stored.snapshot is not None:
            game = get_game(name)
            state = game.state_from_json(stored.snapshot["state"])
            version = int(stored.snapshot["version"])
            if stored.tail:  # the events after the snapshot (store.scripts.SNAPSHOT_INTERVAL)
                state = fold(game, [entry.event for entry in stored.tail], state)
                version = stored.tail[-1].version
        elif stored.compact_log is not None:
            # A compacted game keeps no snapshot: its final state is the fold of its log
            state = fold(get_game(name), stored.compact_log)
            version = len(stored.compact_log)
        count = int(meta["seat_count"])
        kinds = {s: meta[f"kind:{s}"] for s in range(count) if f"kind:{s}" in meta}
        bots = {s: meta[f"bot:{s}"] for s in range(count) if meta.get(f"bot:{s}")}
        accounts = {s: meta[f"account:{s}"] for s in range(count) if meta.get(f"account:{s}")}
        return CachedGame(
            game_id=stored.game_id,
            name=name,
            version=version,
            status=meta["status"],
            state=state,
            seat_hashes=dict(stored.seat_hashes),
            seat_kinds=kinds,
            bots=bots,
            clock=_json(meta.get("clock")),
            prearranged=_json(meta.get("prearranged"), False),
            seat_accounts=accounts,
        )

    @staticmethod
    def _from_snapshot(
        cached: CachedGame, game: Game[Any], snapshot: Mapping[str, Any], tail: Sequence[StreamEntry] = ()
    ) -> CachedGame:
        """The game at the stored ``snapshot`` brought forward by the events of ``tail`` after it (as
        far as they run on without a gap)."""
        state = game.state_from_json(snapshot["state"])
        version = int(snapshot["version"])
        for entry in tail:
            if entry.version == version + 1:
                state = game.evolve(state, entry.event)
                version = entry.version
        return CachedGame(
            game_id=cached.game_id,
            name=cached.name,
            version=version,
            status="finished" if game.is_over(state) else "active",
            state=state,
            seat_hashes=cached.seat_hashes,
            seat_kinds=cached.seat_kinds,
            bots=cached.bots,
            prearranged=cached.prearranged,
            seat_accounts=cached.seat_accounts,
        )

    def _seat_for_token(self, cached: CachedGame, token: str, scope: str = READ) -> int:
        """The seat ``token`` acts for: a seat token's own seat, or the seat bound to an account
        token's account (the account's token then needs ``scope``: ``play`` to act, ``read`` to see)."""
        if cached.status == "finished" and not cached.seat_hashes:
            raise errors.SeatTokensExpired()  # compacted, and its token hashes expired since
        if is_account_token(token):
            if self.identity is None:
                raise errors.InvalidToken()
            account = self.identity.account_for(token, scope)
            for seat, holder in sorted(cached.seat_accounts.items()):
                if holder == account and seat in cached.seat_hashes:
                    return seat
            raise NotSeated()
        digest = hash_token(token)
        found = None
        for seat, stored in cached.seat_hashes.items():
            # Every seat is compared (no early exit) in constant time per comparison.
            if hmac.compare_digest(digest, stored):
                found = seat
        if found is None:
            raise errors.InvalidToken()
        return found


def _turn_moved(cached: CachedGame, game: Game[Any], meta: Mapping[str, Any]) -> bool:
    """Whether a seat bound to an account became awaited, or stopped being (``meta``: the change's)."""
    before = game.awaiting(cached.state)
    return any((seat in meta["awaiting"]) != (seat in before) for seat in cached.seat_accounts)


def _snapshot(game: Game[Any], version: int, state: Any) -> bytes:
    """The stored snapshot, ``orjson.dumps({"version": version, "state": game.state_to_json(state)})``
    byte for byte, with the state encoded by the engine where it can (games.base.SnapshotHooks)."""
    return b'{"version":%d,"state":%s}' % (version, encode_state(game, state))


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
