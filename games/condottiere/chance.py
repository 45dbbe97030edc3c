"""The fairness verifier's and the observation export's hooks (``games.base.ChanceHooks``,
``games.base.DecisionHooks``): where a log's random outcomes and its players' decisions are.

A random outcome is drawn whenever the state's pending step is a ``Chance`` (a drawn first
Condottiere, SET-2; a shuffle, RL-10): the event the seed gives there is exactly what
``next_automatic_event`` draws, ``Random(f"{seed}/{counter}")`` (docs/fairness.md). A shuffle of a
configured ``deck_order`` is no draw (the creator chose it: the game is prearranged)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from games.base import CommandError
from games.condottiere.automatic import next_automatic_event
from games.condottiere.decide import command_events
from games.condottiere.events import Chance
from games.condottiere.evolve import evolve
from games.condottiere.leave import LEAVE_EVENTS, events_for
from games.condottiere.verify import PLAYER_EVENTS, command_of
from games.condottiere.views import legal_moves


def rederive_chance(events: Sequence[dict[str, Any]]) -> Iterator[tuple[int, dict[str, Any]]]:
    state = None
    for index, event in enumerate(events):
        if state is not None and isinstance(state.pending, Chance):
            expected = next_automatic_event(state)
            assert expected is not None, "a chance step always draws its event"
            yield index, expected
        state = evolve(state, event)


def decisions(events: Sequence[dict[str, Any]]) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """The same walk as ``verify_log``: a player event where nothing automatic is pending starts a
    decision, whose command's events are skipped as one; a leave event (resignation, timeout, the
    server's records) is skipped with the events it causes."""
    state = None
    total = len(events)
    i = 0
    while i < total:
        event = events[i]
        if state is None or state.pending is not None:
            state = evolve(state, event)
            i += 1
            continue
        kind = event.get("type")
        if kind in LEAVE_EVENTS:
            produced = events_for(state, event)
        elif kind in PLAYER_EVENTS and (command := command_of(events, i)) is not None:
            seat = event["seat"]
            produced = command_events(state, seat, command)
            yield i, seat, _as_legal_move(state, seat, command, produced)
        else:  # not a log verify_log accepts: nothing more to find in it
            return
        for own in produced:
            state = evolve(state, own)
        i += max(1, len(produced))


def _as_legal_move(
    state: Any, seat: int, command: dict[str, Any], produced: list[dict[str, Any]]
) -> dict[str, Any]:
    """The legal move that makes ``produced``, spelt as ``legal_moves`` spells it (the log's
    reading of a pass says ``reveal: false``, the legal move leaves it out): a bot learning from
    observations picks among ``legal_moves``, so the chosen move must be one of them."""
    moves = legal_moves(state, seat)
    if command in moves:
        return command
    for move in moves:
        try:
            if command_events(state, seat, move) == produced:
                return move
        except CommandError:
            continue
    return command
