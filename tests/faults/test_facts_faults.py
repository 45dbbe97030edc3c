"""The analytical store's append survives a kill: a process SIGKILLed between two of a game's
Parquet files (``service.facts``, FAULT_POINT ``facts_wrote_<table>``) leaves the ``facts``
follow-up pending; the janitor runs it again, and the game is in the store once, whole (no double,
no gap)."""

from __future__ import annotations

import signal

import pytest

from service.facts import fact_store
from store.outbox import Outbox
from tests.faults.test_crash_points import actor, janitor, recover, worker  # noqa: F401  (fixtures)


def _rows(table: str, game_id: str) -> int:
    con = fact_store().connect()
    try:
        return con.execute(f"SELECT count(*) FROM {table} WHERE game_id = ?", [game_id]).fetchone()[0]
    finally:
        con.close()


@pytest.mark.parametrize("point", ["facts_wrote_decisions", "facts_wrote_seats"])
def test_killed_between_a_games_fact_files(service, janitor, worker, redis_server, point):  # noqa: F811
    game_id = service.create_game("toy", {"seed": 4, "hand_size": 1})["id"]
    worker()
    done = actor(redis_server.url, point, "finish-toy", game_id)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    client = service.store.redis
    assert "facts" in Outbox(client).pending(game_id)
    assert _rows("seats", game_id) in (0, 2) and _rows("games", game_id) == 0  # a reader sees no game yet
    recover(janitor, lambda: "facts" not in Outbox(client).pending(game_id))
    assert _rows("games", game_id) == 1
    assert _rows("seats", game_id) == 2
    fact_store().compact()
    assert _rows("games", game_id) == 1 and _rows("seats", game_id) == 2


def test_the_web_process_leaves_the_facts_to_the_janitor(service, janitor, worker):  # noqa: F811
    """A web process (``composition.Settings(facts=False)``) finishes a game without folding its log
    into facts; the janitor writes them after the grace period."""
    from service import composition
    from tests.facts.played import play_games

    web = composition.game_service_on(service.store, facts=False)
    worker()
    (game_id,) = play_games(web, "condottiere", 1, seed=21)
    client = service.store.redis
    assert "facts" in Outbox(client).pending(game_id) and _rows("games", game_id) == 0
    recover(janitor, lambda: "facts" not in Outbox(client).pending(game_id))
    assert _rows("games", game_id) == 1 and _rows("seats", game_id) == 2
