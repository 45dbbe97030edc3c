"""A cheap guided playout policy for Condottiere's search (``games.base.SearchHooks.guided_move``).

A uniform playout plays a card at almost every turn (a hand of ten cards offers ten plays and one
pass), so every first battle of a round swallows every hand and the playouts tell little about
games where players keep their cards for the regions that matter. The heuristic bot plays well but
costs about 1.7 ms a battle move (a hundred times an engine step), which would leave a one-second
search a few dozen playouts. This policy is the heuristic's main idea at the cost of an engine step:
in a battle, a seat that leads passes (or ends the battle with a Surrender), a seat behind plays the
cheapest card that takes the lead, and passes when no single card does; at the end of a round it
keeps its two most valuable cards (RND-2), and it discards a hand without strength (END-7). An
``EPSILON`` share of moves stays uniform, so every move keeps a chance in the playouts.

It reads only the sample it is given (a complete state drawn by ``determinize``), never more.
"""

from __future__ import annotations

import random
from typing import Any

from games.condottiere.board import MERCENARY
from games.condottiere.queries import season
from games.condottiere.state import State
from games.condottiere.steps import STEP_BATTLE, STEP_HAND_DISCARD, STEP_KEEP_CARDS
from games.condottiere.views import legal_moves

# The share of uniform moves.
EPSILON = 0.15
# How often a seat that cannot take the lead with one card still plays its strongest card (a
# battle is often won over two or three plays).
CHASE = 0.25
# What a card is worth kept for later battles, in strength points (as the heuristic bot counts).
_KEEP = {
    "m1": 1.0, "m2": 2.0, "m3": 3.0, "m4": 4.0, "m5": 5.0, "m6": 6.0, "m10": 10.0,
    "heroine": 10.5, "courtesan": 1.2, "winter": 4.0, "spring": 4.0, "drummer": 5.0,
    "bishop": 6.5, "scarecrow": 2.5, "surrender": 6.0,
}  # fmt: skip


def _line_strength(line: tuple[str, ...], winter: bool, spring_top: int) -> int:
    drummer = "drummer" in line
    total = 0
    for card in line:
        value = MERCENARY.get(card)
        if value is not None:
            worth = 1 if winter else value
            if drummer:
                worth *= 2
            if value == spring_top:
                worth += 3
            total += worth
        elif card == "heroine":
            total += 10
        elif card == "courtesan":
            total += 1
    return total


def _battle(state: State, seat: int, moves: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    lines = state.lines
    winter, spring, top = season(lines)
    spring_top = top if spring else -1
    mine = _line_strength(lines[seat], winter, spring_top)
    best = 0
    for other, line in enumerate(lines):
        if other != seat and line:
            best = max(best, _line_strength(line, winter, spring_top))
    defender = state.defender == seat
    # The first pass move (never revealing a face-down card: it tells the others nothing).
    pass_move = next(m for m in moves if m["type"] == "pass")
    hand = state.hands[seat]
    if mine > best or (defender and mine >= best and mine > 0):
        if "surrender" in hand and mine > best:
            return {"type": "play", "card": "surrender"}
        return pass_move
    need = best - mine + (0 if defender else 1)
    drummer = "drummer" in lines[seat]
    cheapest = None
    strongest = None
    for card in set(hand):
        value = MERCENARY.get(card)
        if value is not None:
            gain = (1 if winter else value) * (2 if drummer else 1)
        elif card == "heroine":
            gain = 10
        else:
            continue
        if gain >= need and (cheapest is None or _KEEP[card] < _KEEP[cheapest]):
            cheapest = card
        if strongest is None or _KEEP[card] > _KEEP[strongest]:
            strongest = card
    if cheapest is not None:
        return {"type": "play", "card": cheapest}
    if strongest is not None and rng.random() < CHASE:
        return {"type": "play", "card": strongest}
    return pass_move


def guided_move(state: State, seat: int, rng: random.Random) -> dict[str, Any]:
    """A playout's move for ``seat`` (one of ``legal_moves(state, seat)``): see the module."""
    moves = legal_moves(state, seat)
    if len(moves) == 1:
        return moves[0]
    if rng.random() < EPSILON:
        return moves[rng.randrange(len(moves))]
    step = state.step
    if step == STEP_BATTLE:
        return _battle(state, seat, moves, rng)
    if step == STEP_KEEP_CARDS:
        return max(moves, key=lambda m: sum(_KEEP.get(card, 0.0) for card in m["cards"]))
    if step == STEP_HAND_DISCARD:
        hand = state.hands[seat]
        strength = 10 * hand.count("heroine") + hand.count("courtesan")
        return {"type": "discard_hand", "discard": strength < 8}
    return moves[rng.randrange(len(moves))]


def expert_candidates(state: State, seat: int, moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every legal move: a Condottiere decision offers a dozen at most, few enough to search all."""
    return moves
