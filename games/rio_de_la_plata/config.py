"""Validation and normalisation of a game's configuration.

``{"players": 3..5, "seed": int, "board": <board document> | null}``. The normalised configuration
records ``board_hash`` (section 21: replays use the same data); ``board`` is kept only when it is not
the package's own document, so that ordinary logs stay small."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.base import ConfigError, normalise_seed
from games.rio_de_la_plata.board import default_board, load_board

FIELDS = ("players", "seed", "board", "board_hash")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def configure(raw: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise ConfigError("INVALID_CONFIG", "The configuration must be an object.")
    unknown = sorted(set(raw) - set(FIELDS))
    if unknown:
        raise ConfigError("INVALID_CONFIG", f"Unknown configuration field(s): {', '.join(unknown)}.")
    doc = raw.get("board")
    board = load_board(doc)
    if doc is not None and board.hash == default_board().hash:
        doc = None
    players = raw.get("players")
    if not _is_int(players) or not board.min_players <= players <= board.max_players:
        raise ConfigError(
            "INVALID_PLAYER_COUNT",
            f"Rio de la Plata is played by {board.min_players} to {board.max_players} players.",
            "RIO-SETUP-1",
        )
    seed = normalise_seed(raw.get("seed", 0))
    given_hash = raw.get("board_hash")
    if given_hash is not None and given_hash != board.hash:
        raise ConfigError(
            "BOARD_MISMATCH", "board_hash does not match the board document this log was played on."
        )
    return {"players": players, "seed": seed, "board": doc, "board_hash": board.hash}
