"""A stored analysis with chosen numbers, for the tests of where analysis is shown (exports, the
account's mistakes, the replay page): one row per decision with a choice, every one judged good but
the ``blunder_at``-th, where the move played drops the decider's chance from 0.6 to 0.1 and the best
move is another one. Stored exactly as the analysis job stores one (``store.analysis``)."""

from __future__ import annotations

from typing import Any

from games import get_game
from games.base import fold
from replays import analysis
from service.analysis import revision
from store import parts


def plant(store: Any, game_id: str, blunder_at: int = 0) -> list[analysis.Row]:
    log = parts.load_log(store, game_id)
    assert log is not None and log.finished
    game = get_game(log.name)
    seats = game.seat_count(log.events[0]["config"])
    rows: list[analysis.Row] = []
    state = None
    applied = 0
    for version, seat, command in game.decisions(log.events):
        state = fold(game, log.events[applied:version], state)
        applied = version
        keys = [analysis.move_key(m) for m in game.legal_moves(state, seat)]
        if len(keys) < 2 or analysis.move_key(command) not in keys:
            continue
        played = keys.index(analysis.move_key(command))
        blunder = len(rows) == blunder_at
        best = (played + 1) % len(keys) if blunder else played
        after = 100 if blunder else 500
        even = tuple(1000 // seats for _ in range(seats))
        rows.append(
            analysis.Row(version, seat, best, played, 550, 600 if blunder else 500, after, even, even)
        )
    parts.analyses(store).put(game_id, revision(log.name), analysis.encode(rows, seats))
    return rows
