"""The search hooks (``games.base.SearchHooks``): what a searching bot and the game analysis need of
Rio de la Plata beyond the ``Game`` protocol.

Rio de la Plata hides nothing but its future: every stock, building and VP total is public, and the
dice and the turn order to come follow from the seed (and its draw counter). A sample of what a seat
cannot see is therefore the state with a seed of its own and the counter at zero: the dice a search
imagines are drawn from the rules' distribution and never from the real seed.

``playout_move`` draws a playout's move among the pending decision's moves alone: the free
commands (purchases, trade offers, RIO-RL-27) are open to every seat at every decision, and a
uniform draw over them spends most of a playout on purchases and offers nobody would make, at the
cost of listing them (about a third of the move listing).

``estimate`` is the value of a state a search stops at before the end: each seat's chance to win
from its VP, the worth of its stock (RIO-END-7's tie-breaks are stocks), what it will score when
the grids its people hold fill and its place in the next round's order, as a softmax whose
temperature shrinks as the game goes on. A cheap prior; the playouts do the rest.
"""

from __future__ import annotations

import math
import random
from typing import Any

from games.rio_de_la_plata.decide import command_events, decision_moves, legal_moves
from games.rio_de_la_plata.events import OVER
from games.rio_de_la_plata.evolve import apply, evolve
from games.rio_de_la_plata.state import State
from games.rio_de_la_plata.steps import final_scoring, next_automatic, next_order

_SEED_BITS = 53
# What a unit of stock is worth in VP at the end of a game (a rough exchange rate).
_GOODS_VP = {"stone": 0.35, "wood": 0.35, "luxury": 0.6}
# What placing first rather than last in the next round is worth in VP (the estimate's turn-order
# term): about what the first to place takes from the road grid's free spaces in a round.
_FIRST_VP = 4.0


def determinize(state: State, seat: int | None, rng: random.Random) -> State:
    """``state`` with a seed drawn from ``rng`` and its draw counter reset (``seat`` sees everything
    else, so every seat and the post-game analysis sample alike)."""
    sample = State(state)  # shallow: evolve copies before it writes
    sample.board = state.board
    sample["config"] = {**state["config"], "seed": rng.getrandbits(_SEED_BITS)}
    sample["rng"] = 0
    return sample


def claimable(player: dict[str, Any], character: dict[str, Any]) -> bool:
    """RIO-CHAR-3: ``player`` can pay for ``character`` and has the VP it requires."""
    return bool(player["silver"] >= character["cost"] and player["vp"] >= character["min_vp"])


def estimate(state: State) -> list[float]:
    """Each seat's chance to win a game stopped at ``state`` (summing to 1)."""
    players = state["p"]
    n = len(players)
    if state["step"] == OVER:
        won = state["result"]["winners"]
        return [1.0 / len(won) if i in won else 0.0 for i in range(n)] if won else [1.0 / n] * n
    final = final_scoring(state)
    scores = [
        p["vp"] + sum(f.values()) + sum(p.get(item, 0) * worth for item, worth in _GOODS_VP.items())
        for p, f in zip(players, final, strict=True)
    ]
    board = state.board
    characters = board.characters
    for name, seat in state["spots"].items():
        # A person on a character the seat can pay for (RIO-CHAR-3) is the character's end VP less
        # its price in end-of-game money, a phase before the claim: without it, a playout cut
        # before the claim sees the person and never the character.
        character = characters[name]
        if seat is not None and claimable(players[seat], character):
            scores[seat] += character.get("end_vp", 0) - character["cost"] / board.silver_per_vp
    # People on a major building's grid score its spaces' VP when the grid fills (RIO-MAJOR-4,
    # RIO-MAJOR-6), which a playout cut a few moves later rarely sees.
    for name, major in board.majors.items():
        record = state["major"][name]
        if not record["done"]:
            for grid, occupants in zip(major.grids, record["grids"], strict=True):
                for (vp, _), occupant in zip(grid.spaces, occupants, strict=False):
                    if occupant is not None:
                        scores[occupant] += vp
    # Placing first next round is worth VP (RIO-PLACE-1: the first to place takes the major
    # buildings' best spaces, the free road grid's among them), and the next round's order is known
    # from the turn-order track (RIO-ORDER-2); a playout never reaches the next placement. Only the
    # next round's: every round's order can be bought again on the track.
    left = board.last_year - (state["year"] or board.first_year) + 1
    if n > 1 and left > 1:
        for position, seat in enumerate(next_order(state)):
            scores[seat] += _FIRST_VP * (n - 1 - position) / (n - 1)
    # The spread of what is still to come shrinks as the rounds run out (a random walk's, with the
    # square root of the rounds left); a flat temperature of 2 VP made every chance 0 or 1 from the
    # first rounds on, and a search whose every move is worth 0 cannot choose.
    temperature = 2.0 + 5.0 * math.sqrt(max(0, left))
    top = max(scores)
    weights = [math.exp((score - top) / temperature) for score in scores]
    total = sum(weights)
    return [w / total for w in weights]


def advance(state: State, seat: int, command: dict[str, Any]) -> State:
    """The state after ``seat``'s ``command`` (one of ``legal_moves(state, seat)``: a search
    never hands another) and every automatic event it causes (each event evolved once, where
    ``decide`` then a fold would evolve them twice). The command's event is evolved (a copy: the
    search holds ``state``); the automatic events after it are applied to that copy itself, which
    nobody else holds, and none of them may be taken back (RIO-UNDO-1)."""
    for event in command_events(state, seat, command, legal=True):
        state = evolve(state, event)
    automatic = next_automatic(state)
    while automatic is not None:
        apply(state, automatic)
        state.taken = None
        automatic = next_automatic(state)
    return state


def playout_move(state: State, seat: int, rng: random.Random) -> dict[str, Any]:
    """A playout's move for ``seat``: a uniform draw among its pending decision's moves, or among
    its legal moves when it has no pending decision (see the module's docstring)."""
    moves = decision_moves(state, seat) or legal_moves(state, seat)
    return moves[rng.randrange(len(moves))] if len(moves) > 1 else moves[0]
