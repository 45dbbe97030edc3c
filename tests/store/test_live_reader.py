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


def test_feeds_are_read_in_the_same_round_trip_as_the_games(redis_client):
    """Accounts' feeds (issue 31: GET /v1/me/stream) ride in the games' XREAD: one round trip for
    all (one per master on a cluster), each feed's news reported as its newest entry id."""
    from store.accounts import account_keys

    feeds = [account_keys(f"{i:020x}").feed for i in range(10)]
    for game_id in GAMES:
        redis_client.xadd(game_keys(game_id).events, {"e": b'{"type": "x"}'}, id="1-1")
    newest = {}
    for feed in feeds:
        redis_client.xadd(feed, {"t": "game_started", "d": "{}"}, id="5-0")
        newest[feed] = redis_client.xadd(feed, {"t": "your_turn", "d": "{}"}, id="6-0").decode()
    quiet = account_keys("f" * 20).feed
    redis_client.xadd(quiet, {"t": "your_turn", "d": "{}"}, id="7-0")
    reader = EventsReader(redis_client)
    try:
        reader.read({GAMES[0]: 0}, block_ms=10)  # warm
        with count_round_trips(redis_client) as trips:
            news, moved = reader.read_with_feeds(
                {g: 0 for g in GAMES}, {**{f: "5-0" for f in feeds}, quiet: "7-0"}, block_ms=10
            )
    finally:
        reader.close()
    assert set(news) == set(GAMES)
    assert moved == newest  # the quiet feed had nothing after 7-0
    assert set(trips.names) == {"XREAD"}
    if isinstance(redis_client, redis.cluster.RedisCluster):
        assert trips.count <= len(redis_client.get_primaries())
    else:
        assert trips.count == 1
