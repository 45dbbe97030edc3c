"""The Redis event store: append/claim scripts, conflicts, idempotency, token checks, index."""

from __future__ import annotations

import orjson
import pytest
import redis
import redis.cluster

from store import GameStore, game_keys
from tests.redis_metrics import calls_delta, command_calls, count_round_trips

GAME = "01m8kknrfm9aaaaaaaaa"


@pytest.fixture()
def store(redis_client):
    return GameStore(redis_client)


def open_game(store: GameStore, seats: int = 2, game_id: str = GAME) -> str:
    store.create(game_id, {"game": "toy", "status": "open", "version": 0, "seat_count": seats}, {"seed": 1})
    return game_id


def claim(store, seat, token_hash="h", genesis=({"type": "start"},), game_id=GAME):
    return store.claim(
        game_id,
        seat=seat,
        name=f"P{seat}",
        token_hash=token_hash,
        kind="human",
        bot=None,
        now="t",
        genesis=list(genesis),
        snapshot={"version": len(genesis), "state": {"n": len(genesis)}},
        meta_on_start={"status": "active"},
    )


def started_game(store) -> str:
    open_game(store)
    claim(store, 0, "hash0")
    claim(store, 1, "hash1", genesis=[{"type": "start"}, {"type": "deal"}])
    return GAME


def append(store, expected, events=({"type": "x"},), **kwargs):
    version = expected + len(events)
    return store.append(
        GAME,
        expected_version=expected,
        events=list(events),
        snapshot={"version": version, "state": {"n": version}},
        **kwargs,
    )


def test_claim_fills_seats_and_the_last_claim_appends_genesis(store, redis_client):
    open_game(store)
    first = claim(store, None)
    assert (first.outcome, first.seat, first.version) == ("claimed", 0, 0)
    assert redis_client.xlen(game_keys(GAME).events) == 0
    assert claim(store, 0).outcome == "taken"
    assert claim(store, 2).outcome == "no_such_seat"
    last = claim(store, None, genesis=[{"type": "start"}, {"type": "deal"}])
    assert (last.outcome, last.seat, last.version) == ("started", 1, 2)
    loaded = store.load(GAME)
    assert loaded.status == "active" and loaded.version == 2
    assert loaded.snapshot == {"version": 2, "state": {"n": 2}}
    assert loaded.seat_hashes == {0: "h", 1: "h"}
    assert [e.version for e in store.read_events(GAME)] == [1, 2]
    assert claim(store, None).outcome == "not_open"
    assert claim(store, None, game_id="01m8kknrfm9bbbbbbbbb").outcome == "not_found"


def test_a_claim_sent_without_the_start_fills_no_last_seat_and_changes_nothing(store, redis_client):
    """A claim that leaves seats free needs no genesis: sent without it, it claims; sent so and
    filling the last seat (other claims came first), it is refused untouched (``need_start``), and
    the same claim with the start then starts the game."""
    open_game(store, seats=3)
    short = {"name": "P", "token_hash": "h", "kind": "human", "bot": None, "now": "t"}
    first = store.claim(GAME, seat=None, **short)
    assert (first.outcome, first.seat, first.version) == ("claimed", 0, 0)
    assert claim(store, 1).outcome == "claimed"
    keys = game_keys(GAME)
    before = (redis_client.hgetall(keys.meta), redis_client.hgetall(keys.seats))
    refused = store.claim(GAME, seat=None, **short)
    assert refused.outcome == "need_start"
    assert (redis_client.hgetall(keys.meta), redis_client.hgetall(keys.seats)) == before
    assert redis_client.xlen(keys.events) == 0 and redis_client.get(keys.snapshot) is None
    assert store.claim(GAME, seat=0, **short).outcome == "taken"  # refusals come first, as before
    last = claim(store, None)
    assert (last.outcome, last.seat, last.version) == ("started", 2, 1)


def test_append_writes_events_with_version_ids_snapshot_and_meta(store, redis_client):
    started_game(store)
    result = append(
        store, 2, events=[{"type": "a"}, {"type": "b"}], meta={"status": "active", "awaiting": [1]}
    )
    assert (result.outcome, result.version) == ("ok", 4)
    ids = [entry_id for entry_id, _ in redis_client.xrange(game_keys(GAME).events)]
    assert ids == [b"1-1", b"2-1", b"3-1", b"4-1"]
    assert store.load(GAME).snapshot == {"version": 4, "state": {"n": 4}}
    meta = store.meta(GAME)
    assert meta["version"] == "4" and meta["awaiting"] == "[1]"
    assert [e.event["type"] for e in store.read_events(GAME, after=2)] == ["a", "b"]


def test_an_append_without_a_snapshot_keeps_the_stored_one_and_a_load_returns_the_events_after_it(
    store, redis_client
):
    """The snapshot is not rewritten at every append (SNAPSHOT_INTERVAL): a load returns it with the
    events after it, in the same MULTI when they are at most ``tail``, else read after it."""
    started_game(store)  # snapshot at version 2
    for expected in range(2, 7):
        result = store.append(
            GAME, expected_version=expected, events=[{"type": f"e{expected + 1}"}], snapshot=None
        )
        assert (result.outcome, result.version) == ("ok", expected + 1)
    assert orjson.loads(redis_client.get(game_keys(GAME).snapshot)) == {"version": 2, "state": {"n": 2}}
    for tail in (16, 2):  # within one read; beyond it (a second read)
        loaded = store.load(GAME, tail=tail)
        assert loaded.snapshot == {"version": 2, "state": {"n": 2}} and loaded.version == 7
        assert [(e.version, e.event["type"]) for e in loaded.tail] == [(v, f"e{v}") for v in range(3, 8)]
    conflict = append(store, 2)
    assert conflict.outcome == "conflict" and conflict.version == 7
    assert [e.version for e in conflict.tail if e.version > conflict.snapshot["version"]] == [3, 4, 5, 6, 7]


def test_stale_append_is_a_conflict_carrying_the_current_snapshot(store, redis_client):
    started_game(store)
    assert append(store, 2).outcome == "ok"
    before = redis_client.xlen(game_keys(GAME).events)
    conflict = append(store, 2)
    assert conflict.outcome == "conflict" and conflict.version == 3
    assert conflict.snapshot == {"version": 3, "state": {"n": 3}}
    assert redis_client.xlen(game_keys(GAME).events) == before


def test_append_checks_the_seat_token_hash(store, redis_client):
    started_game(store)
    assert append(store, 2, seat=0, token_hash="hash1").outcome == "bad_token"
    assert append(store, 2, seat=5, token_hash="hash0").outcome == "bad_token"
    assert redis_client.xlen(game_keys(GAME).events) == 2
    assert append(store, 2, seat=0, token_hash="hash0").outcome == "ok"


def test_idempotency_replays_same_fingerprint_and_refuses_another(store, redis_client):
    started_game(store)
    first = append(
        store, 2, idempotency_field="0:k", fingerprint="f1", response={"status": 200, "body": {"v": 3}}
    )
    assert first.outcome == "ok"
    replay = append(
        store, 3, idempotency_field="0:k", fingerprint="f1", response={"status": 200, "body": {"v": 99}}
    )
    assert replay.outcome == "replay" and replay.response == {"status": 200, "body": {"v": 3}}
    # Even with a stale version the retry is answered from the key, not as a conflict.
    assert append(store, 2, idempotency_field="0:k", fingerprint="f1").outcome == "replay"
    assert append(store, 3, idempotency_field="0:k", fingerprint="f2").outcome == "idem_mismatch"
    assert redis_client.xlen(game_keys(GAME).events) == 3
    assert redis_client.ttl(game_keys(GAME).idem) > 0
    assert store.get_idempotent(GAME, "0:k") == ("f1", {"status": 200, "body": {"v": 3}})


def test_append_to_an_open_or_missing_game_is_refused(store):
    open_game(store)
    result = append(store, 0)
    assert result.outcome == "not_active" and result.status == "open"
    assert (
        store.append("01m8kknrfm9ccccccccc", expected_version=0, events=[{}], snapshot={}).outcome
        == "not_found"
    )


def test_all_keys_of_a_game_share_one_hash_tag(store, redis_client):
    started_game(store)
    append(store, 2, idempotency_field="0:k", fingerprint="f")
    game_keys_found = [k.decode() for k in redis_client.keys("game:*")]
    assert len(game_keys_found) == 6
    assert all(f"{{g:{GAME}}}" in key for key in game_keys_found)


def test_index_lists_newest_first_by_status_and_moves_between_statuses(store):
    ids = [f"01m8kknrfm9aaaaaaaa{c}" for c in "abcde"]
    for game_id in ids:
        store.index.add(game_id, "toy", "open")
    store.index.add(ids[1], "toy", "active")
    store.index.add(ids[1], "toy", "active")  # idempotent
    assert store.index.ids(limit=3) == ids[::-1][:3]
    assert store.index.ids(before=ids[2], limit=10) == [ids[1], ids[0]]
    assert store.index.ids(status="active") == [ids[1]]
    assert ids[1] not in store.index.ids(status="open")
    assert store.index.ids(status="open", name="toy", limit=2) == [ids[4], ids[3]]
    assert store.index.ids(name="other") == []
    # Games indexed before the set of engines existed: the engines the service knows are listed too
    store.redis.delete("games:index:names")
    assert store.index.ids(limit=3) == []
    store.index.engine_names = ("toy",)
    assert store.index.ids(limit=3) == ids[::-1][:3]
    # Across engines: each engine's newest, merged by id
    other = "01m8kknrfm9aaaaaaaacz"
    store.index.add(other, "other", "open")
    assert store.index.ids(limit=3) == [ids[4], ids[3], other]
    assert store.index.ids(status="open", before=ids[3], limit=2) == [other, ids[2]]


def test_an_append_is_one_round_trip_and_one_evalsha(store, redis_client):
    started_game(store)
    append(store, 2)  # loads the script (NOSCRIPT once) so the measured call is warm
    before = command_calls(redis_client)
    with count_round_trips(redis_client) as trips:
        assert (
            append(store, 3, events=[{"type": "a"}, {"type": "b"}], seat=0, token_hash="hash0").outcome
            == "ok"
        )
    delta = calls_delta(before, command_calls(redis_client))
    assert trips.count == 1 and trips.names == ["EVALSHA"]
    assert delta["evalsha"] == 1 and delta["xadd"] == 2 and delta["set"] == 1


def test_an_append_that_records_follow_up_work_sends_its_hint_in_the_same_pipeline(store, redis_client):
    """The append script and the hint that the game's slot holds follow-up work (``store.outbox``)
    go out together: one round trip on a single server. On a cluster the hint's key lives in its
    own slot: one round trip per master involved (two when the game's slot and the hints' slot are
    on different masters), still both sent before either answer is read."""
    from store.outbox import HINTS, slot_of

    started_game(store)
    append(store, 2, followups={"archive": 3})  # warm: the script loaded, both nodes connected
    with count_round_trips(redis_client) as trips:
        result = append(store, 3, followups={"archive": 4})
    assert result.outcome == "ok"
    assert sorted(trips.names) == ["EVALSHA", "ZADD"], trips.commands
    if isinstance(redis_client, redis.cluster.RedisCluster):
        game_node = redis_client.get_node_from_key(game_keys(GAME).events)
        hints_node = redis_client.get_node_from_key(HINTS)
        assert trips.count == (1 if game_node.name == hints_node.name else 2)
    else:
        assert trips.count == 1
    assert redis_client.zscore(HINTS, str(slot_of(GAME))) is not None


def test_iter_all_events_pages_through_a_long_log(store):
    from store import iter_all_events

    started_game(store)
    for version in range(2, 27):
        assert append(store, version).outcome == "ok"
    versions = [entry.version for entry in iter_all_events(store, GAME, page=4)]
    assert versions == list(range(1, 28))


def test_wait_events_blocks_until_an_append_or_the_timeout(store):
    import threading
    import time

    started_game(store)
    start = time.monotonic()
    assert store.wait_events(GAME, after=2, block_ms=150) == []
    assert time.monotonic() - start >= 0.14
    assert [e.version for e in store.wait_events(GAME, after=0, block_ms=150)] == [1, 2]
    timer = threading.Timer(0.1, append, args=(store, 2))
    timer.start()
    woken = store.wait_events(GAME, after=2, block_ms=5000)
    timer.join()
    assert [e.version for e in woken] == [3]
