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
from games.rio_de_la_plata.bots import HEURISTIC
from games.rio_de_la_plata.rules import evolve, next_automatic
from games.rio_de_la_plata.trade import FREE_COMMANDS
from tests.hypothesis_profiles import examples

from .helpers import new_game, people_of, set_cell
from .recount import Recount, recount_vp

EXAMPLES = examples(int(os.environ.get("RIO_EXAMPLES", "1")))


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


def _accepts(state, seat, command) -> bool:
    try:
        GAME.decide(state, seat, command)
    except CommandError:
        return False
    return True


def _check_decide_accepts_exactly_the_legal_moves(state, seat, moves, rng) -> None:
    """Listed moves are accepted; variants of them (each field replaced by a value another listed
    move of that type uses, or a nonsense value) are accepted exactly when they are listed too."""
    for move in rng.sample(moves, min(5, len(moves))):
        assert _accepts(state, seat, move), move
    values: dict[str, list] = {}
    for move in moves:
        for key, value in move.items():
            if value not in values.setdefault(key, []):
                values[key].append(value)
    for move in rng.sample(moves, min(4, len(moves))):
        for key in move:
            options = values[key] + ([[99, 99]] if key == "cell" else ["_x"])
            variant = dict(move, **{key: rng.choice(options)})
            assert _accepts(state, seat, variant) == (variant in moves), variant


def _run(players: int, seed: int) -> None:
    state, log = new_game(players, seed)
    rng = random.Random(seed)
    steps = 0
    while not GAME.is_over(state):
        awaited = GAME.awaiting(state)
        assert 1 <= len(awaited) <= 2 and len(set(awaited)) == len(awaited)
        offer = state["offer"]
        assert len(awaited) == 1 or (offer and offer["sent"] and awaited[0] == offer["to"])
        seat = rng.choice(awaited)
        moves = GAME.legal_moves(state, seat)
        assert moves, "a player is awaited but has no legal move"
        assert len(moves) <= 400, f"legal_moves stays small ({len(moves)})"
        for other in range(players):
            if other not in awaited:  # RIO-RL-27: only free commands for a seat nobody waits for
                assert {m["type"] for m in GAME.legal_moves(state, other)} <= set(FREE_COMMANDS)
                with pytest.raises(CommandError):
                    GAME.decide(state, other, {"type": "end_turn"})
        if steps % 25 == 0:  # legal_moves == the set decide accepts (sampled)
            _check_decide_accepts_exactly_the_legal_moves(state, seat, moves, rng)
            bogus = dict(moves[0], type=moves[0]["type"] + "_x")
            with pytest.raises(CommandError):
                GAME.decide(state, seat, bogus)
        if rng.random() < 0.03:  # now and then a seat nobody waits for buys or trades
            seat = rng.randrange(players)
            moves = GAME.legal_moves(state, seat)
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
    assert recount_vp(log) == result["vp"], "final VP equal an independent recount from the log"
    for seat in range(players):  # VP by source add up to the total (no VP lost or invented)
        assert sum(state["p"][seat]["vp_by"].values()) == state["p"][seat]["vp"]


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_random_games_play_to_the_end(players, seed):
    """RIO-ROUND-1, RIO-ROUND-3, RIO-END-1: random legal games of 3, 4 and 5 players end after 20
    rounds; fold == live state; JSON round trip; verify_log accepts the log; people, tiles,
    sections and characters are conserved at every event; legal_moves is what decide accepts, free
    commands (RIO-RL-27: purchases and trades, from any seat) included; the final VP equal an
    independent recount from the log (RIO-END-2, RIO-END-3, RIO-END-5)."""
    _run(players, seed)


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_final_vp_equal_an_independent_recount_in_bot_games(players, seed):
    """RIO-END-2, RIO-END-3, RIO-END-5, RIO-END-6, RIO-USE-5, RIO-SHIP-9, RIO-BATTLE-34, RIO-BATTLE-35:
    random players rarely keep silver or build houses, so games with heuristic bots in some seats
    (they build houses, use churches, load the ship, fight) meet every VP source; the final VP still
    equal an independent recount from the log."""
    rng = random.Random(seed)
    heuristic = [(seat + seed) % 2 == 0 for seat in range(players)]
    state, log = new_game(players, seed)
    while not GAME.is_over(state):
        seat = rng.choice(GAME.awaiting(state))
        if heuristic[seat]:
            command = HEURISTIC.choose(GAME.view(state, seat), rng)
        else:
            command = rng.choice(GAME.legal_moves(state, seat))
        events = GAME.decide(state, seat, command)
        for event in events:
            state = evolve(state, event)
        log += events
    assert recount_vp(log) == [p["vp"] for p in state["p"]]


def test_end_3_end_5_end_6_final_scoring_equals_the_recount():
    """RIO-END-3, RIO-END-4, RIO-END-5, RIO-END-6, RIO-RL-24, RIO-RL-26: a constructed end of game (houses
    in districts with production buildings, a church, a statue, a barracks, a road to a district's
    centre, the palace, characters and silver) scores as the independent recount says."""
    state, log = new_game(3, seed=4)
    state = state.copy()
    houses = {(5, 1): 0, (4, 1): 0, (5, 2): 1, (1, 1): 2, (12, 7): 1}
    for (x, y), seat in houses.items():
        set_cell(state, (x, y), b="house", own=seat, pool="hut/house")
    for cell, b in {(6, 1): "quarry", (6, 0): "market", (4, 0): "church", (4, 2): "statue"}.items():
        set_cell(state, cell, b=b, pool="x")
    set_cell(state, (1, 2), b="barracks", pool="x")
    set_cell(state, (6, 3), b="palace")
    state["roads"] = ["7,4-7,3", "7,3-7,2", "7,2-6,2"]
    state["chars"]["road_builder"] = {"owner": 0, "from": 1580}
    state["chars"]["architect"] = {"owner": 1, "from": 1580}
    state["chars"]["merchant"] = {"owner": 2, "from": 1599}
    for seat, silver in enumerate((7, 3, 11)):
        state["p"][seat]["silver"] = silver
    state["step"] = "game_end"
    event = next_automatic(state)
    after = evolve(state, event)
    recount = Recount(3)
    recount.event(state, event, after)
    assert recount.vp == [p["vp"] for p in after["p"]]
    assert recount.vp[2] >= 12 + 3  # the Merchant counts however late it came (RIO-RL-58)
