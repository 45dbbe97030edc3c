"""A game's snapshot is a cache of the fold of its log: rewritten when a change crosses a multiple
of SNAPSHOT_INTERVAL versions and at every change of status, not at every move; whoever loads the
game folds the events after it."""

from __future__ import annotations

import orjson

from store import SNAPSHOT_INTERVAL, game_keys
from tests.api.conftest import Table
from tests.api.test_stream import next_move
from tests.redis_metrics import calls_delta, command_calls


def test_the_snapshot_follows_the_interval_and_the_end_and_a_cold_process_folds_what_is_after_it(
    app, client, redis_client
):
    from api import create_app

    table = Table(client, hand_size=20)
    cold = create_app({"REDIS_URL": app.config["REDIS_URL"]}).test_client()  # its own cache
    snapshot_key = game_keys(table.id).snapshot
    expected = orjson.loads(redis_client.get(snapshot_key))["version"]  # the start's
    crossed = False
    while (move := next_move(table)) is not None:
        before = command_calls(redis_client)
        moved = table.move(*move)
        assert moved.status_code == 200
        version = moved.get_json()["version"]
        finished = table.view(0)["status"] == "finished"
        crosses = version // SNAPSHOT_INTERVAL != (version - 1) // SNAPSHOT_INTERVAL
        crossed = crossed or crosses
        if crosses or finished:
            expected = version
        assert orjson.loads(redis_client.get(snapshot_key))["version"] == expected
        if not finished:  # (the end's follow-ups SET keys of their own)
            assert calls_delta(before, command_calls(redis_client)).get("set", 0) == (1 if crosses else 0)
        for seat in (0, 1):
            answer = cold.get(f"/v1/games/{table.id}/view", headers=table.auth(seat))
            assert answer.get_json() == table.view(seat), version
    assert crossed and expected == table.view(0)["version"]  # the finished game's snapshot is its end
