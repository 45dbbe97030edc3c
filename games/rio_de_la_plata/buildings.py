"""The buildings of a board document (sections 20 and 21): the major buildings' costs and grids and
the minor buildings' people, resources, VP, requirements and tiles, read and checked (check 6 and 9
of section 21.1) into frozen records. :class:`games.rio_de_la_plata.board.Board` holds them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from games.rio_de_la_plata.document import GOODS, BoardError, Reader, amounts, check_min_players, integer

MINOR_BUILDINGS = (
    "hut",
    "house",
    "quarry",
    "carpenter",
    "market",
    "company",
    "square",
    "statue",
    "garden",
    "church",
    "barracks",
)
REQUIRES = ("no_building", "own_hut", "market", "square_statue_tile", "square_garden_tile", "surrounded")
MAJOR_BUILDINGS = ("palace", "cathedral", "fort", "port", "walls", "roads")


@lru_cache(maxsize=256)
def _existing(spaces: tuple[tuple[int, int], ...], players: int) -> tuple[int, ...]:
    """The spaces of a grid in play with ``players`` (asked at every placement listing)."""
    return tuple(i for i, (_, low) in enumerate(spaces) if low <= players)


@dataclass(frozen=True)
class Grid:
    spaces: tuple[tuple[int, int], ...]  # (vp, min_players)
    sections: int  # sections placed on completion (walls and roads), else 0

    def existing(self, players: int) -> tuple[int, ...]:
        return _existing(self.spaces, players)


@dataclass(frozen=True)
class Major:
    name: str
    cost: str  # all_of | one_of | none
    cost_goods: tuple[str, ...]
    grids: tuple[Grid, ...]
    completer_bonus: int
    tile: str  # plaza_adjacent | fixed_site
    repeatable: bool


@dataclass(frozen=True)
class Minor:
    name: str
    people: int
    resources: dict[str, int]
    vp: int
    requires: str
    pools: tuple[str, ...]
    side: str
    owned: bool


def read_majors(r: Reader) -> dict[str, Major]:
    """The major buildings (``major_buildings``): costs, grids, completer bonus, tile."""
    majors = r.node("major_buildings")
    if set(majors) != set(MAJOR_BUILDINGS):
        raise BoardError(f"major_buildings must hold exactly {list(MAJOR_BUILDINGS)}")
    out: dict[str, Major] = {}
    for name in MAJOR_BUILDINGS:
        p = f"major_buildings.{name}"
        cost = r.get(f"{p}.cost_per_space", dict)
        if list(cost) == ["none"]:
            kind, goods = "none", ()
        elif len(cost) == 1 and next(iter(cost)) in ("all_of", "one_of"):
            kind = next(iter(cost))
            goods = tuple(cost[kind])
            if not goods or not set(goods) <= {"stone", "wood", "luxury"}:
                raise BoardError(f"{p}.cost_per_space: unknown goods {goods}")
        else:
            raise BoardError(f"{p}.cost_per_space: expected all_of, one_of or none")
        grids = []
        for gi, grid in enumerate(r.get(f"{p}.grids", list)):
            gp = f"{p}.grids[{gi}]"
            spaces = tuple(
                (integer(s.get("vp"), f"{gp}.vp", 0), integer(s.get("min_players"), f"{gp}.min_players"))
                for s in grid.get("spaces", [])
            )
            check_min_players([low for _, low in spaces], gp)
            sections = 0
            if name in ("walls", "roads"):
                sections = integer(grid.get("sections_on_completion"), f"{gp}.sections_on_completion", 0)
            grids.append(Grid(spaces, sections))
        if not grids or (name not in ("walls", "roads") and len(grids) != 1):
            raise BoardError(f"{p}.grids: exactly one grid for {name}" if grids else f"{p}: no grid")
        tile = "none"
        if name not in ("walls", "roads"):
            tile = r.get(f"{p}.tile", str)
            if tile not in ("plaza_adjacent", "fixed_site"):
                raise BoardError(f"{p}.tile: expected plaza_adjacent or fixed_site")
        out[name] = Major(
            name,
            kind,
            goods,
            tuple(grids),
            r.get(f"{p}.completer_bonus_vp", int),
            tile,
            r.get(f"{p}.repeatable", bool),
        )
    return out


def read_minors(r: Reader, tile_pools: Mapping[str, int]) -> dict[str, Minor]:
    """The minor buildings (``minor_buildings``): people, resources, VP, requirement, tile (from
    ``tile_pools``, the supply's building tiles, or the hut/house tiles)."""
    minors = r.node("minor_buildings")
    if set(minors) != set(MINOR_BUILDINGS):  # check 9
        raise BoardError(f"minor_buildings must hold exactly {list(MINOR_BUILDINGS)}")
    out: dict[str, Minor] = {}
    for name in MINOR_BUILDINGS:
        p = f"minor_buildings.{name}"
        requires = r.get(f"{p}.requires", str)
        if requires not in REQUIRES:
            raise BoardError(f"{p}.requires: {requires!r} is not one of {list(REQUIRES)}")
        tile = r.get(f"{p}.tile", dict)
        pools = tuple(tile.get("pools", ()))
        for pool in pools:
            if pool != "hut/house" and pool not in tile_pools:
                raise BoardError(f"{p}.tile: unknown pool {pool!r}")
        out[name] = Minor(
            name,
            r.get(f"{p}.people", int),
            amounts(r.get(f"{p}.resources"), f"{p}.resources", GOODS),
            r.get(f"{p}.vp", int),
            requires,
            pools,
            str(tile.get("side")),
            r.get(f"{p}.owned", bool),
        )
    return out
