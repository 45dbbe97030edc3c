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
from games.rio_de_la_plata.search import claimable
from games.rio_de_la_plata.state import State
from games.rio_de_la_plata.steps import next_order

# The share of uniform moves.
EPSILON = 0.15
# How many of a decision's moves the expert bot searches between, the heuristic's best first, and
# how far below the best a move's score may be to be one of them: trade offers (-50), purchases
# (-10) and characters (-100) are never searched unless the heuristic itself would play them.
CANDIDATES = 4
MARGIN = 8.0


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


def expert_candidates(state: State, seat: int, moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """At most ``CANDIDATES`` moves the heuristic bot scores best, none more than ``MARGIN`` below
    the best (ties in the listing's order). A decision offers 46 moves on average and up to 290 (a
    placement, a battle's moves), with the purchases and trade offers open at every decision
    besides: a search of a few dozen iterations would not try each once, and a search that may
    open, fill and send offers, none of which moves the game on, can choose them forever (the
    playouts cannot tell them from ending the turn). So the expert searches where the heuristic's
    judgement is close and lets the playouts decide between those. It scores from the seat's view
    of the state, like the bot."""
    score = HEURISTIC.score
    scores = [score(state, seat, move) for move in moves]
    ranked = sorted(range(len(moves)), key=lambda i: (-scores[i], i))
    floor = scores[ranked[0]] - MARGIN
    kept = [moves[i] for i in ranked[:CANDIDATES] if scores[i] >= floor]
    # The heuristic never places on a character (the view does not carry their prices); with the
    # state at hand the expert searches the ones its seat can pay for and that score at the end.
    me, characters = state["p"][seat], state.board.characters
    kept += [
        move
        for move in moves
        if move.get("space") == "character"
        and characters[move["character"]].get("end_vp")
        and claimable(me, characters[move["character"]])
    ]
    # Nor does it ever take the turn-order track (RIO-ORDER-1): the expert searches one person
    # there whenever it would not place first next round.
    if next_order(state)[0] != seat:
        kept += [move for move in moves if move.get("space") == "order"][:1]
    return kept
