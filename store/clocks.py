"""Game clocks as stored: each timed game's clock (a JSON value in its meta hash, which the game's
change script writes) and the set of deadlines the clock enforcer (``worker/clocks.py``) polls."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson
import redis

from store.keys import CLOCKS_DUE, game_keys


class ClockBook:
    def __init__(self, client: redis.Redis, meta: Callable[[str], dict[str, str] | None]):
        self.redis = client
        # The whole meta hash, read back from its parts when a compacted game split a long value
        # (store.compact): the store's own reader, so both read a game's meta one way.
        self._meta = meta

    def of(self, game_id: str) -> dict[str, Any] | None:
        """The game's clock, or None for an untimed game."""
        raw = self.redis.hget(game_keys(game_id).meta, "clock")
        if raw is None:  # a compacted game keeps a long value in parts (store.compact)
            raw = (self._meta(game_id) or {}).get("clock")
        return orjson.loads(raw) if raw else None

    def of_each(self, game_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        """The clocks of ``game_ids``, in their order (one pipelined read)."""
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hget(game_keys(game_id).meta, "clock")
        return [orjson.loads(raw) if raw else None for raw in pipe.execute()]

    def schedule(self, game_id: str, deadline_ms: int | None, only_earlier: bool = False) -> None:
        """Record (or with ``None`` forget) when ``game_id``'s next deadline falls; ``only_earlier``
        never moves a recorded deadline later (ZADD LT)."""
        if deadline_ms is None:
            self.redis.zrem(CLOCKS_DUE, game_id)
        else:
            self.redis.zadd(CLOCKS_DUE, {game_id: deadline_ms}, lt=only_earlier)

    def due(self, now_ms: int, limit: int = 100) -> list[str]:
        """Timed games whose next deadline is at or before ``now_ms``, earliest first."""
        found = self.redis.zrangebyscore(CLOCKS_DUE, "-inf", now_ms, start=0, num=limit)
        return [i.decode() if isinstance(i, bytes) else i for i in found]
