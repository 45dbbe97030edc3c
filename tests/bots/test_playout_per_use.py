"""Which playouts a search plays depends on its use (games.base.SearchHooks.analysis_budget): the
expert bot of Rio de la Plata plays the guided, heuristic-scored playouts
(games/rio_de_la_plata/playout.py), and a finished game's analysis keeps the uniform ones, which a
whole game's analysis can afford (bench/README.md). Condottiere's analysis plays its guided ones."""

from __future__ import annotations

import dataclasses
import random

import pytest

from bots.expert import DEFAULT_BUDGET, ExpertBot
from bots.search import search
from games import get_game
from games.base import fold
from games.rio_de_la_plata import bots as rio_bots
from replays import analysis


@pytest.fixture
def scored(monkeypatch):
    """Counts the heuristic's move scores, which Rio's guided playouts read and its uniform ones never."""
    calls = [0]
    heuristic = rio_bots.HEURISTIC
    original = type(heuristic).score

    def counted(self, *args, **kwargs):
        calls[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(heuristic), "score", counted)
    return calls


def _rio_decision():
    """A 4-player Rio de la Plata state at a decision of more than one move, and its seat."""
    game = get_game("rio_de_la_plata")
    state = fold(game, game.start(game.configure({"players": 4, "seed": 46})))
    rng = random.Random(46)
    while len(game.legal_moves(state, game.awaiting(state)[0])) < 2:
        seat = game.awaiting(state)[0]
        state = game.advance(state, seat, game.playout_move(state, seat, rng))
    return game, state, game.awaiting(state)[0]


def test_the_rio_expert_bot_plays_guided_playouts(scored):
    game, state, seat = _rio_decision()
    bot = ExpertBot("rio_de_la_plata", None, dataclasses.replace(DEFAULT_BUDGET, iterations=8, seconds=None))
    move = bot.choose_in(state, seat, random.Random(1))
    assert move in game.legal_moves(state, seat)
    assert scored[0] > 0


def test_the_rio_analysis_keeps_uniform_playouts(scored):
    game, state, seat = _rio_decision()
    budget = analysis.default_budget(game)
    assert (budget.iterations, budget.rollout_moves, budget.playout) == (60, 10, "uniform")
    search(game, state, seat, random.Random(1), dataclasses.replace(budget, iterations=8), observer=None)
    assert scored[0] == 0


def test_the_condottiere_analysis_plays_guided_playouts():
    budget = analysis.default_budget(get_game("condottiere"))
    assert (budget.iterations, budget.rollout_moves, budget.playout) == (100, 30, "guided")


@pytest.mark.parametrize(
    ("game_name", "playout"), [("rio_de_la_plata", "uniform"), ("condottiere", "guided")]
)
def test_an_operators_analysis_budget_keeps_the_games_playouts(monkeypatch, game_name, playout):
    """``ANALYSIS_ITERATIONS`` sets one budget for every game; its playout policy stays each game's."""
    from worker.jobs import analysis_budget

    monkeypatch.setenv("ANALYSIS_ITERATIONS", "20")
    monkeypatch.setenv("ANALYSIS_ROLLOUT", "7")
    budget = analysis.budget_for(get_game(game_name), analysis_budget())
    assert (budget.iterations, budget.rollout_moves, budget.playout) == (20, 7, playout)
