"""Rio de la Plata's events and commands, and the steps of a round: the words every module of the
rules shares (``state["step"]`` holds one of the steps)."""

from __future__ import annotations

from typing import Any

Event = dict[str, Any]
Command = dict[str, Any]

# steps of the round
A, RESOLVE, B, B_END, ROLL, BATTLE, ROUND_END, GAME_END, OVER = (
    "A",
    "resolve",
    "B",
    "B_end",
    "roll",
    "battle",
    "round_end",
    "game_end",
    "over",
)


def ev(type_: str, **fields: Any) -> Event:
    event: Event = {"type": type_, "v": 1}
    event.update(fields)
    return event
