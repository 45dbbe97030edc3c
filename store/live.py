"""One reader of many games' event streams: the Redis side of the per-process live listener.

A web process follows every game any of its open streams watches through one :class:`EventsReader`,
which holds ONE dedicated connection blocking on a multi-key ``XREAD`` (``service.live`` fans what
it reads out to the streams). A stream opening for a game the blocked ``XREAD`` does not name yet
wakes it with ``CLIENT UNBLOCK`` (sent on the ordinary, bounded pool), so the next ``XREAD`` names
it too.

Redis Cluster: a multi-key ``XREAD`` must name keys of one slot, and each game's keys share the hash
tag ``{g:<id>}`` (one slot per game, spread over the cluster). Blocking on one connection per slot
would make connections grow with games, so on a cluster the reader polls instead: every
``poll_seconds`` one non-blocking ``XREAD`` per slot group, all in one pipeline over the cluster
client's per-node connections (one round trip per master). See docs/architecture.md, "Live streams".
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

import redis
import redis.cluster
from redis.crc import key_slot

from store.games import StreamEntry, _entry
from store.keys import game_keys

# Entries one XREAD returns per game: a burst longer than this is read on the next loop.
READ_COUNT = 256


class EventsReader:
    """Reads new events of many games at once (see the module docstring)."""

    def __init__(self, client: redis.Redis, poll_seconds: float = 0.05):
        self.cluster = isinstance(client, redis.cluster.RedisCluster)
        self.client = client  # the ordinary (bounded) client: CLIENT UNBLOCK, cluster polls
        self.poll_seconds = poll_seconds
        self._reader: redis.Redis | None = None
        self._reader_id: int | None = None

    def _dedicated(self, block_ms: int) -> redis.Redis:
        if self._reader is None:
            kwargs = dict(self.client.connection_pool.connection_kwargs)
            # The XREAD blocks up to block_ms: the socket must wait longer than that.
            timeout = kwargs.get("socket_timeout") or 0
            kwargs["socket_timeout"] = max(float(timeout), block_ms / 1000 + 10)
            pool = redis.ConnectionPool(max_connections=1, **kwargs)
            self._reader = redis.Redis(connection_pool=pool)
            self._reader_id = int(self._reader.client_id())
        return self._reader

    def read(self, after: Mapping[str, int], block_ms: int) -> dict[str, list[StreamEntry]]:
        """Events with a version above ``after[game_id]`` for each game, waiting up to ``block_ms``
        when there are none (or until :meth:`wake`). {game_id: entries}, only games with news."""
        if not after:
            return {}
        names = {game_keys(game_id).events: game_id for game_id in after}
        streams = {key: f"{after[game_id]}-1" for key, game_id in names.items()}
        if self.cluster:
            return self._poll(names, streams, block_ms)
        try:
            reply = self._dedicated(block_ms).xread(streams, count=READ_COUNT, block=block_ms)
        except redis.ConnectionError:
            self.close()  # a dropped or unblocked-then-reset connection: reconnect on the next read
            raise
        return _by_game(reply, names)

    def _poll(
        self, names: Mapping[str, str], streams: Mapping[str, str], block_ms: int
    ) -> dict[str, list[StreamEntry]]:
        groups: dict[int, dict[str, str]] = defaultdict(dict)
        for key, position in streams.items():
            groups[key_slot(key.encode())][key] = position
        deadline = time.monotonic() + block_ms / 1000
        while True:
            found: dict[str, list[StreamEntry]] = {}
            # One pipeline: the XREADs of all slot groups go out together, one round trip per node.
            pipe = self.client.pipeline(transaction=False)
            for group in groups.values():
                pipe.xread(group, count=READ_COUNT)
            for reply in pipe.execute():
                found.update(_by_game(reply, names))
            if found or time.monotonic() >= deadline:
                return found
            time.sleep(self.poll_seconds)

    def wake(self) -> None:
        """End the reader's current blocking XREAD early (it then reads again with the new keys).
        A no-op on a cluster, whose reader polls."""
        if self.cluster or self._reader_id is None:
            return
        self.client.client_unblock(self._reader_id)

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader.connection_pool.disconnect()
        self._reader = None
        self._reader_id = None


def _by_game(reply: Any, names: Mapping[str, str]) -> dict[str, list[StreamEntry]]:
    if not reply:
        return {}
    # RESP2 returns [[key, entries], ...], RESP3 a {key: [entries]} mapping.
    pairs = reply if isinstance(reply, list) else [(key, value[0]) for key, value in reply.items()]
    found: dict[str, list[StreamEntry]] = {}
    for key, entries in pairs:
        name = key.decode() if isinstance(key, bytes) else key
        if entries:
            found[names[name]] = [_entry(entry_id, fields) for entry_id, fields in entries]
    return found
