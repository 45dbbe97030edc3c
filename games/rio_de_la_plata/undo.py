"""Taking a decision back within one's turn (``undo``, rulings RIO-UNDO-1 .. RIO-UNDO-5 in
docs/rio-de-la-plata-protocol.md).

A placement (phase A) or a build (phase B) may be taken back by its author while nothing else has
happened since: no other command of anybody's, no automatic event (so never after a die roll or a
draw), no end of his turn. The state after an undoable event keeps the state before it
(``State.taken``: that state and the event), so ``undone`` restores it exactly, open offer, the
people a displacement returned and every earlier decision of the turn that is still undoable
included; a chain of undos walks the turn back to its start.

The kept state is not part of the state's JSON (views show exactly what they showed before undo
existed); a snapshot carries the chain beside it (``chain_to_json``), so a game loaded from a
snapshot may take back what the folded log may."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.base import SEAT_HANDED_TO_BOT, SEAT_TOKEN_ROTATED, CommandError
from games.rio_de_la_plata.events import Event, ev
from games.rio_de_la_plata.state import State, make_state

# RIO-UNDO-1: the decisions that can be taken back; each is followed by no automatic event.
UNDOABLE = frozenset({"placed", "built"})
UNDO, UNDONE = "undo", "undone"


def undoable_by(s: State | None, seat: Any) -> dict[str, Any] | None:
    """The event ``seat`` may take back now (RIO-UNDO-2), or ``None``."""
    if s is None or s.taken is None:
        return None
    event = s.taken[1]
    return event if event.get("seat") == seat and not isinstance(seat, bool) else None


def undo_event(s: State, seat: Any, command: dict[str, Any]) -> Event:
    if set(command) != {"type"}:
        raise CommandError("INVALID_COMMAND", 'An undo is {"type": "undo"} and nothing else.')
    event = undoable_by(s, seat)
    if event is None:
        raise CommandError(
            "NOTHING_TO_UNDO",
            "Only your own last placement or build may be taken back, while your turn lasts and "
            "before anything else happens (RIO-UNDO-2).",
        )
    return ev(UNDONE, seat=seat, event=event)


def after(before: State, event: Event, s: State) -> None:
    """Set what ``s`` (the state after ``event``, applied to ``before``) lets its author take back."""
    s.taken = (before, event) if event["type"] in UNDOABLE else None


def taken_back(s: State) -> State:
    """RIO-UNDO-3: the state before the decision taken back, exactly."""
    assert s.taken is not None, "verified by undo_event"
    return s.taken[0].copy()


def taken_back_in(events: Sequence[Mapping[str, Any]]) -> set[int]:
    """The indices of the events in ``events`` that a later ``undone`` took back (RIO-UNDO-4's
    chains: the undoable events since the last other one form a stack)."""
    stack: list[int] = []
    out: set[int] = set()
    for index, event in enumerate(events):
        kind = event.get("type")
        if kind in UNDOABLE:
            stack.append(index)
        elif kind == UNDONE:
            if stack:
                out.add(stack.pop())
        elif kind not in (SEAT_TOKEN_ROTATED, SEAT_HANDED_TO_BOT):
            stack.clear()
    return out


def chain_to_json(s: State) -> list[dict[str, Any]]:
    """The states an undo chain goes back to (newest first), with the events they undo."""
    out = []
    taken = s.taken
    while taken is not None:
        before, event = taken
        out.append({"event": event, "state": dict(before)})
        taken = before.taken
    return out


def chain_from_json(s: State, chain: list[dict[str, Any]]) -> State:
    holder = s
    for link in chain:
        before = make_state(dict(link["state"]), s.board)
        holder.taken = (before, link["event"])
        holder = before
    return s
