"""The game service's repository: games as this process knows them.

One per process, shared by the command path (``service.commands``) and the queries
(``service.queries``): the per-process cache of games, loading a game from the store (its snapshot
and the events after it, or a compacted log), bringing a cached game forward from the events the
live reader read or from the snapshot a conflicting append returned, and which seat a token is.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from games import get_game
from games.base import SEAT_HANDED_TO_BOT, SEAT_TOKEN_ROTATED, Game, fold
from service import errors
from service.cache import CachedGame, GameCache
from service.identity import READ, IdentityResolver, NotSeated, is_account_token
from service.ids import is_game_id
from store import GameStore, StoredGame, StreamEntry, timestamps

# Events the server records beside the engine's: they change what the cache holds outside the state.
SERVER_EVENTS = frozenset({SEAT_TOKEN_ROTATED, SEAT_HANDED_TO_BOT})


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


def json_field(value: str | None, default: Any = None) -> Any:
    return orjson.loads(value) if value else default


@dataclass
class Entry:
    """A game as this request knows it; ``fresh`` when read from Redis during this request."""

    cached: CachedGame
    fresh: bool


class GameRepository:
    def __init__(self, store: GameStore, cache_size: int = 1024, identity: IdentityResolver | None = None):
        self.store = store
        self.cache = GameCache(cache_size)
        # Who an account token names (service.identity); None: account tokens are refused as
        # invalid seat tokens.
        self.identity = identity

    def meta(self, game_id: str) -> dict[str, str]:
        if not is_game_id(game_id):
            raise errors.GameNotFound()
        meta = self.store.meta(game_id)
        if meta is None:
            raise errors.GameNotFound()
        return meta

    def entry(self, game_id: str) -> Entry:
        """The cached game (maybe stale) or a fresh load."""
        cached = self.cache.get(game_id)
        if cached is not None:
            return Entry(cached, fresh=False)
        return self.reload(game_id)

    def current(self, game_id: str) -> Entry:
        """The game at its current version: the cache when one HMGET confirms it, else a load."""
        cached = self.cache.get(game_id)
        if cached is not None:
            current = self.store.status_and_version(game_id)
            if current is None:
                self.cache.drop(game_id)
                raise errors.GameNotFound()
            if current == (cached.status, cached.version):
                return Entry(cached, fresh=True)
        return self.reload(game_id)

    def reload(self, game_id: str) -> Entry:
        if not is_game_id(game_id):
            raise errors.GameNotFound()
        stored = self.store.load(game_id)
        if stored is None:
            self.cache.drop(game_id)
            raise errors.GameNotFound()
        cached = self.from_stored(stored)
        if cached.status != "open":
            self.cache.put(cached)
        return Entry(cached, fresh=True)

    @staticmethod
    def from_stored(stored: StoredGame) -> CachedGame:
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
            clock=json_field(meta.get("clock")),
            prearranged=json_field(meta.get("prearranged"), False),
            seat_accounts=accounts,
            tournament=str(meta.get("tournament") or ""),
        )

    @staticmethod
    def from_snapshot(
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
            tournament=cached.tournament,
        )

    def seat_for_token(self, cached: CachedGame, token: str, scope: str = READ) -> int:
        """The seat ``token`` acts for: a seat token's own seat, or the seat bound to an account
        token's account (the account's token then needs ``scope``: ``play`` to act, ``read`` to see)."""
        if is_account_token(token):
            return self.account_seat(cached, token, scope)[0]
        if cached.status == "finished" and not cached.seat_hashes:
            raise errors.SeatTokensExpired()  # compacted, and its token hashes expired since
        digest = hash_token(token)
        found = None
        for seat, stored in cached.seat_hashes.items():
            # Every seat is compared (no early exit) in constant time per comparison.
            if hmac.compare_digest(digest, stored):
                found = seat
        if found is None:
            raise errors.InvalidToken()
        return found

    def account_seat(self, cached: CachedGame, token: str, scope: str) -> tuple[int, str]:
        """The seat an account ``token`` (holding ``scope``) acts for, and its account's id: one
        read of the token's entry."""
        if cached.status == "finished" and not cached.seat_hashes:
            raise errors.SeatTokensExpired()  # compacted, and its token hashes expired since
        if self.identity is None:
            raise errors.InvalidToken()
        account = self.identity.account_for(token, scope)
        return self.seat_of_account(cached, account), account

    @staticmethod
    def seat_of_account(cached: CachedGame, account: str) -> int:
        """The seat of ``cached`` bound to ``account`` (whose token was checked by the caller)."""
        if cached.status == "finished" and not cached.seat_hashes:
            raise errors.SeatTokensExpired()  # compacted, and its token hashes expired since
        for seat, holder in sorted(cached.seat_accounts.items()):
            if holder == account and seat in cached.seat_hashes:
                return seat
        raise NotSeated()

    def at_least(self, game_id: str, version: int) -> CachedGame:
        cached = self.cache.get(game_id)
        if cached is not None and cached.version >= version:
            return cached
        return self.reload(game_id).cached

    def status_and_version(self, game_id: str, at_least: int) -> tuple[str, int]:
        """From the cache when it is at least at ``at_least`` (the listener keeps it current), else
        from Redis."""
        cached = self.cache.get(game_id)
        if cached is not None and cached.version >= at_least:
            return cached.status, cached.version
        current = self.store.status_and_version(game_id)
        if current is None:
            raise errors.GameNotFound()
        return current

    def name_of(self, game_id: str) -> str:
        cached = self.cache.get(game_id)
        if cached is not None:
            return cached.name
        return self.meta(game_id)["game"]

    def advance(self, game_id: str, entries: list[StreamEntry]) -> None:
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
            self.reload(game_id)
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
                tournament=cached.tournament,
            )
        )
