"""The state of a Rio de la Plata game: a JSON-native ``dict`` (so a snapshot is the state itself)
carrying its validated board as an attribute (the board is derived from the configuration, never
serialised). ``evolve`` works on a deep copy made through orjson, which is several times faster than
``copy.deepcopy`` on this shape of data.

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

from typing import Any

import orjson

from games.rio_de_la_plata.board import Board


class State(dict):
    """A game state: JSON data plus its board (``state.board``)."""

    board: Board
    # What an undo goes back to (games.rio_de_la_plata.undo): the state before the last decision and
    # that decision, while it may be taken back; kept out of the JSON so no view shows it.
    taken: tuple[State, dict[str, Any]] | None = None

    def copy(self) -> State:
        new = State(orjson.loads(orjson.dumps(self)))
        new.board = self.board
        new.taken = self.taken
        return new


def make_state(data: dict[str, Any], board: Board) -> State:
    state = State(data)
    state.board = board
    return state
