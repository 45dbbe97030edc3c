"""Property tests over random legal games with 3, 4 and 5 players, played to the end.

Example counts are small by default (a whole game is about 2,000 decisions); raise them with
``RIO_EXAMPLES=n``."""

from __future__ import annotations

import json
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.base import CommandError, fold
from games.rio_de_la_plata import GAME
from games.rio_de_la_plata.rules import evolve

from .helpers import new_game, people_of

EXAMPLES = int(os.environ.get("RIO_EXAMPLES", "1"))


def _check_conservation(state) -> None:
    board = state.board
    for seat in range(state["n"]):
        assert people_of(state, seat) == board.people, f"seat {seat} people"
        p = state["p"][seat]
        for name in ("silver", "stone", "wood", "luxury", "vp", "supply", "huts"):
            assert p[name] >= 0, f"seat {seat} {name}"
        placed_huts = sum(
            1 for c in state["city"].values() if c["b"] in ("hut", "house") and c["own"] == seat
        )
        assert p["huts"] + placed_huts <= board.hut_tiles
    for pool, count in board.tile_pools.items():
        on_board = sum(1 for c in state["city"].values() if c["pool"] == pool)
        assert state["tiles"][pool] + on_board <= count and state["tiles"][pool] >= 0
    assert state["sections"] + len(state["walls"]) + len(state["roads"]) == board.sections
    owners = [c["owner"] for c in state["chars"].values() if c["owner"] is not None]
    assert len(owners) + len(state["spots"]) <= 12


def _run(players: int, seed: int) -> None:
    state, log = new_game(players, seed)
    rng = random.Random(seed)
    steps = 0
    while not GAME.is_over(state):
        awaited = GAME.awaiting(state)
        assert len(awaited) == 1
        seat = awaited[0]
        moves = GAME.legal_moves(state, seat)
        assert moves, "a player is awaited but has no legal move"
        assert len(moves) <= 400, f"legal_moves stays small ({len(moves)})"
        for other in range(players):
            if other != seat:
                assert GAME.legal_moves(state, other) == []
                with pytest.raises(CommandError):
                    GAME.decide(state, other, moves[0])
        if steps % 25 == 0:  # legal_moves == the set decide accepts (sampled)
            for move in rng.sample(moves, min(5, len(moves))):
                GAME.decide(state, seat, move)
            bogus = dict(moves[0], type=moves[0]["type"] + "_x")
            with pytest.raises(CommandError):
                GAME.decide(state, seat, bogus)
            if "cell" in moves[0]:
                far = dict(moves[0], cell=[99, 99])
                with pytest.raises(CommandError):
                    GAME.decide(state, seat, far)
        events = GAME.decide(state, seat, rng.choice(moves))
        for event in events:
            state = evolve(state, event)
            _check_conservation(state)
        log += events
        steps += 1
        assert steps < 50_000, "the game terminates"
        if steps % 400 == 0:
            snapshot = json.loads(json.dumps(GAME.state_to_json(state)))
            assert GAME.state_from_json(snapshot) == state
    assert fold(GAME, log) == state
    assert GAME.verify_log(log) is None
    snapshot = json.loads(json.dumps(GAME.state_to_json(state)))
    assert GAME.state_from_json(snapshot) == state
    result = GAME.result(state)
    assert result is not None and result["winners"]
    assert result["vp"] == [p["vp"] for p in state["p"]]
    for seat in range(players):  # VP by source add up to the total (no VP lost or invented)
        assert sum(state["p"][seat]["vp_by"].values()) == state["p"][seat]["vp"]


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_random_games_play_to_the_end(players, seed):
    """RIO-ROUND-1, RIO-ROUND-3, RIO-END-1: random legal games of 3, 4 and 5 players end after 20
    rounds; fold == live state; JSON round trip; verify_log accepts the log; people, tiles,
    sections and characters are conserved at every event; legal_moves is what decide accepts."""
    _run(players, seed)
