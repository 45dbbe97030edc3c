"""The words Rio's text shares between the drawing of a view (:mod:`games.rio_de_la_plata.text`) and
the wording of the legal moves (:mod:`games.rio_de_la_plata.text_moves`): identifiers, cells and
edges as a reader says them, and what the board says a character or a minor building costs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.rio_de_la_plata.board import Board, load_board

REQUIRES = {
    "no_building": "on a cell without a building",
    "own_hut": "on your own hut",
    "market": "on a market",
    "surrounded": "on a cell with 5 minor buildings or wall sections around it",
    "square_statue_tile": "on a square (statue tile)",
    "square_garden_tile": "on a square (garden tile)",
}


def words(identifier: Any) -> str:
    return str(identifier).replace("_", " ")


def cell_name(value: Any) -> str:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return f"({value[0]}, {value[1]})"
    return str(value).join("()") if isinstance(value, str) and "," in value else str(value)


def view_board(view: Mapping[str, Any]) -> Board:
    return load_board((view.get("config") or {}).get("board"))


Vertex = tuple[int, int]


def edge_vertices(key: str) -> tuple[Vertex, Vertex]:
    """An edge key ``"X1,Y1-X2,Y2"`` as its two vertices, the smaller first."""
    left, right = key.split("-")
    a = tuple(int(v) for v in left.split(","))
    b = tuple(int(v) for v in right.split(","))
    first, second = sorted((a, b))
    return (first[0], first[1]), (second[0], second[1])


def between(key: Any) -> str:
    """A section's or an attacker's line in words, by its two corners: "between (10, 9) and (10, 10)"
    (the board's edge key "10,9-10,10" is what a reader types, never what he reads)."""
    a, sep, b = str(key).partition("-")
    if not sep:
        return f"at {key}"
    return f"between ({a.replace(',', ', ')}) and ({b.replace(',', ', ')})"


def describe_edge(key: str) -> str:
    """Where an edge is, by its corners and in cells: the side of the cell below or to the right."""
    (x1, y1), (x2, y2) = edge_vertices(key)
    if y1 == y2:  # horizontal: between cells (x1, y1 - 1) and (x1, y1)
        return f"{between(key)}, the top of cell ({x1}, {y1})"
    return f"{between(key)}, the left side of cell ({x1}, {y1})"


def character_terms(board: Board, name: str) -> str:
    """A character's price and VP requirement (RIO-CHAR-3, RIO-CHAR-7)."""
    ch = board.characters.get(name) or {}
    return f"{ch.get('cost', '?')} silver, needs {ch.get('min_vp', '?')} VP"


def minor_terms(board: Board, name: str) -> str:
    """A minor building's cost (people and resources), the VP it gives and where it may stand."""
    minor = board.minors.get(name)
    if minor is None:
        return ""
    people = f"{minor.people} {'person' if minor.people == 1 else 'people'}"
    goods = " + ".join(f"{n} {good}" for good, n in minor.resources.items())
    where = REQUIRES.get(minor.requires, words(minor.requires))
    return f"{people}{' + ' + goods if goods else ''}, {minor.vp} VP, {where}"
