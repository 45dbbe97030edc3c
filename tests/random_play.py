"""Random legal games, for the tests and benchmarks that need finished logs of any shape."""

from __future__ import annotations

import random
from typing import Any

from games.base import fold


def play_out(game: Any, config: Any, rng: random.Random) -> tuple[list[dict], Any]:
    """Play the configured ``game`` to its end, each move a random legal move of a random awaited seat
    (drawn from ``rng``); return its whole log and its final state."""
    events = game.start(config)
    state = fold(game, events)
    while not game.is_over(state):
        seat = rng.choice(game.awaiting(state))
        new = game.decide(state, seat, rng.choice(game.legal_moves(state, seat)))
        state = fold(game, new, state)
        events += new
    return events, state
