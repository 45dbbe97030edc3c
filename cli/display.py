"""The terminal's text of a game: each game's ``games.base.TextHooks`` (its board, moves and events
as text, in the game's own package), or a generic rendering (JSON) for a game without them.

The client learns the game's name from the game's summary (``GET /v1/games/{id}``) and never
branches on it: everything game-specific comes through :func:`text_for`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games import game_names, get_game
from games.base import text_hooks

# The signatures of games.base.TextHooks' methods, as the functions GameText holds.
Names = Mapping[int, str] | None
Render = Callable[[Mapping[str, Any], Names], str]
DescribeEvent = Callable[[Mapping[str, Any], Names], str]
DescribeMove = Callable[[Mapping[str, Any]], str]
MoveMenu = Callable[[Sequence[Mapping[str, Any]], Mapping[str, Any] | None], list[dict[str, Any]]]


def seat_label(seat: int | None, names: Mapping[int, str] | None = None) -> str:
    if seat is None:
        return "-"
    name = (names or {}).get(seat)
    return f"{seat} {name}" if name else f"seat {seat}"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "), sort_keys=True)


def generic_render(view: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    awaiting = ", ".join(seat_label(s, names) for s in view.get("awaiting") or []) or "nobody"
    shown = {k: v for k, v in view.items() if k != "legal_moves"}
    return json.dumps(shown, indent=1, sort_keys=True) + f"\nWaiting for: {awaiting}."


def generic_event(event: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    fields = {k: v for k, v in event.items() if k not in ("type", "v", "seat")}
    who = f"{seat_label(event['seat'], names)}: " if "seat" in event else ""
    return f"{who}{event.get('type')} {_compact(fields) if fields else ''}".rstrip()


def generic_move(move: Mapping[str, Any]) -> str:
    return _compact(dict(move))


@dataclass(frozen=True)
class GameText:
    """One game's text functions (its hooks, or the generic ones)."""

    name: str
    render: Render
    event: DescribeEvent
    move: DescribeMove
    menu: MoveMenu | None

    def render_text(self, view: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
        return self.render(view, names)

    def describe_event(self, event: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
        return self.event(event, names)

    def describe_move(self, move: Mapping[str, Any]) -> str:
        return self.move(move)

    def move_menu(
        self, moves: Sequence[Mapping[str, Any]], view: Mapping[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        if self.menu is None:
            return [{"label": self.move(m), "move": dict(m)} for m in moves]
        return self.menu(moves, view)


def text_for(game_name: str | None) -> GameText:
    """The text functions of ``game_name`` (a name this client does not know: the generic ones, so a
    newer server's game can still be played, as JSON)."""
    game = get_game(game_name) if game_name in game_names() else None

    text = text_hooks(game) if game is not None else None
    if text is None:
        return GameText(
            name=str(game_name), render=generic_render, event=generic_event, move=generic_move, menu=None
        )
    return GameText(
        name=str(game_name),
        render=text.render_text,
        event=text.describe_event,
        move=text.describe_move,
        menu=text.move_menu,
    )
