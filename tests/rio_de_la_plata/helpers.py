"""Helpers for Rio de la Plata tests: random legal games, conservation counts, small scenarios."""

from __future__ import annotations

import random
from typing import Any

from games.base import fold
from games.rio_de_la_plata import GAME
from games.rio_de_la_plata.rules import ckey, evolve
from games.rio_de_la_plata.state import State


def new_game(players: int = 3, seed: int = 1, board: dict | None = None) -> tuple[State, list[dict]]:
    raw: dict[str, Any] = {"players": players, "seed": seed}
    if board is not None:
        raw["board"] = board
    log = GAME.start(GAME.configure(raw))
    return fold(GAME, log), log


def play(state: State, seat: int, command: dict, log: list[dict] | None = None) -> State:
    events = GAME.decide(state, seat, command)
    if log is not None:
        log.extend(events)
    for event in events:
        state = evolve(state, event)
    return state


def random_game(players: int, seed: int, check=None, limit: int = 100_000) -> tuple[State, list[dict]]:
    state, log = new_game(players, seed)
    rng = random.Random(seed)
    steps = 0
    while not GAME.is_over(state):
        seat = GAME.awaiting(state)[0]
        moves = GAME.legal_moves(state, seat)
        if check is not None:
            check(state, seat, moves)
        state = play(state, seat, rng.choice(moves), log)
        steps += 1
        assert steps < limit, "the game did not end"
    return state, log


def people_of(state: State, seat: int) -> int:
    """Where each of a player's people is: supply and every kind of space (conservation)."""
    total = state["p"][seat]["supply"]
    total += sum(cell["ppl"][seat] for cell in state["city"].values())
    for major in state["major"].values():
        total += sum(1 for grid in major["grids"] for who in grid if who == seat)
    board = state.board
    for name, occupants in state["track"].items():
        spaces = board.track_spaces(name, state["n"])
        total += sum(spaces[i] for i, who in enumerate(occupants) if who == seat)
    for space in ("field", "craft", "dock", "otrack"):
        total += state[space][seat]
    total += sum(1 for who in state["spots"].values() if who == seat)
    battle = state["battle"]
    if battle and battle.get("groups"):
        total += sum(g["stack"].count(seat) for g in battle["groups"].values())
    return total


def set_cell(state: State, cell: tuple[int, int], **fields: Any) -> None:
    record = {
        "b": None,
        "own": None,
        "pool": None,
        "built": None,
        "uses": 0,
        "uy": 0,
        "ppl": [0] * state["n"],
    }
    record.update(state["city"].get(ckey(cell), {}))
    record.update(fields)
    state["city"][ckey(cell)] = record


def at_turn(state: State, seat: int) -> State:
    """The same state with ``seat`` first in turn order and its turn under way."""
    state = state.copy()
    order = [seat] + [s for s in state["order"] if s != seat]
    state["order"] = order
    state["turn"] = 0
    return state


def rule_moves(state: State, seat: int) -> list[dict]:
    """The seat's legal moves without the free commands (purchases and trades, RIO-RL-27), which
    every player has whenever the game awaits anybody."""
    from games.rio_de_la_plata.trade import FREE_COMMANDS

    return [m for m in GAME.legal_moves(state, seat) if m["type"] not in FREE_COMMANDS]
