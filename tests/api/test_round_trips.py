"""Redis cost of requests, counted on the wire (behaviour, not timing): an accepted move with a warm
per-process cache is exactly one round trip, the append script's EVALSHA."""

from __future__ import annotations

from tests.api.conftest import Table
from tests.redis_metrics import calls_delta, command_calls, count_round_trips


def test_accepted_move_is_one_round_trip_evalsha_only(client, redis_client):
    table = Table(client, hand_size=5)
    hand0 = table.view(0)["view"]["hand"]
    hand1 = table.view(1)["view"]["hand"]
    assert table.move(0, {"type": "play", "card": hand0[0]}).status_code == 200  # warms script + cache
    before = command_calls(redis_client)
    with count_round_trips(redis_client) as trips:
        response = table.move(1, {"type": "play", "card": hand1[0]}, headers={"Idempotency-Key": "rt-1"})
    assert response.status_code == 200
    assert trips.count == 1 and trips.names == ["EVALSHA"]
    delta = calls_delta(before, command_calls(redis_client))
    assert delta.pop("evalsha") == 1
    # Inside the script: token HGET, idempotency HGET, meta HMGET, XADD, HSET meta, HSET + EXPIRE
    # idem; no SET: the snapshot (version 3, the start) is rewritten only at version 16.
    assert delta == {"hget": 2, "hmget": 1, "xadd": 1, "hset": 2, "expire": 1}


def test_stale_cache_costs_a_conflict_and_a_retry_not_a_wrong_answer(app, client, redis_client):
    """Another process moved meanwhile. A command the stale state accepts: the script reports the
    conflict with the stored snapshot and the events after it, the service brings the game up to
    date from them, re-decides and appends (two EVALSHA, no read). A command the stale state
    refuses: the refusal is not trusted, the game is reloaded (one MULTI read) and the command
    decided again."""
    from api import create_app

    table = Table(client, hand_size=5)
    other = create_app({"REDIS_URL": app.config["REDIS_URL"]}).test_client()
    hand0 = table.view(0)["view"]["hand"]
    hand1 = table.view(1)["view"]["hand"]  # this process caches version 3
    for seat, card in ((0, hand0[0]), (1, hand1[0])):
        moved = other.post(
            f"/v1/games/{table.id}/moves",
            json={"command": {"type": "play", "card": card}},
            headers=table.auth(seat),
        )
        assert moved.status_code == 200
    with count_round_trips(redis_client) as trips:
        response = table.move(0, {"type": "play", "card": hand0[1]})
    assert response.status_code == 200 and response.get_json()["version"] == 6
    assert trips.names == ["EVALSHA", "EVALSHA"]

    other.post(
        f"/v1/games/{table.id}/moves",
        json={"command": {"type": "play", "card": hand1[1]}},
        headers=table.auth(1),
    )
    with count_round_trips(redis_client) as trips:
        response = table.move(0, {"type": "play", "card": hand0[2]})  # stale cache: "not your turn"
    assert response.status_code == 200 and response.get_json()["version"] == 8
    # the reload is one MULTI: meta, seats, snapshot, the compact log (absent while it runs) and the
    # last events (those after the snapshot are folded into it)
    assert trips.names == ["MULTI", "HGETALL", "HGETALL", "GET", "GET", "XREVRANGE", "EXEC", "EVALSHA"]


def test_cached_view_is_one_round_trip(client, redis_client):
    table = Table(client)
    table.view(0)
    with count_round_trips(redis_client) as trips:
        table.view(0)
    assert trips.count == 1 and trips.names == ["HMGET"]
