"""Validation and normalisation of a game's configuration.

``{"players": 3..5, "seed": int, "board": <board document> | null}``. The normalised configuration
records ``board_hash`` (section 21: replays use the same data) and ``revision``, the rules revision
(``games.base``; ``RULES_REVISION`` below lists what each changed); ``board`` is kept only when it
is not the package's own document, so that ordinary logs stay small."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.base import REVISION, ConfigError, log_revision, normalise_revision, normalise_seed
from games.rio_de_la_plata.board import default_board, load_board

FIELDS = ("players", "seed", "board", "board_hash", REVISION)

# The rules revisions (games.base): 1, every log recorded before revisions existed; 2:
# the Shipowner's benefits start in phase B of the round after he came, not phase A (RIO-CHAR-5,
# RIO-RL-58: a launch in that phase A pays him nothing and costs him the whole fee), a cell without
# a building keeps at most 3 people after a battle (RIO-RL-71), and a group that fought earlier in
# a battle round may still make its bonus move (RIO-BATTLE-28, protocol ruling 14).
RULES_REVISION = 2
SHIPOWNER_FROM_PHASE_B = RL_71 = BONUS_AFTER_FIGHTING = 2


def revision(config: Mapping[str, Any]) -> int:
    """The rules revision a game's (recorded) configuration names."""
    return log_revision(config)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def configure(raw: Mapping[str, Any], *, recorded: bool = False) -> dict[str, Any]:
    """A new game's configuration, or (``recorded``) the one a log recorded, whose rules revision it
    keeps (``games.base.normalise_revision``)."""
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
    rules = normalise_revision(raw, RULES_REVISION, recorded=recorded)
    return {"players": players, "seed": seed, "board": doc, "board_hash": board.hash, REVISION: rules}
