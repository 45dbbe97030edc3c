"""Application logic of the game server: create, claim, view, move, read and follow events.

No Flask here: the API and the workers (bots, archive) call these methods directly. One
``GameService`` per process (it owns a per-process cache), built by ``service.composition``.

``GameService`` is the facade of the parts it is made of, each in its module: the
repository (``service.repository``: the cache, loading, folding, which seat a token is), the
queries (``service.queries``: views, ETags, events, view streams), the command path
(``service.commands``: decide, append, follow-ups, for moves, resigning, aborting, rotations),
the seats (``service.seats``: claims and the game's start) and the clocks (``service.deadlines``).
Creating and listing games, stream tickets and device links are its own.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from typing import Any

from bots import levels as bot_levels
from games import game_names, get_game
from games.base import Game, GameError, normalise_seed, public_config, seat_hooks, secret_config_keys
from replays import fairness
from service import clocks, errors
from service.cache import CachedGame
from service.changes import MoveOutcome as MoveOutcome
from service.commands import MAX_DECIDE_ATTEMPTS as MAX_DECIDE_ATTEMPTS
from service.commands import GameCommands
from service.deadlines import GameDeadlines
from service.followups import FollowUps, Handler
from service.identity import PLAY, READ, IdentityResolver, credential_of
from service.ids import new_game_id, new_placed_game_id
from service.live import LiveHub
from service.queries import EventsPage as EventsPage
from service.queries import GameQueries, StreamGrant
from service.queries import GameView as GameView
from service.queries import ViewUpdate as ViewUpdate
from service.repository import GameRepository, json_field
from service.repository import hash_token as hash_token
from service.repository import new_token as new_token
from service.repository import now_iso as now_iso
from service.repository import now_ms as now_ms
from service.seats import ClaimOutcome as ClaimOutcome
from service.seats import SeatClaims
from store import GameStore, parts

SEED_BITS = 128
# A stream ticket only bridges the gap between asking for it and opening the stream (EventSource
# cannot send Authorization): half a minute covers a slow network, and it is single-use anyway.
STREAM_TICKET_TTL_SECONDS = 30
# A device link is typed or scanned by a person on another device: minutes, not seconds.
DEVICE_LINK_TTL_SECONDS = 600


def new_seed() -> int | str:
    """A drawn seed: 128 bits, so none can be searched for; as a decimal string past 2**53 - 1,
    because a JSON number that large loses bits in many clients (JavaScript's)."""
    return normalise_seed(secrets.randbits(SEED_BITS))


def time_control(game_name: str, clock: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A request's time control, validated and normalised for ``game_name`` (None: no clock); an
    invalid one is refused as ``InvalidClock``."""
    try:
        return clocks.control(clock, bot_levels(game_name))
    except clocks.ClockError as err:
        raise errors.InvalidClock(str(err)) from None


def hidden_config(config: Mapping[str, Any], public: Mapping[str, Any]) -> dict[str, Any]:
    """The configuration's keys that ``public`` leaves out (the seed, a deck order): kept beside
    the public ones (meta ``hidden_config``) and shown once the game is finished, when the log
    (its ``game_started`` event) reveals them anyway."""
    return {k: v for k, v in config.items() if k not in public}


def start_meta(
    game: Game[Any],
    config: Mapping[str, Any],
    game_id: str,
    seat_count: int,
    *,
    rated: bool | None,
    clock: Mapping[str, Any] | None,
    more: Mapping[str, Any],
    prearranged: bool = False,
    created: str | None = None,
) -> dict[str, Any]:
    """The metadata a new game is created with, before its seats (``service.bound_start`` adds them
    to a game started with every seat known): the public configuration, the rest of it hidden
    until the end, the seed's commitment, the clock's first state (``clock``: its control).
    ``more`` names what the game is for (its challenge, seek pool, tournament table, ...) or its
    state (an open game's); ``rated`` None leaves the rated flag out."""
    public = public_config(game, config)
    meta: dict[str, Any] = {
        "game": game.name,
        "title": game.title,
        "seat_count": seat_count,
        "config": public,
        "prearranged": prearranged,
        "created": created or now_iso(),
        **more,
    }
    if rated is not None:
        meta["rated"] = rated
    if config.get("seed") is not None:
        # Committed before anyone can see a card: the first event repeats it (docs/fairness.md).
        meta["commitment"] = fairness.commitment(config["seed"], game_id, prearranged)
    hidden = hidden_config(config, public)
    if hidden:
        meta["hidden_config"] = hidden
    if clock is not None:
        meta["clock"] = clocks.new_state(clock, seat_count)
    return meta


def summary_config(meta: Mapping[str, Any]) -> dict[str, Any]:
    """A game's configuration as its summary shows it: the public keys, and once the game is
    finished the hidden ones too (docs/condottiere-protocol.md, "What a finished game reveals")."""
    config: dict[str, Any] = json_field(meta.get("config"), {})
    if meta.get("status") == "finished":
        config.update(json_field(meta.get("hidden_config"), {}))
    return config


class GameService:
    def __init__(
        self,
        store: GameStore,
        followup_handlers: Mapping[str, Handler],
        *,
        cache_size: int = 1024,
        live_block_seconds: float = 5.0,
        identity: IdentityResolver | None = None,
        predictor: Callable[[Mapping[str, str]], list[float] | None] | None = None,
    ):
        """Built by ``service.composition`` (the only place services are built). ``identity``: who
        an account token names (service.identity; None: account tokens are refused as invalid seat
        tokens). ``predictor``: each seat's chance to win from a game's metadata (service.ratings;
        None, or None from it: no prediction). ``followup_handlers``: the follow-up actions this
        service carries out (``service.followups.handlers``)."""
        self.store = store
        store.index.engine_names = tuple(game_names())
        self.repository = GameRepository(store, cache_size, identity)
        self.cache = self.repository.cache
        self.followups = FollowUps(self, followup_handlers)
        self.live = LiveHub(
            parts.events_reader(store), on_news=self.repository.advance, block_seconds=live_block_seconds
        )
        self.queries = GameQueries(self.repository, self.live)
        self.commands = GameCommands(
            self.repository, self.live, self.followups, self.queries.remember_view, sender=self
        )
        self.seats = SeatClaims(self.repository, self.commands, self.followups)
        self.deadlines = GameDeadlines(self.repository, self.commands)
        self.predictor = predictor

    # -- the parts' entry points the API, the workers and the tests call on the service ------------
    # The streams' and clocks' finer reads are called on their part (``service.queries``,
    # ``service.deadlines``) by the few callers that need them.
    def get_view(self, game_id: str, token: str | None = None) -> GameView:
        return self.queries.get_view(game_id, token)

    def viewer_seat(
        self, game_id: str, token: str | None, scope: str = READ
    ) -> tuple[int | None, CachedGame]:
        return self.queries.viewer_seat(game_id, token, scope)

    def read_events(
        self, game_id: str, token: str | None = None, after: int = 0, limit: int = 100
    ) -> EventsPage:
        return self.queries.read_events(game_id, token, after, limit)

    def submit_command(
        self,
        game_id: str,
        token: str | None,
        command: Mapping[str, Any],
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        minimal: bool = False,
    ) -> MoveOutcome:
        return self.commands.submit_command(
            game_id, token, command, expected_version, idempotency_key, minimal
        )

    def submit_as_seat(
        self,
        game_id: str,
        seat: int,
        command: Mapping[str, Any],
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> MoveOutcome:
        return self.commands.submit_as_seat(game_id, seat, command, expected_version, idempotency_key)

    def resign(self, game_id: str, token: str | None) -> MoveOutcome:
        return self.commands.resign(game_id, token)

    def abort(self, game_id: str, token: str | None) -> MoveOutcome:
        return self.commands.abort(game_id, token)

    def rotate_token(self, game_id: str, token: str | None) -> dict[str, Any]:
        return self.commands.rotate_token(game_id, token)

    def enforce_clock(self, game_id: str, now: int | None = None) -> list[dict[str, Any]]:
        return self.deadlines.enforce_clock(game_id, now)

    def claim_seat(
        self,
        game_id: str,
        name: str | None = None,
        seat: int | None = None,
        bot: str | None = None,
        account: str | None = None,
    ) -> ClaimOutcome:
        return self.seats.claim_seat(game_id, name, seat, bot, account)

    def leave_to_bot(self, game_id: str, seat: int) -> bool:
        return self.seats.leave_to_bot(game_id, seat)

    @property
    def identity(self) -> IdentityResolver | None:
        """Who an account token names (service.identity), as the service was built with."""
        return self.repository.identity

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
        # A creator who fixes the shuffles (a seed or a deck order) can know every hand
        # (a private rehearsal with the same seed deals the same cards): such a game says so,
        # publicly, from its creation on.
        prearranged = any(raw.get(key) is not None for key in secret_config_keys(game))
        if raw.get("seed") is None:
            raw["seed"] = new_seed()
        try:
            normalised = game.configure(raw)
            seat_count = game.seat_count(normalised)
        except GameError as err:
            raise errors.RuleRefusal(err) from None
        bot_seats = self._validate_bots(game.name, bots or {}, seat_count)
        control = time_control(game.name, clock)
        if control is not None and seat_hooks(game) is None:
            raise errors.NotSupported(f"{game.title} games have no timeout policy: they cannot be timed.")
        game_id = new_game_id() if placed is None else new_placed_game_id(placed)
        stamp = now_iso()
        more = {"status": "open", "version": 0, "updated": stamp}
        meta = start_meta(
            game,
            normalised,
            game_id,
            seat_count,
            rated=None,
            clock=control,
            more=more,
            prearranged=prearranged,
            created=stamp,
        )
        created = {"index": "open"}
        self.store.create(game_id, meta, normalised, followups=created)
        self.followups.run(game_id, created)
        for seat, level in sorted(bot_seats.items()):
            self.seats.claim(game_id, game, normalised, seat=seat, name=f"{level} bot", bot=level)
        return self.get_summary(game_id)

    @staticmethod
    def validate_bots(name: str, bots: Mapping[Any, str], seat_count: int) -> dict[int, str]:
        """``bots`` ({seat: level}) checked against the game's seats and bot levels."""
        return GameService._validate_bots(name, bots, seat_count)

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

    # -- reading ----------------------------------------------------------------------------------
    def get_summary(self, game_id: str) -> dict[str, Any]:
        meta = self.repository.meta(game_id)
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
            "prearranged": json_field(meta.get("prearranged"), False),
            "commitment": json_field(meta.get("commitment")),
            "awaiting": json_field(meta.get("awaiting"), []),
            "result": json_field(meta.get("result")),
            "created": meta.get("created"),
            "updated": meta.get("updated"),
            "started": meta.get("started"),
            "finished": meta.get("finished"),
            "clock": clocks.public(json_field(meta.get("clock")), now_ms()),
        }

    def list_games(
        self, status: str | None = None, game: str | None = None, cursor: str | None = None, limit: int = 20
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Summaries, newest first, and the cursor of the next page (None at the end)."""
        ids = self.store.index.ids(status=status, name=game, before=cursor, limit=limit + 1)
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

    # -- stream tickets and device links ----------------------------------------------------------
    def issue_stream_ticket(self, game_id: str, token: str) -> tuple[str, int, int]:
        """A short-lived, single-use ticket that opens ``game_id``'s stream as ``token``'s seat, for
        clients that cannot send a header (the browser's EventSource). Only its hash is stored,
        with the hash of ``token``: a ticket taken before a rotation opens nothing after it.
        Returns (ticket, seat, seconds it stays valid)."""
        grant, _ = self.queries.stream_viewer(game_id, token)
        assert grant.seat is not None and grant.token_hash is not None
        ticket = new_token()
        self.store.passes.put_stream_ticket(
            game_id,
            hash_token(ticket),
            grant.seat,
            grant.token_hash,
            STREAM_TICKET_TTL_SECONDS,
            grant.credential or "",
        )
        return ticket, grant.seat, STREAM_TICKET_TTL_SECONDS

    def redeem_stream_ticket(self, game_id: str, ticket: str) -> tuple[StreamGrant, CachedGame]:
        """The grant a ticket was issued for, consuming it; InvalidTicket when it is unknown,
        expired, already used, issued for another game, or taken with a token the seat no longer
        has (rotated since, or the seat handed to a bot)."""
        entry = self.repository.current(game_id)  # GameNotFound first: an unknown game is a 404, as elsewhere
        taken = self.store.passes.take_stream_ticket(game_id, hash_token(ticket))
        if taken is None:
            raise errors.InvalidTicket()
        grant = StreamGrant(*taken)
        if self.queries.revocation(entry.cached, grant) is not None:
            raise errors.InvalidTicket()
        if self.queries.credential_revocation(grant) is not None:
            raise errors.InvalidTicket()  # taken with an account token revoked since
        return grant, entry.cached

    def issue_device_link(self, game_id: str, token: str) -> tuple[str, int, int]:
        """A one-time code that hands ``token``'s seat to another device (a browser that does not
        hold the token). Only its hash is stored; it is worth nothing once used or after
        DEVICE_LINK_TTL_SECONDS, or once the token that made it is replaced. Returns (code, seat,
        seconds it stays valid)."""
        cached = self.repository.current(game_id).cached
        # A link hands the seat over (a new seat token): an account token needs ``play`` for it.
        seat = self.repository.seat_for_token(cached, token, PLAY)
        code = new_token()
        self.store.passes.put_device_link(
            game_id,
            hash_token(code),
            seat,
            cached.seat_hashes[seat],
            DEVICE_LINK_TTL_SECONDS,
            credential_of(token) or "",
        )
        return code, seat, DEVICE_LINK_TTL_SECONDS

    def redeem_device_link(self, game_id: str, code: str) -> dict[str, Any]:
        """Consume a device link: its seat gets a new token (returned, shown only here) and the
        token of the device that made the link stops working, so a seat is played from one place
        at a time and no token ever travels in a link (as :meth:`rotate_token`, logged alike)."""
        self.repository.current(game_id)  # GameNotFound first: an unknown game is a 404, as elsewhere
        taken = self.store.passes.take_device_link(game_id, hash_token(code))
        if taken is None:
            raise errors.InvalidDeviceLink()
        seat, token_hash, credential = taken
        if self.queries.credential_revocation(StreamGrant(seat, token_hash, credential)) is not None:
            raise errors.InvalidDeviceLink()  # made with an account token revoked since
        # The rotation swaps the hash only if it is still the one that made the link: a link made
        # before the seat's token was replaced (another link, a rotation) moves nothing.
        try:
            return self.commands.rotate(game_id, lambda cached: (seat, token_hash))
        except errors.InvalidToken:
            raise errors.InvalidDeviceLink() from None
