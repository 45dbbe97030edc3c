"""The state of a Rio de la Plata game: a JSON-native ``dict`` (so a snapshot is the state itself)
carrying its validated board as an attribute (the board is derived from the configuration, never
serialised). ``evolve`` works on a copy (:meth:`State.copy`) that shares what no handler writes in
place: the configuration; the city's cell records, which every writer replaces whole
(``queries.put_cell`` after ``dict(cell)`` and ``list(cell["ppl"])``); the major buildings' and
the characters' records and the queue's entries, likewise replaced or taken off whole. The rest is
copied as deep as its layout goes. A search copies the state at every event, and the city is most
of it (about 60% of the bytes late in a game): this copy costs a third to a seventh of the orjson
round trip it replaces. ``tests/rio_de_la_plata/test_state_copy.py`` holds every handler to it
(``evolve`` never changes the state it is given).

Layout (seats are ints; a cell is the string ``"x,y"``; an edge the string ``"X1,Y1-X2,Y2"``):

* ``config``; ``n`` players; ``year``; ``step`` (see ``rules``); ``order`` (seats in turn order);
  ``turn`` (index into ``order`` of the player whose phase-A or phase-B turn it is); ``rng`` (random
  outcomes drawn so far); ``started`` (the phase-B turn's benefits were received).
* ``p[seat]``: stock (``silver``, ``stone``, ``wood``, ``luxury``), ``vp``, ``supply`` (people not on
  the board), ``placed`` and ``buys`` this round, ``char_placed`` this round, ``mark`` (attack mark),
  ``huts`` (own hut/house tiles in stock), ``vp_by`` (VP by source, for statistics).
* ``city[cell]`` (only cells with something on them): ``b`` building or ``None``, ``own`` the owner of
  a hut/house, ``pool`` the tile pool, ``built`` the year of the last building, ``uses``/``uy`` the
  uses counted in year ``uy`` (RIO-RL-59), ``ppl[seat]`` people.
* ``major[name]``: ``grids`` (occupant seat or ``None`` per space of the board's grid) and ``done``.
* ``track[name]``: occupant per existing space; ``field``/``craft``/``dock``/``otrack``: people per seat.
* ``chars[name]``: ``owner`` and ``from`` (first year its benefits apply); ``spots[name]``: the seat
  that placed on it this round.
* ``walls``/``roads``: placed sections (printed ones come from the board); ``sections`` left.
* ``tiles[pool]``: free building tiles; ``fort``; ``ship``; ``enemy[name]``: marker index.
* ``queue``: completed grids awaiting resolution; ``due``: decisions the engine waits for before the
  current turn goes on (tile site, sections, the Merchant's resource); ``battle`` (or ``None``);
  ``result`` once the game is over.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.rio_de_la_plata.board import Board

_ATOMS = frozenset((int, str, bool, float, type(None)))


def _deep(value: Any) -> Any:
    """A deep copy of JSON data (tuples become lists, as a JSON round trip makes them)."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _ATOMS else _deep(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [v if type(v) in _ATOMS else _deep(v) for v in value]
    return value


def _players(value: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**p, "vp_by": dict(p["vp_by"])} for p in value]


def _ship(value: dict[str, Any]) -> dict[str, Any]:
    return {**value, "hold": [list(h) for h in value["hold"]]}


def _battle(value: dict[str, Any]) -> dict[str, Any]:
    new = dict(value)
    for key, item in value.items():
        if type(item) not in _ATOMS:
            if key == "groups":  # a group's only container is its stack
                new[key] = {gid: {**g, "stack": list(g["stack"])} for gid, g in item.items()}
            else:
                new[key] = _deep(item)
    return new


def _none_or(copier: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else copier(value)


# How each part of the layout (see above) is copied: ``None`` shares it (a number, a string, or
# the configuration, which is never written: a search's sample replaces it whole); a part not named
# here is copied whole (_deep).
_COPIERS: dict[str, Callable[[Any], Any] | None] = {
    "config": None,
    "n": None,
    "year": None,
    "step": None,
    "order": list,
    "turn": None,
    "rng": None,
    "started": None,
    "p": _players,
    "city": dict,  # cell records are replaced, never changed in place
    "major": dict,  # likewise the major buildings' records (evolve._put_grid)
    "track": lambda v: {name: list(t) for name, t in v.items()},
    "field": list,
    "craft": list,
    "dock": list,
    "otrack": list,
    "chars": dict,  # a character's record is replaced when it changes hands
    "spots": dict,
    "walls": list,
    "roads": list,
    "sections": None,
    "tiles": dict,
    "fort": None,
    "ship": _ship,
    "enemy": dict,
    "queue": list,  # its entries are taken off whole
    "due": lambda v: [dict(d) for d in v],
    "battle": _none_or(_battle),
    "roll": None,
}


class State(dict):
    """A game state: JSON data plus its board (``state.board``)."""

    board: Board
    # What an undo goes back to (games.rio_de_la_plata.undo): the state before the last decision and
    # that decision, while it may be taken back; kept out of the JSON so no view shows it.
    taken: tuple[State, dict[str, Any]] | None = None

    def copy(self) -> State:
        """A state ``evolve`` may write (see the module's docstring for what it shares)."""
        get = _COPIERS.get
        new = State(
            {
                key: value if (copier := get(key, _deep)) is None else copier(value)
                for key, value in self.items()
            }
        )
        new.board = self.board
        new.taken = self.taken
        return new


def make_state(data: dict[str, Any], board: Board) -> State:
    state = State(data)
    state.board = board
    return state
