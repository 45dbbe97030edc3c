"""The live listener's reads (store/live.py): however many games a web process watches, one read of
their news costs one round trip on a single server (one multi-key XREAD) and one per master on a
cluster (one XREAD per slot, pipelined), never one or more per game (issue 13: redis-py asked the
server for each XREAD's keys, three round trips per watched game per 50 ms poll)."""

from __future__ import annotations

import redis.cluster

from store.keys import game_keys
from store.live import EventsReader
from tests.redis_metrics import count_round_trips

GAMES = [f"01m8kknrfm9aaaaaaa{i:02d}" for i in range(40)]


def test_one_read_of_many_watched_games_is_one_round_trip_per_node(redis_client):
    for game_id in GAMES:
        redis_client.xadd(game_keys(game_id).events, {"e": b'{"type": "x"}'}, id="1-1")
    reader = EventsReader(redis_client)
    try:
        assert len(reader.read({g: 0 for g in GAMES}, block_ms=10)) == len(GAMES)  # warm
        for game_id in GAMES:
            redis_client.xadd(game_keys(game_id).events, {"e": b'{"type": "y"}'}, id="2-1")
        with count_round_trips(redis_client) as trips:
            news = reader.read({g: 1 for g in GAMES}, block_ms=10)
    finally:
        reader.close()
    assert {game_id: [e.version for e in entries] for game_id, entries in news.items()} == {
        g: [2] for g in GAMES
    }
    assert set(trips.names) == {"XREAD"}
    if isinstance(redis_client, redis.cluster.RedisCluster):
        assert trips.count <= len(redis_client.get_primaries())
    else:
        assert trips.count == 1
