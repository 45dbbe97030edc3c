"""Random legal games, for the tests and benchmarks that need finished logs of any shape, and their
import into the archive."""

from __future__ import annotations

import random
from typing import Any

from games.base import fold
from service import aggregates
from service.archive import import_finished_game
from store import GameStore


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


def import_played(
    client: Any,
    game: Any,
    events: list[dict],
    state: Any,
    *,
    game_id: str,
    players: list[str],
    now: str,
    snapshot: bool = True,
) -> dict[str, Any] | None:
    """Import a played-out log into the archive as a finished game, as the import route does: the seed
    kept out of the public configuration, the statistics aggregates counted; the final state kept as
    its snapshot unless ``snapshot`` is false. Returns the archive summary."""
    return import_finished_game(
        GameStore(client),
        game_id=game_id,
        name=game.name,
        title=game.title,
        public_config={k: v for k, v in events[0]["config"].items() if k != "seed"},
        full_config=events[0]["config"],
        players=players,
        events=events,
        snapshot_state=game.state_to_json(state) if snapshot else None,
        result=game.result(state),
        now=now,
        counts=aggregates.counter_for_import(events, game.name),
    )
