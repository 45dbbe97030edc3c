"""When a character's benefits start (RIO-CHAR-5, RIO-RL-22, RIO-RL-58): from phase B of the round
after it was acquired, by placement and claim or by trade. The Shipowner is the one character with a
benefit in phase A (his share of a launch fee, RIO-SHIP-6, RIO-RL-19), so his is the case a phase-A
check catches; every character goes through the same door (``rules.active``)."""

from __future__ import annotations

import pytest

from games.base import fold
from games.rio_de_la_plata import GAME
from games.rio_de_la_plata.rules import active, evolve, holder, next_automatic

from .helpers import at_turn, new_game, play


def _run_automatic(state):
    for _ in range(50):
        event = next_automatic(state)
        if event is None:
            return state
        state = evolve(state, event)
    raise AssertionError("the automatic steps did not stop")


def _next_round(state):
    """From anywhere in a round, the next round's phase A (its first placement turn)."""
    state = state.copy()
    state["step"], state["turn"], state["battle"] = "round_end", 0, None
    state = _run_automatic(state)
    assert state["step"] == "A"
    return state


def _bought_shipowner(revision: int | None = None):
    """Seat ``owner`` places on the Shipowner in phase A of 1580 and pays for it in phase B."""
    config = {"players": 3, "seed": 2}
    state = fold(GAME, GAME.start(GAME.configure(config)))
    if revision is not None:  # a log recorded under an older revision of the rules
        state = state.copy()
        state["config"] = dict(state["config"], revision=revision)
    owner = GAME.awaiting(state)[0]
    state = play(state, owner, {"type": "place", "space": "character", "character": "shipowner"})
    state = at_turn(state, owner)
    state["step"], state["started"] = "B", True
    state["p"][owner].update(vp=15, silver=8, vp_by={"buildings": 15})
    state = play(state, owner, {"type": "claim", "character": "shipowner"})
    assert state["chars"]["shipowner"] == {"owner": owner, "from": 1581}
    return state, owner


def _traded_shipowner():
    """Seat ``owner`` receives the Shipowner by trade in phase A of 1580 (RIO-RL-22)."""
    state, _ = new_game(3, seed=5)
    seller, owner, _ = state["order"]
    state = state.copy()
    state["chars"]["shipowner"] = {"owner": seller, "from": 1500}
    for command in (
        {"type": "offer_open", "to": seller},
        {"type": "offer_add", "side": "give", "item": "silver"},
        {"type": "offer_add", "side": "get", "item": "shipowner"},
        {"type": "offer_send"},
    ):
        state = play(state, owner, command)
    state = play(state, seller, {"type": "offer_accept"})
    assert state["chars"]["shipowner"] == {"owner": owner, "from": 1581}
    return state, owner


def _launch(state, seat, silver):
    state = at_turn(state, seat)
    state["ship"]["in_play"] = True
    state["p"][seat]["silver"] = silver
    assert {"type": "launch"} in GAME.legal_moves(state, seat)
    return play(state, seat, {"type": "launch"})


ACQUIRED = {"bought": _bought_shipowner, "traded": _traded_shipowner}


@pytest.mark.parametrize("how", sorted(ACQUIRED))
def test_char_5_rl_22_rl_58_ship_6_shipowner_has_no_share_of_a_launch_in_phase_a_of_the_next_round(how):
    """RIO-CHAR-5, RIO-RL-22, RIO-RL-58, RIO-SHIP-6: a Shipowner acquired (bought or traded) in 1580
    counts as unheld in phase A of 1581: another player's launch pays the whole fee to the bank; in
    phase A of 1582 he receives his 1 silver of it."""
    state, owner = ACQUIRED[how]()
    state = _next_round(state)
    assert state["year"] == 1581 and holder(state, "shipowner") is None
    launcher = next(seat for seat in state["order"] if seat != owner)
    silver = state["p"][owner]["silver"]
    after = _launch(state, launcher, 2)
    assert after["p"][launcher]["silver"] == 0
    assert after["p"][owner]["silver"] == silver
    assert after["ship"]["fee_owner"] is None
    later = _next_round(state)
    assert later["year"] == 1582 and holder(later, "shipowner") == owner
    silver = later["p"][owner]["silver"]
    after = _launch(later, launcher, 2)
    assert after["p"][launcher]["silver"] == 0 and after["p"][owner]["silver"] == silver + 1


@pytest.mark.parametrize("how", sorted(ACQUIRED))
def test_char_5_rl_22_rl_58_rl_19_shipowner_pays_the_whole_fee_for_his_own_launch_in_phase_a(how):
    """RIO-CHAR-5, RIO-RL-22, RIO-RL-58, RIO-RL-19: in phase A of the round after he acquired it, a
    Shipowner launching the ship pays the whole fee (2 silver: with 1 he may not launch); from phase A
    of the round after that, only the bank's share (1 silver)."""
    state, owner = ACQUIRED[how]()
    state = _next_round(state)
    poor = at_turn(state, owner)
    poor["ship"]["in_play"] = True
    poor["p"][owner]["silver"] = 1
    assert {"type": "launch"} not in GAME.legal_moves(poor, owner)
    after = _launch(state, owner, 2)
    assert after["p"][owner]["silver"] == 0
    later = _next_round(state)
    after = _launch(later, owner, 2)
    assert after["p"][owner]["silver"] == 1


def test_char_5_rl_58_every_character_starts_in_phase_b_of_the_next_round():
    """RIO-CHAR-5, RIO-RL-58, RIO-CHAR-8, RIO-RL-23: every character (income, sections, Captain,
    Artillerist, Shipowner) goes through ``active``: not in the year it came, not in phase A of the
    next year, from the start of phase B of the next year (the resolution of major buildings, then
    the action turns) on, and in every later phase."""
    state, _ = new_game(3, seed=1)
    seat = state["order"][0]
    state = state.copy()
    for name in state["chars"]:
        state["chars"][name] = {"owner": seat, "from": 1581}
    expected = {
        (1580, "A"): False,
        (1580, "B"): False,
        (1580, "battle"): False,
        (1581, "A"): False,
        (1581, "resolve"): True,
        (1581, "B"): True,
        (1581, "B_end"): True,
        (1581, "battle"): True,
        (1582, "A"): True,
    }
    for (year, step), benefits in expected.items():
        state["year"], state["step"] = year, step
        for name in state["chars"]:
            assert active(state, name, seat) is benefits, (name, year, step)
            assert (holder(state, name) == seat) is benefits, (name, year, step)


def test_char_5_revision_1_logs_keep_the_shipowner_working_from_phase_a():
    """RIO-CHAR-5 under rules revision 1 (logs recorded before issue 28): the Shipowner's share was
    paid from phase A of the round after he came; a log of that revision folds as it was recorded."""
    state, owner = _bought_shipowner(revision=1)
    state = _next_round(state)
    launcher = next(seat for seat in state["order"] if seat != owner)
    silver = state["p"][owner]["silver"]
    after = _launch(state, launcher, 2)
    assert after["p"][owner]["silver"] == silver + 1
