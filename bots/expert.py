"""The ``expert`` level: a bot that searches (``bots/search.py``, SO-ISMCTS) from its seat's
information set, for every game with the search hooks (``games.base.SearchHooks``).

A search needs the table's bookkeeping that a seat's view does not spell out (Condottiere's idle
battle count, who passed...), so where the platform holds the state (the server's bot turns, the
clock's take-overs, the local simulator) it hands the state with the view (``choose_in``), and the
game's ``determinize`` erases everything the seat may not see before anything is sampled. A client
that holds only a view (``condottiere play --auto expert`` against a remote server) gets the
fallback level instead, the game's heuristic bot when it has one.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from bots.search import Budget, search
from games import get_game

# Play's default: at most one second per decision on one core, and an iteration cap (Condottiere
# makes about 1000 iterations a CPU second with guided playouts, 1300 with uniform ones; Rio de la
# Plata about 200 with either at 40 playout moves, 700 at 10).
DEFAULT_BUDGET = Budget(iterations=1500, seconds=1.0, rollout_moves=40)


class ExpertBot:
    level = "expert"

    def __init__(self, game_name: str, fallback: Any, budget: Budget = DEFAULT_BUDGET):
        self.game_name = game_name
        self.fallback = fallback
        self.budget = budget

    def choose(self, view: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """Without the state: the fallback level (see the module's docstring)."""
        move: dict[str, Any] = self.fallback.choose(view, rng)
        return move

    def choose_in(self, state: Any, seat: int, rng: random.Random) -> dict[str, Any]:
        """The move the search prefers for ``seat`` from its information set in ``state``."""
        game = get_game(self.game_name)
        moves = game.legal_moves(state, seat)
        if len(moves) == 1:
            return dict(moves[0])
        candidates = game.expert_candidates(state, seat, moves)  # type: ignore[attr-defined]
        if len(candidates) == 1:
            return dict(candidates[0])
        narrowed = None if len(candidates) == len(moves) else candidates
        return dict(search(game, state, seat, rng, self.budget, candidates=narrowed).best)
