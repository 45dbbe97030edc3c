"""A started game created under an id fixed before it exists (``store.bound_games``): the one
script behind a matched table of seeks, a tournament table, a ladder pairing and a rematch."""

from __future__ import annotations

import pytest

from games import get_game
from service import composition
from service.bound_start import bound_start
from service.bound_tables import create_table_game
from service.games import start_meta
from service.ids import new_game_id
from store import game_keys, parts
from store.outbox import HINTS, slot_of


@pytest.fixture()
def service(redis_server):
    svc = composition.game_service_at(redis_server.url)
    yield svc
    svc.store.redis.close()


def _table(game_id: str):
    game = get_game("condottiere")
    config = game.configure({"players": 3, "seed": 7})
    seats = {seat: {"name": f"P{seat}", "level": "random"} for seat in range(3)}
    return config, seats, start_meta(game, config, game_id, 3, rated=False, clock=None, more={})


def test_a_second_creation_writes_nothing_answers_the_game_and_hints_its_slot_again(service, redis_client):
    """The first attempt writes the started game; a second one (the process that made it killed
    after its script, before its hint reached the slot) writes nothing, answers the existing game's
    status and version, and hints the game's slot again, so the follow-ups the first recorded are
    found without waiting for the sweeper's full scan."""
    game_id = new_game_id()
    config, seats, meta = _table(game_id)
    assert create_table_game(service.store, game_id, config, seats, meta).made
    keys = game_keys(game_id)
    written = redis_client.xlen(keys.events)
    stored_meta = redis_client.hgetall(keys.meta)
    assert written > 0 and redis_client.hlen(keys.seats) == 3
    redis_client.zrem(HINTS, str(slot_of(game_id)))  # the first attempt's hint never sent

    config, seats, meta = _table(game_id)
    start = bound_start(meta, config, seats, {})
    again = parts.bound_games(service.store).create_if_absent(
        game_id,
        config=config,
        token_hashes={seat: f"other{seat}" for seat in seats},
        snapshot=start["snapshot"],
        meta=start["meta"],
        genesis=start["genesis"],
        followups=start["followups"],
    )

    assert (again.made, again.status, again.version) == (False, "active", written)
    assert redis_client.xlen(keys.events) == written
    assert redis_client.hgetall(keys.meta) == stored_meta
    assert not any(h.startswith(b"other") for h in redis_client.hvals(keys.seats))
    assert redis_client.zscore(HINTS, str(slot_of(game_id))) is not None
