"""Clocks (issue 14): a time control at creation, remaining time in summaries, views and streams, and
the timeout the enforcer applies at a deadline (the engine's policy, RL-X19; after too many
timeouts the seat is handed to the random bot). Enforcement here runs in-process with an explicit
``now``; tests/bots/test_clock_enforcer.py runs the real enforcer processes against the clock."""

from __future__ import annotations

import time

import pytest
from rq import Queue

from games.condottiere import GAME
from service import clocks
from store import GameStore
from store.game_logs import iter_all_events
from worker.clocks import enforce_due


def _timed_game(client, **control) -> tuple[str, list[str]]:
    created = client.post(
        "/v1/games",
        json={
            "game": "condottiere",
            "config": {"players": 2, "seed": 42},
            "clock": {"move_seconds": 60, **control},
        },
    )
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    tokens = [
        client.post(f"/v1/games/{game_id}/seats", json={"name": name}).get_json()["token"]
        for name in ("Ann", "Bob")
    ]
    return game_id, tokens


def _log(redis_server, game_id: str) -> list[dict]:
    return [entry.event for entry in iter_all_events(GameStore(redis_server.client()), game_id)]


def test_advance_charges_the_bank_beyond_the_move_time_and_adds_the_increment():
    ctrl = clocks.control({"move_seconds": 2, "bank_seconds": 10, "increment_seconds": 1})
    clock = clocks.advance(clocks.new_state(ctrl, 2), 1_000, awaiting=[0], humans=[0, 1])
    assert clock["deadlines"] == {"0": 1_000 + 2_000 + 10_000}  # the move time, then the bank
    clock = clocks.advance(clock, 1_000 + 5_000, awaiting=[1], humans=[0, 1], acted=0)
    assert clock["banks"] == [10_000 - 3_000 + 1_000, 10_000]  # 3 s beyond the move time, +1 s
    assert clock["deadlines"] == {"1": 6_000 + 2_000 + 10_000}
    clock = clocks.advance(clock, 20_000, awaiting=[0], humans=[0, 1], timed_out=1)
    assert clock["banks"][1] == 0 and clock["timeouts"] == [0, 1]


def test_only_awaited_human_seats_run_against_the_clock():
    ctrl = clocks.control({"move_seconds": 5})
    clock = clocks.advance(clocks.new_state(ctrl, 3), 0, awaiting=[0, 1, 2], humans=[0, 2])
    assert clock["deadlines"] == {"0": 5_000, "2": 5_000} and clock["banks"] is None
    assert clocks.overdue(clock, 4_999) == [] and clocks.overdue(clock, 5_000) == [0, 2]


@pytest.mark.parametrize(
    "control",
    [{}, {"move_seconds": 0.5}, {"move_seconds": 10, "increment_seconds": 1}, {"move_seconds": 10, "x": 1}],
)
def test_an_invalid_time_control_is_refused(client, control):
    body = {"game": "condottiere", "config": {"players": 2}, "clock": control}
    refused = client.post("/v1/games", json=body)
    assert refused.status_code == 422 and refused.get_json()["code"] in ("VALIDATION_ERROR", "INVALID_CLOCK")


def test_a_game_without_a_timeout_policy_cannot_be_timed(client):
    refused = client.post("/v1/games", json={"game": "toy", "clock": {"move_seconds": 10}})
    assert refused.status_code == 422 and refused.get_json()["code"] == "NOT_SUPPORTED"


def test_summary_and_views_show_the_awaited_seats_remaining_time(client):
    before = int(time.time() * 1000)
    game_id, tokens = _timed_game(client)
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["awaiting"] == [1]
    seats = summary["clock"]["seats"]
    assert seats[0]["deadline_ms"] is None and seats[0]["remaining_ms"] is None
    assert before + 60_000 <= seats[1]["deadline_ms"] <= int(time.time() * 1000) + 60_000
    assert 0 < seats[1]["remaining_ms"] <= 60_000
    view = client.get(
        f"/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {tokens[0]}"}
    ).get_json()
    assert view["clock"]["seats"][1]["deadline_ms"] == seats[1]["deadline_ms"]
    # The move restarts the clock for the next awaited seat and stops the mover's.
    moved = client.post(
        f"/v1/games/{game_id}/moves",
        headers={"Authorization": f"Bearer {tokens[1]}"},
        json={"command": {"type": "place_token", "region": "Torino"}},
    ).get_json()
    after = client.get(f"/v1/games/{game_id}").get_json()["clock"]["seats"]
    awaited = moved["view"]["view"]["awaiting"]
    assert [s["seat"] for s in after if s["deadline_ms"] is not None] == awaited


def test_rl_x19_a_seat_past_its_deadline_times_out_with_the_default_move(client, svc, redis_server):
    """RL-X19: the enforcer applies nothing before the deadline; at it, the awaited seat (the token
    holder) places the token on the first region it may choose; the log verifies."""
    game_id, _ = _timed_game(client)
    deadline = client.get(f"/v1/games/{game_id}").get_json()["clock"]["seats"][1]["deadline_ms"]
    assert enforce_due(svc, now_ms=deadline - 1) == []
    applied = enforce_due(svc, now_ms=deadline)
    assert [(t["game_id"], t["seat"]) for t in applied] == [(game_id, 1)]
    log = _log(redis_server, game_id)
    timed_out = next(i for i, e in enumerate(log) if e["type"] == "seat_timed_out")
    assert log[timed_out] == {"type": "seat_timed_out", "v": 1, "seat": 1}
    assert log[timed_out + 1]["type"] == "token_placed" and log[timed_out + 1]["seat"] == 1
    assert GAME.verify_log(log) is None
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["clock"]["seats"][1]["timeouts"] == 1 and summary["seats"][1]["kind"] == "human"
    assert enforce_due(svc, now_ms=deadline) == []  # applied once


def test_too_many_timeouts_hand_the_seat_to_the_random_bot(client, svc, redis_server, queue_client):
    game_id, tokens = _timed_game(client, timeouts_to_bot=1)
    deadline = client.get(f"/v1/games/{game_id}").get_json()["clock"]["seats"][1]["deadline_ms"]
    enforce_due(svc, now_ms=deadline)
    log = _log(redis_server, game_id)
    assert {"type": "seat_handed_to_bot", "v": 1, "seat": 1, "level": "random"} in log
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["seats"][1]["kind"] == "bot" and summary["seats"][1]["bot"] == "random"
    assert all(s["deadline_ms"] is None for s in summary["clock"]["seats"] if s["seat"] == 1)
    assert GAME.verify_log(log) is None
    if 1 in summary["awaiting"]:  # the bot is due: its turn was enqueued like any bot seat's
        assert Queue("bots", connection=queue_client).count >= 1
    # The seat's token moves it no more: a stable refusal, nothing changed.
    refused = client.post(
        f"/v1/games/{game_id}/moves",
        headers={"Authorization": f"Bearer {tokens[1]}"},
        json={"command": {"type": "pass"}},
    )
    assert refused.status_code == 422 and refused.get_json()["code"] == "SEAT_HANDED_TO_BOT"
    assert client.get(f"/v1/games/{game_id}").get_json()["version"] == summary["version"]


def test_rl_x19_a_time_control_may_hand_a_timed_out_seat_to_the_expert(client, svc, redis_server):
    """RL-X19: the control names the level that takes the seat over (``timeout_bot``); a level the
    game does not offer is refused."""
    game_id, _ = _timed_game(client, timeouts_to_bot=1, timeout_bot="expert")
    deadline = client.get(f"/v1/games/{game_id}").get_json()["clock"]["seats"][1]["deadline_ms"]
    enforce_due(svc, now_ms=deadline)
    log = _log(redis_server, game_id)
    assert {"type": "seat_handed_to_bot", "v": 1, "seat": 1, "level": "expert"} in log
    assert client.get(f"/v1/games/{game_id}").get_json()["seats"][1]["bot"] == "expert"
    body = {"game": "condottiere", "config": {"players": 2}, "clock": {"move_seconds": 9, "timeout_bot": "x"}}
    refused = client.post("/v1/games", json=body)
    assert refused.status_code == 422 and refused.get_json()["code"] == "INVALID_CLOCK"


def test_the_stream_of_a_timed_game_sends_the_clock(client):
    game_id, _ = _timed_game(client)
    response = client.get(f"/v1/games/{game_id}/stream", buffered=False)
    first = b""
    for chunk in response.response:
        first += chunk
        if b"event: clock" in first:
            break
    response.close()
    assert b"event: clock" in first and b'"deadline_ms"' in first
