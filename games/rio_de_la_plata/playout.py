"""A guided playout policy for Rio de la Plata's search (``games.base.SearchHooks.guided_move``).

A uniform playout places people on character spaces its seat cannot pay for (5 VP lost each),
leaves its huts unbuilt and walks attackers away from the buildings; the heuristic bot
(``bots.py``) scores each move with a few rules of thumb that read nothing but what its seat sees,
and Rio de la Plata hides nothing but the future, so the same scores serve a playout, read from the
sample itself (a state carries every field a view does that the scores read). An ``EPSILON`` share
of moves stays uniform, so every move keeps a chance in the playouts. Like the uniform playout
(``search.playout_move``) it draws among the pending decision's moves alone.

Kept apart from the engine's modules: it calls them, never the reverse. The game's ``guided_move``,
which the expert bot plays; a finished game's analysis keeps the uniform playouts (the game's
``analysis_budget``), because these made a 4-player game's analysis 1.9 times dearer (12 decisions
sampled, bench/README.md).
"""

from __future__ import annotations

import random
from typing import Any

from games.rio_de_la_plata.bots import HEURISTIC
from games.rio_de_la_plata.decide import decision_moves, legal_moves
from games.rio_de_la_plata.state import State

# The share of uniform moves.
EPSILON = 0.15


def guided_move(state: State, seat: int, rng: random.Random) -> dict[str, Any]:
    """A playout's move for ``seat`` (one of ``legal_moves(state, seat)``): see the module."""
    moves = decision_moves(state, seat) or legal_moves(state, seat)
    if len(moves) == 1:
        return moves[0]
    if rng.random() < EPSILON:
        return moves[rng.randrange(len(moves))]
    score = HEURISTIC.score
    best, best_score = moves[0], -float("inf")
    for move in moves:
        value = score(state, seat, move) + rng.random() * 1e-6
        if value > best_score:
            best, best_score = move, value
    return best
