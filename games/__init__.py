"""Rule engines. Each game lives in its own package and exposes a ``GAME`` object that implements
:class:`games.base.Game`. Code outside ``games/`` reaches a game only through :func:`get_game`.

The registry is the installed distributions' entry points of the group :data:`ENTRY_POINT_GROUP`
(``[project.entry-points."condottiere.games"]`` in a ``pyproject.toml``: ``<name> =
"<package>:GAME"``), so a game is a package plus that one line of its own metadata, whether it ships
in this project (``games/<name>/``) or in a distribution of its own."""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from games.base import Game

ENTRY_POINT_GROUP = "condottiere.games"


class RegistryError(RuntimeError):
    """The installed metadata names a game twice, or an entry point names a different game."""


@cache  # entry_points() reads every installed distribution's metadata: once per process
def _registry() -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        other = found.get(point.name)
        if other is not None and other.value != point.value:
            raise RegistryError(
                f"Two entry points of {ENTRY_POINT_GROUP!r} name the game {point.name!r}:"
                f" {other.value} and {point.value}"
            )
        found[point.name] = point
    return found


def game_names() -> list[str]:
    return sorted(_registry())


def entry_point(name: str) -> EntryPoint:
    """The entry point that registers ``name``; ``KeyError`` when there is none."""
    return _registry()[name]


def game_module(name: str) -> str:
    """The module ``name``'s engine lives in (where its optional companions, such as ``bots``, are
    looked up); ``KeyError`` when there is none."""
    return entry_point(name).module


@cache  # loading the entry point (an import) was 1% of a web worker's CPU: every view and fold asks
def get_game(name: str) -> Game[Any]:
    """The engine registered under ``name``; ``KeyError`` when there is none."""
    game: Game[Any] = _registry()[name].load()
    if getattr(game, "name", None) != name:
        raise RegistryError(f"The entry point {name!r} loads the game {getattr(game, 'name', None)!r}")
    return game


def refresh() -> None:
    """Forget what the registry read, so the next lookup reads the installed metadata again (a
    test that puts a distribution on ``sys.path`` or takes it off)."""
    _registry.cache_clear()
    get_game.cache_clear()
