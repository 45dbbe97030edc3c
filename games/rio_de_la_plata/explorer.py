"""Rio de la Plata's decision explorer (``games.base.ExplorerHooks``): the first year's placements
and buildings, and which characters are claimed in which year. Every name is a public choice of the
seat (a placement, a building, a claimed character), never a hidden one."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from games.rio_de_la_plata.chance import decisions
from games.rio_de_la_plata.undo import taken_back_in

SITUATIONS: dict[str, str] = {
    "first_year_placement": "Where a seat places in the first year, by its placement number that year.",
    "first_year_building": "Which building a seat builds in the first year.",
    "character": "Which character a seat claims, by year.",
}


def explorer_situations() -> Mapping[str, str]:
    return SITUATIONS


def explore(events: Sequence[Mapping[str, Any]]) -> Iterator[tuple[int, int, str, str, str]]:
    years = [0]
    for event in events:
        years.append(years[-1] + (event.get("type") == "round_ended"))
    placed: dict[int, int] = {}
    undone = taken_back_in(events)  # RIO-UNDO-3: a decision taken back was never made
    for index, (version, seat, command) in enumerate(decisions([dict(e) for e in events])):
        kind = command.get("type")
        if version in undone:
            continue
        year = years[version] + 1
        if kind == "place" and year == 1:
            placed[seat] = placed.get(seat, 0) + 1
            yield index, seat, "first_year_placement", f"placement {placed[seat]}", str(command.get("space"))
        elif kind == "build" and year == 1:
            yield index, seat, "first_year_building", "", str(command.get("building"))
        elif kind == "claim":
            yield index, seat, "character", f"year {year}", str(command.get("character"))
