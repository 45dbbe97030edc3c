"""Questions about a state that every part of the rules asks: keys and geometry of the city, who
holds a character, limits of a cell, the seeded draw, the price of a purchase. It imports no other
part of the rules, so ``evolve``, the automatic ``steps``, the ``battle``, ``trade`` and ``decide``
all stand on it without import circles. Rule IDs refer to ``shared/rules/rio-de-la-plata.md``."""

from __future__ import annotations

from functools import lru_cache
from random import Random
from typing import Any

from games.rio_de_la_plata.board import Edge
from games.rio_de_la_plata.config import SHIPOWNER_FROM_PHASE_B, revision
from games.rio_de_la_plata.events import (
    A,
)
from games.rio_de_la_plata.state import State

GOODS = ("stone", "wood", "luxury")


def ckey(cell: tuple[int, int] | list[int]) -> str:
    return f"{cell[0]},{cell[1]}"


@lru_cache(maxsize=4096)
def cpair(key: str) -> tuple[int, int]:
    x, y = key.split(",")
    return int(x), int(y)


def ekey(edge: Edge) -> str:
    (a, b), (c, d) = edge
    return f"{a},{b}-{c},{d}"


@lru_cache(maxsize=4096)
def epair(key: str) -> Edge:
    left, right = key.split("-")
    return cpair(left), cpair(right)


def cell_of(s: State, key: str) -> dict[str, Any]:
    """The stored content of a cell (an empty record when nothing is there; not stored)."""
    cell = s["city"].get(key)
    if cell is None:
        return {"b": None, "own": None, "pool": None, "built": None, "uses": 0, "uy": 0, "ppl": [0] * s["n"]}
    return cell


def put_cell(s: State, key: str, cell: dict[str, Any]) -> None:
    if cell["b"] is None and not any(cell["ppl"]) and cell["built"] is None:
        s["city"].pop(key, None)
    else:
        s["city"][key] = cell


def walls(s: State) -> set[str]:
    return set(s["walls"]) | s.board.printed_wall_keys


def roads(s: State) -> set[str]:
    return set(s["roads"]) | s.board.printed_road_keys


def reached_vertices(s: State) -> set[tuple[int, int]]:
    """RIO-RL-56: vertices joined to the Plaza Mayor by a chain of road sections."""
    edges = [epair(k) for k in roads(s)]
    by_vertex: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for a, b in edges:
        by_vertex.setdefault(a, []).append(b)
        by_vertex.setdefault(b, []).append(a)
    seen: set[tuple[int, int]] = set()
    todo = [v for v in s.board.plaza_vertices if v in by_vertex]
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        todo.extend(by_vertex.get(v, ()))
    return seen


def connected_districts(s: State) -> set[str]:
    """RIO-ROAD-2: districts whose centre is joined to the Plaza Mayor by roads."""
    reached = reached_vertices(s)
    return {d for d, vertices in s.board.centre_vertices.items() if vertices & reached}


PHASE_A = ("setup", A)


def active(s: State, name: str, seat: int) -> bool:
    """RIO-CHAR-5, RIO-RL-22, RIO-RL-58: a character's benefits apply from phase B of the year after
    it came (``from``), however it came (placement or trade). Only the Shipowner has a benefit in
    phase A (his share of a launch fee, RIO-SHIP-6); rules revision 1 let it work from phase A of
    that year."""
    ch = s["chars"][name]
    if ch["owner"] != seat:
        return False
    if s["year"] != ch["from"]:
        return s["year"] > ch["from"]
    return s["step"] not in PHASE_A or revision(s["config"]) < SHIPOWNER_FROM_PHASE_B


def holder(s: State, name: str) -> int | None:
    owner = s["chars"][name]["owner"]
    if owner is not None and active(s, name, owner):
        return owner
    return None


def gain_vp(s: State, seat: int, amount: int, source: str) -> None:
    """Add (or, for a penalty, remove) VP; VP never drop below 0 (RIO-RL-2)."""
    p = s["p"][seat]
    before = p["vp"]
    p["vp"] = max(0, before + amount)
    p["vp_by"][source] = p["vp_by"].get(source, 0) + (p["vp"] - before)


def house_adjacent(s: State, key: str, seat: int) -> bool:
    """RIO-USE-2: the cell is adjacent to one of the seat's own houses (huts do not count)."""
    for n in s.board.adjacent[cpair(key)]:
        cell = s["city"].get(ckey(n))
        if cell and cell["b"] == "house" and cell["own"] == seat:
            return True
    return False


def uses_limit(s: State, key: str) -> int:
    """RIO-USE-4, RIO-ROAD-3: uses per round of the building on a cell."""
    district = s.board.district[cpair(key)]
    limits = s.board.uses_per_round
    return limits["road_connected"] if district in connected_districts(s) else limits["default"]


def uses_this_round(s: State, cell: dict[str, Any]) -> int:
    return cell["uses"] if cell["uy"] == s["year"] else 0


UPGRADES = {"hut": ("house",), "market": ("company",), "square": ("statue", "garden")}


def cell_limit(s: State, key: str, cell: dict[str, Any]) -> int:
    """RIO-CITY-7, RIO-RL-59: people a cell may hold."""
    b = cell["b"]
    if b is None:
        return s.board.max_per_cell
    use = uses_limit(s, key) if b in s.board.uses else 0
    upgrade = max((s.board.minors[u].people for u in UPGRADES.get(b, ())), default=0)
    return min(s.board.max_per_cell, max(use, upgrade))


def draw(s: State) -> Random:
    return Random(f"{s['config']['seed']}/{s['rng']}")


def current(s: State) -> int:
    return s["order"][s["turn"]]


def hold_capacity(s: State) -> int:
    return s.board.ship["hold_per_player"] * s["n"]


def hold_total(s: State) -> int:
    return sum(sum(h) for h in s["ship"]["hold"])


def any_tile(s: State, name: str) -> bool:
    return any(c["b"] == name for c in s["city"].values())


def winners(s: State) -> list[int]:
    """RIO-END-7, RIO-RL-47."""

    def key(seat: int) -> tuple[int, ...]:
        p = s["p"][seat]
        return (p["vp"], p["silver"], p["luxury"], p["stone"] + p["wood"])

    best = max(key(seat) for seat in range(s["n"]))
    return [seat for seat in range(s["n"]) if key(seat) == best]


def tile_sites(s: State, name: str) -> list[str]:
    """RIO-MAJOR-8, RIO-RL-10, RIO-RL-57."""
    cells = [ckey(c) for c in s.board.plaza_adjacent]
    free = [k for k in cells if cell_of(s, k)["b"] is None]
    if free:
        return free
    other = "cathedral" if name == "palace" else "palace"
    return [k for k in cells if cell_of(s, k)["b"] != other]


def free_slots(s: State, kind: str) -> list[str]:
    if kind == "wall":
        taken = walls(s)
        closed = s.board.closed_edge_keys
        return [k for k in s.board.wall_slot_keys if k not in taken and k not in closed]
    taken = roads(s)
    return [k for k in s.board.road_slot_keys if k not in taken]


def buy_price(s: State, seat: int) -> int:
    """RIO-TRADE-2: the first purchase of a round costs ``first``, each next one ``step`` more."""
    return s.board.buy_first + s["p"][seat]["buys"] * s.board.buy_step
