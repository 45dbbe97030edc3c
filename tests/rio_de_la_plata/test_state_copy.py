"""``State.copy`` shares the configuration and the city's cell records with the state it copies
(games/rio_de_la_plata/state.py), so every handler must leave the state ``evolve`` is given as it
was: a handler that wrote a shared cell, or a part the copy took too shallow, would change a state a
search, an undo chain or a replay still holds. Checked event by event over whole games of random
players (trades drafted, sent and answered, undos taken) and heuristic bots, 3 to 5 players, with
the chain of states an undo goes back to (RIO-UNDO-3: restored exactly) included."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import orjson
import pytest

from cli.simulate import play_game
from games.base import fold
from games.rio_de_la_plata import GAME
from games.rio_de_la_plata.decide import decision_moves
from games.rio_de_la_plata.rules import evolve
from games.rio_de_la_plata.state import State
from games.rio_de_la_plata.undo import undoable_by

from .helpers import at_turn, new_game, set_cell

ANSWERS = ("offer_add", "offer_send", "offer_accept", "offer_decline")
# The events whose handlers write a cell record, a battle group, an open offer or an undo chain:
# the games below must apply each of them for the check to mean anything.
WRITERS = {
    "placed",
    "built",
    "used",
    "defended",
    "moved",
    "sacrificed",
    "withdrew",
    "fighting_ended",
    "section_placed",
    "building_completed",
    "offer_added",
    "offer_accepted",
    "undone",
}


def whole(state: State) -> bytes:
    """The state and every state its undo chain holds."""
    return orjson.dumps(GAME.state_to_json(state), option=orjson.OPT_SORT_KEYS)


def checked(state: State, event: dict[str, Any], seen: Counter) -> State:
    before = whole(state)
    after = evolve(state, event)
    seen[event["type"]] += 1
    assert whole(state) == before, f"evolve changed the state it was given ({event['type']})"
    # No tuple hides in a part the copy shares (a JSON round trip, as the old copy was, would
    # have made it a list, and a list never equals a tuple).
    assert orjson.loads(orjson.dumps(after)) == dict(after), event["type"]
    return after


def random_move(state: State, seat: int, rng: random.Random) -> dict[str, Any]:
    """Mostly the pending decision's moves, a build or a building's use first (rare at random);
    an open offer carried on; now and then a free command or an undo."""
    moves = GAME.legal_moves(state, seat)
    answers = [m for m in moves if m["type"] in ANSWERS]
    works = [m for m in moves if m["type"] in ("build", "use")]
    roll = rng.random()
    if answers and roll < 0.8:
        return rng.choice(answers)
    if works and roll < 0.5:
        return rng.choice(works)
    if undoable_by(state, seat) is not None and roll < 0.15:
        return {"type": "undo"}
    if roll < 0.1:
        return rng.choice(moves)
    return rng.choice(decision_moves(state, seat) or moves)


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 2), (5, 3)])
def test_evolve_never_changes_the_state_it_is_given(players, seed):
    """RIO-UNDO-3, RIO-RL-27: random games (trades and undos among the moves) and heuristic
    bots' games, every event checked; the writers of shared parts all applied."""
    seen: Counter = Counter()
    state, _ = new_game(players, seed)
    rng = random.Random(seed)
    while not GAME.is_over(state):
        seat = GAME.awaiting(state)[0]
        for event in GAME.decide(state, seat, random_move(state, seat, rng)):
            state = checked(state, event, seen)
    record = play_game(
        "rio_de_la_plata", {"players": players, "seed": seed}, ["heuristic"] * players, seed, keep_events=True
    )
    events = record.events or []
    state = fold(GAME, events[:1])
    for event in events[1:]:
        state = checked(state, event, seen)
    assert GAME.is_over(state)
    state = at_turn(state, 0)  # a building's use, rare in these games, on a set-up quarry
    state.update(step="B", started=True, result=None)
    set_cell(state, (6, 2), b="quarry", pool="quarry/carpenter", ppl=[2] + [0] * (players - 1))
    set_cell(state, (5, 2), b="house", own=0, pool="hut/house", ppl=[0] * players)
    state["p"][0]["stone"] = 5
    for event in GAME.decide(state, 0, {"type": "use", "cell": [6, 2], "choice": 0}):
        state = checked(state, event, seen)
    assert state["p"][0]["stone"] == 7
    assert WRITERS <= set(seen), f"not applied: {sorted(WRITERS - set(seen))}"
