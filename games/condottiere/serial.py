"""Snapshots: a state as plain JSON data and back (the server stores snapshots as JSON)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from games.condottiere.state import FIELDS, State
from games.condottiere.steps import settle

FORMAT = 1
# Derived fields: recomputed from the rest when a snapshot is loaded.
_DERIVED = ("pending", "awaiting")
# Fields added after snapshots of format 1 were first written, with the value an older snapshot
# implies (a snapshot is a cache of the log, but a running server must still read the ones it has).
_ADDED_LATER = {"card_played": False, "idle_battles": 0}
# Fields renamed since format 1 keep their old key in a snapshot, so that the snapshots a
# running server has stored still load and a fold still compares equal to them.
_SNAPSHOT_KEYS = {
    "seat_count": "n",
    "draw_after_battle": "draw",
    "points_target": "target",
    "bigger_kingdoms": "big",
    "capturing": "cap",
    "hidden_cards": "hid",
    "chance_draws": "rng",
    "previous_first": "prev_first",
    "deal_queue": "queue",
    "step_after_deal": "deal_next",
    "move_ends_with": "midmove",
    "final_battle": "fb",
    "takes_part": "part",
    "hand_discard_awaited": "hand_pending",
}
_KEYS = tuple((name, _SNAPSHOT_KEYS.get(name, name)) for name in FIELDS if name not in _DERIVED)


def _to_json(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_to_json(v) for v in value]
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_from_json(v) for v in value)
    return value


def state_to_json(state: State) -> dict[str, Any]:
    data: dict[str, Any] = {"format": FORMAT}
    for name, key in _KEYS:
        value = getattr(state, name)
        data[key] = value if name == "config" else _to_json(value)
    return data


def encode_state(state: State) -> bytes:
    """``orjson.dumps(state_to_json(state))`` without building the lists: orjson writes a tuple as
    the same JSON array (games.base.SnapshotHooks; tests/condottiere checks the bytes are equal)."""
    data: dict[str, Any] = {"format": FORMAT}
    for name, key in _KEYS:
        data[key] = getattr(state, name)
    return orjson.dumps(data)


def state_from_json(data: Mapping[str, Any]) -> State:
    if data.get("format") != FORMAT:
        raise ValueError("unknown Condottiere snapshot format")
    state = object.__new__(State)
    for name, key in _KEYS:
        value = data[key] if key in data or key not in _ADDED_LATER else _ADDED_LATER[key]
        setattr(state, name, value if name == "config" else _from_json(value))
    state.pending = None
    state.awaiting = ()
    return settle(state)
