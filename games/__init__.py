"""Rule engines. Each game lives in its own package and exposes a ``GAME`` object that implements
:class:`games.base.Game`. Code outside ``games/`` reaches a game only through :func:`get_game`."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import Any

from games.base import Game

_GAMES = {
    "condottiere": "games.condottiere",
    "rio_de_la_plata": "games.rio_de_la_plata",
}


def game_names() -> list[str]:
    return sorted(_GAMES)


@cache  # import_module's lookup was 1% of a web worker's CPU: every view and every fold asks
def get_game(name: str) -> Game[Any]:
    """The engine registered under ``name``; ``KeyError`` when there is none."""
    module = import_module(_GAMES[name])
    game: Game[Any] = module.GAME
    return game
