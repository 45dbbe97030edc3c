"""GameService's entry points are real methods that call its parts: each keeps its part's signature
(names, order, defaults), so a parameter added to a part cannot be silently dropped by the service."""

from __future__ import annotations

import inspect

import pytest

from service.commands import GameCommands
from service.deadlines import GameDeadlines
from service.games import GameService
from service.queries import GameQueries
from service.seats import SeatClaims

PARTS = {
    "get_view": GameQueries,
    "viewer_seat": GameQueries,
    "read_events": GameQueries,
    "submit_command": GameCommands,
    "submit_as_seat": GameCommands,
    "resign": GameCommands,
    "abort": GameCommands,
    "rotate_token": GameCommands,
    "enforce_clock": GameDeadlines,
    "claim_seat": SeatClaims,
}


def _shape(function):
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize("name", sorted(PARTS))
def test_each_entry_point_keeps_its_parts_signature(name):
    assert _shape(getattr(GameService, name)) == _shape(getattr(PARTS[name], name))


def test_no_entry_point_is_a_bound_method_copied_onto_the_service():
    own = {n for n, v in vars(GameService).items() if inspect.isfunction(v)}
    assert set(PARTS) <= own
