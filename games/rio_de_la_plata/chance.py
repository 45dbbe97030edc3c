"""The fairness verifier's and the observation export's hooks (``games.base.ChanceHooks``,
``games.base.DecisionHooks``): where a log's random outcomes and its players' decisions are.

Rio de la Plata draws two kinds of outcome, both from ``Random(f"{seed}/{counter}")``
(docs/fairness.md): the turn order (``order_drawn``, RIO-SETUP-4) and every dice roll
(``dice_rolled``: war and cannon). The event the seed gives is what ``next_automatic`` draws."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from games.rio_de_la_plata.evolve import SERVER_RECORDS, evolve
from games.rio_de_la_plata.steps import next_automatic
from games.rio_de_la_plata.verify import command_of

RANDOM_EVENTS = frozenset({"order_drawn", "dice_rolled"})


def rederive_chance(events: Sequence[dict[str, Any]]) -> Iterator[tuple[int, dict[str, Any]]]:
    state = None
    for index, event in enumerate(events):
        if state is not None:
            expected = next_automatic(state)
            if expected is not None and expected["type"] in RANDOM_EVENTS:
                yield index, expected
        state = evolve(state, event)


def decisions(events: Sequence[dict[str, Any]]) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """As ``verify_log`` walks the log: an event where no automatic event is due is one command's."""
    state = None
    for index, event in enumerate(events):
        if state is not None and next_automatic(state) is None:
            if event.get("type") in SERVER_RECORDS:
                state = evolve(state, event)
                continue
            parsed = command_of(event)
            if parsed is None:
                return  # not a log verify_log accepts
            seat, command = parsed
            if isinstance(seat, int):
                yield index, seat, command
        state = evolve(state, event)
