"""Observations of finished games, as training data for bots: for every decision a seat made, what
that seat saw (its view, exactly as the server served it: ``game.view(state, seat)``), its legal
moves, the move it chose and how the game ended. The decisions are the engine's to find
(``games.base.DecisionHooks.decisions``); this module only frames them.

One observation (one NDJSON line; ``schemas.archive.ObservationSchema``)::

    {"game_id": "...", "game": "condottiere", "version": 41, "seat": 2, "view": {...},
     "legal_moves": [...], "move": {...}, "result": {"winners": [1], "reason": "...", ...},
     "analysis": {"before": 0.31, "best": 0.33, "after": 0.2, "loss": 0.13,
                  "judgement": "mistake", "best_move": {...}, "chances": [...]}}

``analysis`` (the training labels of a stored computer analysis, ``replays.analysis_export``) is
null for a decision the analysis did not judge or a game not analysed.

``version`` is the number of events before the decision (the view's version); the move's events
follow it in the log.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import orjson

from games.base import Event, Game, decision_hooks


class NoDecisions(LookupError):
    """The game does not say where its decisions are (no ``decisions`` hook)."""


def observations(
    game: Game[Any],
    events: Sequence[Event],
    *,
    game_id: str | None,
    result: Mapping[str, Any] | None,
    labels: Mapping[int, Mapping[str, Any]] | None = None,
) -> Iterator[dict[str, Any]]:
    """Every decision of the complete log ``events`` of a finished game, in log order (one fold).
    ``labels``: the game's computer analysis by decision version (``replays.analysis_export``);
    a decision it judged carries its values under ``"analysis"`` (null for one it did not: a
    single legal move, or a game not analysed)."""
    hooks = decision_hooks(game)
    if hooks is None:
        raise NoDecisions(game.name)
    find = hooks.decisions
    final = dict(result) if result is not None else None
    evolve, view, legal_moves = game.evolve, game.view, game.legal_moves
    state = None
    position = 0
    for version, seat, command in find(events):
        while position < version:
            state = evolve(state, events[position])
            position += 1
        found = {} if labels is None else {"analysis": labels.get(version)}
        yield {
            "game_id": game_id,
            "game": game.name,
            "version": version,
            "seat": seat,
            "view": view(state, seat),
            "legal_moves": legal_moves(state, seat),
            "move": command,
            "result": final,
            **found,
        }


class GzipNdjson:
    """NDJSON lines compressed as they come (a gzip member, ``zlib``'s ``wbits=31``), so a large
    export is never held uncompressed."""

    def __init__(self, level: int = 6):
        self._compress = zlib.compressobj(level, zlib.DEFLATED, 31)
        self._chunks: list[bytes] = []
        self.lines = 0
        self.raw_bytes = 0

    def write(self, documents: Iterable[Mapping[str, Any]]) -> None:
        for document in documents:
            line = orjson.dumps(document, option=orjson.OPT_NON_STR_KEYS) + b"\n"
            self.lines += 1
            self.raw_bytes += len(line)
            chunk = self._compress.compress(line)
            if chunk:
                self._chunks.append(chunk)

    def finish(self) -> bytes:
        self._chunks.append(self._compress.flush())
        return b"".join(self._chunks)
