"""What each viewer may see. Rio de la Plata has almost no hidden information: the board, every
stock and every VP total are public. The secret is the seed, from which every future dice roll
follows, so it is removed from the configuration shown to anyone but FULL."""

from __future__ import annotations

from typing import Any

from games.base import FULL
from games.rio_de_la_plata.decide import legal_moves
from games.rio_de_la_plata.events import OVER
from games.rio_de_la_plata.state import State
from games.rio_de_la_plata.steps import awaiting
from games.rio_de_la_plata.undo import undoable_by

GAME_NAME = "rio_de_la_plata"  # the engine's registry name (GAME.name)


def public_config(config: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in config.items() if k != "seed"}


def view(s: State, viewer: Any) -> dict[str, Any]:
    # Which game this is, as every view says (a client of several games tells them apart by it).
    data: dict[str, Any] = {"game": GAME_NAME}
    data.update((k, v) for k, v in s.items() if k not in ("config", "rng"))
    data["config"] = dict(s["config"]) if viewer == FULL else public_config(s["config"])
    if viewer == FULL:
        data["rng"] = s["rng"]
    data["awaiting"] = awaiting(s)
    data["provisional_board"] = s.board.provisional
    if isinstance(viewer, int) and not isinstance(viewer, bool):
        data["seat"] = viewer
        data["legal_moves"] = legal_moves(s, viewer)
        # RIO-UNDO-2: what the seat may take back, said beside (never among) its legal moves, so
        # a bot choosing from them never undoes; absent when there is nothing.
        taken = undoable_by(s, viewer)
        if taken is not None:
            data["undo"] = taken
    return data


def redact(event: dict[str, Any], viewer: Any) -> dict[str, Any]:
    if viewer == FULL or event.get("type") != "game_started":
        return event
    redacted = dict(event)
    redacted["config"] = public_config(event["config"])
    return redacted


def result(s: State) -> dict[str, Any] | None:
    if s["step"] != OVER:
        return None
    return s["result"]
