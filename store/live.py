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
client's per-node connections (one round trip per master). See
docs/decisions/0015-http-api-and-play-edge.md, "Live streams".
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

import redis
import redis.cluster
from redis.connection import AbstractConnection
from redis.crc import key_slot

from store.keys import game_keys
from store.records import StreamEntry, entry_fields, stream_entry

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

    def _dedicated(self, block_ms: int) -> AbstractConnection:
        """The reader's own connection, outside any pool: the XREAD is sent on it directly (in a
        profile of the hot path, redis-py's command path, with its pool, retry and reply callbacks,
        cost more than the read itself, once per move in every web process)."""
        if self._reader is None:
            pool = self.client.connection_pool
            kwargs = dict(pool.connection_kwargs)
            # The XREAD blocks up to block_ms: the socket must wait longer than that.
            timeout = kwargs.get("socket_timeout") or 0
            kwargs["socket_timeout"] = max(float(timeout), block_ms / 1000 + 10)
            connection = pool.connection_class(**kwargs)
            try:
                connection.connect()
                connection.send_command("CLIENT", "ID")
                self._reader_id = int(connection.read_response())
            except Exception:
                connection.disconnect()
                raise
            self._reader = connection
        return self._reader

    def read(self, after: Mapping[str, int], block_ms: int) -> dict[str, list[StreamEntry]]:
        """Events with a version above ``after[game_id]`` for each game, waiting up to ``block_ms``
        when there are none (or until :meth:`wake`). {game_id: entries}, only games with news."""
        return self.read_with_feeds(after, {}, block_ms)[0]

    def read_with_feeds(
        self, after: Mapping[str, int], feeds: Mapping[str, str], block_ms: int
    ) -> tuple[dict[str, list[StreamEntry]], dict[str, str]]:
        """:meth:`read`, naming in the same XREAD other streams too (``feeds``: stream key -> the
        entry id after which news count; an account's feed, ``store.accounts``): (the games'
        news, {feed key: its newest entry id} of the feeds with news)."""
        if not after and not feeds:
            return {}, {}
        names = {game_keys(game_id).events: game_id for game_id in after}
        streams = {key: f"{after[game_id]}-1" for key, game_id in names.items()}
        streams.update(feeds)
        if self.cluster:
            return self._poll(names, streams, block_ms)
        connection = self._dedicated(block_ms)
        try:
            connection.send_command(
                "XREAD", "COUNT", READ_COUNT, "BLOCK", block_ms, "STREAMS", *streams, *streams.values()
            )
            reply = connection.read_response()
        except (redis.ConnectionError, redis.TimeoutError):
            self.close()  # a dropped or unblocked-then-reset connection: reconnect on the next read
            raise
        return _by_game_raw(reply, names)

    def _poll(
        self, names: Mapping[str, str], streams: Mapping[str, str], block_ms: int
    ) -> tuple[dict[str, list[StreamEntry]], dict[str, str]]:
        groups: dict[int, dict[str, str]] = defaultdict(dict)
        for key, position in streams.items():
            groups[key_slot(key.encode())][key] = position
        deadline = time.monotonic() + block_ms / 1000
        while True:
            found: dict[str, list[StreamEntry]] = {}
            moved: dict[str, str] = {}
            # One pipeline: the XREADs of all slot groups go out together, one round trip per node.
            pipe = self.client.pipeline(transaction=False)
            for group in groups.values():
                pipe.xread(group, count=READ_COUNT)
            for reply in pipe.execute():
                games, feeds = _by_game(reply, names)
                found.update(games)
                moved.update(feeds)
            if found or moved or time.monotonic() >= deadline:
                return found, moved
            time.sleep(self.poll_seconds)

    def wake(self) -> None:
        """End the reader's current blocking XREAD early (it then reads again with the new keys).
        A no-op on a cluster, whose reader polls."""
        if self.cluster or self._reader_id is None:
            return
        self.client.client_unblock(self._reader_id)

    def forget(self) -> None:
        """In a forked child: drop the parent's connection without touching its socket."""
        self._reader = None
        self._reader_id = None

    def close(self) -> None:
        if self._reader is not None:
            self._reader.disconnect()
        self._reader = None
        self._reader_id = None


News = tuple[dict[str, list[StreamEntry]], dict[str, str]]


def _by_game(reply: Any, names: Mapping[str, str]) -> News:
    """({game_id: entries}, {other key: newest id}) of an XREAD reply through redis-py's reply
    callback: RESP2 gives [[key, entries], ...], RESP3 a {key: [entries]} mapping."""
    if not reply:
        return {}, {}
    pairs = reply if isinstance(reply, list) else [(key, value[0]) for key, value in reply.items()]
    return _entries_by_game(pairs, names)


def _by_game_raw(reply: Any, names: Mapping[str, str]) -> News:
    """The same of a raw XREAD reply (no callback): [[key, entries], ...] or, in RESP3, {key:
    entries}; each entry's fields a flat [field, value, ...] list."""
    if not reply:
        return {}, {}
    return _entries_by_game(reply.items() if isinstance(reply, dict) else reply, names)


def _entries_by_game(pairs: Any, names: Mapping[str, str]) -> News:
    found: dict[str, list[StreamEntry]] = {}
    moved: dict[str, str] = {}
    for key, entries in pairs:
        name = key.decode() if isinstance(key, bytes) else key
        if not entries:
            continue
        game_id = names.get(name)
        if game_id is None:  # a feed: only where it stands now (its reader reads it itself)
            last = entries[-1][0]
            moved[name] = last.decode() if isinstance(last, bytes) else str(last)
            continue
        found[game_id] = [stream_entry(entry_id, entry_fields(fields)) for entry_id, fields in entries]
    return found, moved
