"""Snapshots: a state as plain JSON data and back (the server stores snapshots as JSON)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.condottiere.rules import settle
from games.condottiere.state import FIELDS, State

FORMAT = 1
# Derived fields: recomputed from the rest when a snapshot is loaded.
_DERIVED = ("pending", "awaiting")
# Fields added after snapshots of format 1 were first written, with the value an older snapshot
# implies (a snapshot is a cache of the log, but a running server must still read the ones it has).
_ADDED_LATER = {"card_played": False, "idle_battles": 0}


def _to_json(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_to_json(v) for v in value]
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_from_json(v) for v in value)
    return value


def state_to_json(state: State) -> dict[str, Any]:
    data = {"format": FORMAT}
    for name in FIELDS:
        if name in _DERIVED:
            continue
        value = getattr(state, name)
        data[name] = value if name == "config" else _to_json(value)
    return data


def state_from_json(data: Mapping[str, Any]) -> State:
    if data.get("format") != FORMAT:
        raise ValueError("unknown Condottiere snapshot format")
    state = object.__new__(State)
    for name in FIELDS:
        if name in _DERIVED:
            continue
        value = data[name] if name in data or name not in _ADDED_LATER else _ADDED_LATER[name]
        setattr(state, name, value if name == "config" else _from_json(value))
    state.pending = None
    state.awaiting = ()
    return settle(state)
