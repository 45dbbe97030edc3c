"""The analysis of a finished game (replays/analysis.py): judgements from the decider's information
set, the stored form, and what it reveals."""

from __future__ import annotations

from bots import choose_move, seeded_rng
from bots.search import Budget
from games import get_game
from games.base import fold
from replays import analysis

BUDGET = Budget(iterations=150, rollout_moves=40)
# Found by a search over heuristic games (3 players, seeds 1..11): in game 8, at version 96, seat 1
# holds two 4s in the battle for a region that would be its fourth, and the others hold no answer.
SEED, VERSION, SEAT = 8, 96, 1


def _game_with_planted_pass():
    """A 3-player Condottiere game of heuristic bots, except that at ``VERSION`` seat ``SEAT``
    passes; the bots then play on to the end. A complete log the rules accept."""
    game = get_game("condottiere")
    events = game.start(game.configure({"players": 3, "seed": SEED}))
    state = fold(game, events)
    n = 0
    while not game.is_over(state):
        seat = game.awaiting(state)[0]
        view = game.view(state, seat)
        command = choose_move("condottiere", "heuristic", view, seeded_rng("f", SEED, n, seat))
        if len(events) == VERSION:
            assert seat == SEAT and {"type": "pass"} in view["legal_moves"]
            command = {"type": "pass"}
        new = game.decide(state, seat, command)
        events += new
        state = fold(game, new, state)
        n += 1
    return game, events


def test_bat_3_vic_2_a_planted_pass_of_the_winning_battle_is_judged_a_blunder():
    """BAT-3 (a pass leaves the battle for good), VIC-2/VIC-3 (a fourth region wins a 3-player
    game): seat 1 owns three regions, fights for a fourth with two Mercenaries of strength 4 in
    hand, and passes. The analysis, from seat 1's information set, finds playing a card better by
    a blunder's margin."""
    game, events = _game_with_planted_pass()
    assert game.verify_log(events) is None
    state = fold(game, events[:VERSION])
    assert sum(1 for owner in state.owners if owner == SEAT) == 3
    assert state.hands[SEAT] == ("m4", "m4")
    rows = analysis.analyse(game, events, BUDGET, versions={VERSION})
    assert [row.version for row in rows] == [VERSION]
    document = analysis.document(game, events, rows, 3)
    judged = document["decisions"][0]
    assert judged["played"] == {"type": "pass"} and judged["best_move"]["type"] == "play"
    assert judged["judgement"] == "blunder", judged
    assert judged["loss"] >= document["thresholds"]["blunder"]
    assert document["seats"][SEAT]["blunder"] == 1
    assert document["seats"][SEAT]["accuracy"] < 60


def test_thresholds_are_shares_of_the_fair_chance():
    """Four players: fair share 0.25, so 0.05, 0.10 and 0.15 (Lichess's 0.1/0.2/0.3 at 0.5)."""
    assert analysis.judgement(0.049, 4) is None
    assert analysis.judgement(0.05, 4) == "inaccuracy"
    assert analysis.judgement(0.12, 4) == "mistake"
    assert analysis.judgement(0.15, 4) == "blunder"
    assert analysis.judgement(0.15, 2) == "inaccuracy"
    assert analysis.move_accuracy(0.0, 4) > 99.9 and analysis.move_accuracy(0.3, 4) < 10


def test_the_stored_form_is_compact_and_reads_back():
    game, events = _game_with_planted_pass()
    rows = analysis.analyse(
        game, events, Budget(iterations=20, rollout_moves=20), versions=set(range(80, 120))
    )
    data = analysis.encode(rows, 3)
    assert analysis.decode(data) == (3, rows)
    assert len(data) < 40 * len(rows) + 64
