"""The vocabulary shared by the rule modules: events as plain dicts, and the ``Chance`` marker a
step returns when its outcome must be drawn (RL-10)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Event = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Chance:
    """A random event to draw: ``kind`` is ``first`` or ``shuffle`` (with ``reason``)."""

    kind: str
    reason: str | None = None


def make_event(type_: str, **fields: Any) -> Event:
    """An event of version 1 with the given fields (the ``type`` and ``v`` keys come first)."""
    event: Event = {"type": type_, "v": 1}
    event.update(fields)
    return event


def copy_config(config: dict[str, Any]) -> dict[str, Any]:
    """A copy that shares nothing mutable with ``config`` (events and states must not alias)."""
    copy = dict(config)
    copy["options"] = dict(config["options"])
    if config.get("deck_order") is not None:
        copy["deck_order"] = list(config["deck_order"])
    return copy
