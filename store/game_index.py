"""The cross-game index: every game's id under its engine and status (sorted sets ordered by id,
which sort by time), so the lobby lists the newest games of any engine and status in one pipelined
read. Outside any per-game script: these keys live in other Cluster slots than the games'."""

from __future__ import annotations

import redis

from store.keys import INDEX_NAMES, STATUSES, index_by_game_status


class GameIndex:
    def __init__(self, client: redis.Redis):
        self.redis = client
        # The engines the service knows: listed with those of INDEX_NAMES, so the games a store
        # indexed before that set existed are listed too.
        self.engine_names: tuple[str, ...] = ()

    def add(self, game_id: str, name: str, status: str) -> None:
        """Record ``game_id`` under ``status`` (and nowhere else). Idempotent."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.sadd(INDEX_NAMES, name)
        for other in STATUSES:
            if other == status:
                pipe.zadd(index_by_game_status(name, other), {game_id: 0})
            else:
                pipe.zrem(index_by_game_status(name, other), game_id)
        pipe.execute()

    def ids(
        self,
        *,
        status: str | None = None,
        name: str | None = None,
        before: str | None = None,
        limit: int = 20,
    ) -> list[str]:
        """Game ids, newest first, strictly older than ``before`` (a cursor: the last id seen): the
        newest ``limit`` of each engine-and-status set asked for, merged (one pipelined read)."""
        names = (
            [name]
            if name
            else sorted({*(_text(n) for n in self.redis.smembers(INDEX_NAMES)), *self.engine_names})
        )
        keys = [index_by_game_status(n, s) for n in names for s in ([status] if status else STATUSES)]
        if not keys:
            return []
        start = f"({before}" if before else "+"
        pipe = self.redis.pipeline(transaction=False)
        for key in keys:
            pipe.zrange(key, start, "-", desc=True, bylex=True, offset=0, num=limit)
        found = {_text(i) for ids in pipe.execute() for i in ids}
        return sorted(found, reverse=True)[:limit]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
