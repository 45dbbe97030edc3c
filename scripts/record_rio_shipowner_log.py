"""Record a scripted Rio de la Plata game with the engine on PYTHONPATH (run it with the code
before revisions were numbered, as scripts/record_revision_log.py says): seat Y acquires the
Shipowner in 1580 (a board document makes him free, so that a game's first round can reach him),
another seat launches the ship in phase A of 1581 and Y launches in phase A of 1582. Every other
decision ends the turn or passes when it can, else is drawn at random from the seed::

    PYTHONPATH=/tmp/old .venv/bin/python scripts/record_rio_shipowner_log.py 4 OUT.json
"""

from __future__ import annotations

import json
import random
import sys
from importlib import resources

from games import get_game
from games.base import fold
from scripts.record_revision_log import write

FREE = {"buy", "offer_open", "offer_add", "offer_send", "offer_accept", "offer_decline"}


def main() -> None:
    seed, out = int(sys.argv[1]), sys.argv[2]
    game = get_game("rio_de_la_plata")
    board = json.loads(resources.files("games.rio_de_la_plata").joinpath("data/board.json").read_text())
    board["characters"]["shipowner"]["v"].update(cost=0, min_vp=0)
    board["characters"]["shipowner"]["src"] = "ruling"
    board["characters"]["shipowner"]["note"] = "free, to test its timing"
    log = list(game.start(game.configure({"players": 3, "seed": seed, "board": board})))
    state = fold(game, log)
    rng = random.Random(seed)
    first, y = state["order"][0], state["order"][1]
    while not game.is_over(state):
        seat = game.awaiting(state)[0]
        moves = [m for m in game.legal_moves(state, seat) if m["type"] not in FREE]
        year, step = state["year"], state["step"]
        wish = {
            (1580, "A", True): lambda m: m.get("building") == "port",
            (1580, "A", False, "y"): lambda m: m.get("character") == "shipowner",
            (1580, "B", False, "y"): lambda m: m["type"] == "claim",
            (1581, "A", "other"): lambda m: m["type"] == "launch",
            (1582, "A", False, "y"): lambda m: m["type"] == "launch",
        }
        keys = [(year, step, seat == first), (year, step, seat == first, "y" if seat == y else "-")]
        keys.append((year, step, "other" if seat != y else "y"))
        choice = None
        for key in keys:
            if key in wish:
                choice = next((m for m in moves if wish[key](m)), None)
                if choice:
                    break
        for kind in ("end_turn", "pass"):
            choice = choice or next((m for m in moves if m["type"] == kind), None)
        choice = choice or rng.choice(moves)
        events = game.decide(state, seat, choice)
        log.extend(events)
        state = fold(game, events, state)
    write(game, log, seed, out, f"record_rio_shipowner_log.py {seed}")


if __name__ == "__main__":
    main()
