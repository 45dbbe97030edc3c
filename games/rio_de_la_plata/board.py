"""The board model of the specification (sections 20, 21 and 21.1) as validated, immutable data.

Every figure the rules need that the rulebook's text lost (the ``RIO-GAP-n`` items), and the rulebook's
own constants, come from one JSON document: ``data/board.json`` by default, or a document passed in
the game's configuration. Transcribing the real board changes that document, never the code. The
loader refuses a document of an unknown schema or version, an untagged datum, a value outside its
closed vocabulary or an inconsistent geometry (the eleven checks of section 21.1), naming the path.

The tagged values and the checks of one value are :mod:`games.rio_de_la_plata.document`'s, the
buildings' records and their reading :mod:`games.rio_de_la_plata.buildings`'; :class:`Board` reads
the rest and holds it all.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

from games.rio_de_la_plata.buildings import MINOR_BUILDINGS, read_majors, read_minors
from games.rio_de_la_plata.document import (
    GOODS,
    SOURCES,
    BoardError,
    Reader,
    amounts,
    check_min_players,
    check_tags,
    integer,
    pair,
)

SCHEMA_NAME = "rio-de-la-plata.board"
SCHEMA_VERSIONS = (2,)
CHARACTERS = (
    "artillerist",
    "captain",
    "master_quarryman",
    "master_carpenter",
    "road_builder",
    "protector",
    "shipowner",
    "master_craftsman",
    "merchant",
    "bishop",
    "architect",
    "governor",
)
MARKS = ("feather", "skull")

Cell = tuple[int, int]
Vertex = tuple[int, int]
Edge = tuple[Vertex, Vertex]


def _cell_key(cell: Cell) -> str:
    return f"{cell[0]},{cell[1]}"


def _edge_key(edge: Edge) -> str:
    (a, b), (c, d) = edge
    return f"{a},{b}-{c},{d}"


class Board:
    """The validated board. Cells are ``(x, y)``; every collection is immutable."""

    def __init__(self, doc: Mapping[str, Any]):
        schema = doc.get("schema") if isinstance(doc, Mapping) else None
        if not isinstance(schema, Mapping) or schema.get("name") != SCHEMA_NAME:
            raise BoardError(
                f"unknown board schema {schema!r}: expected name {SCHEMA_NAME!r}", "UNKNOWN_BOARD_SCHEMA"
            )
        if schema.get("version") not in SCHEMA_VERSIONS:
            raise BoardError(
                f"board schema version {schema.get('version')!r} is not supported "
                f"(this engine reads {list(SCHEMA_VERSIONS)})",
                "UNKNOWN_BOARD_SCHEMA",
            )
        if doc.get("src_values") != list(SOURCES):
            raise BoardError(f"src_values must be {list(SOURCES)}")
        body = {k: v for k, v in doc.items() if k not in ("schema", "src_values")}
        check_tags(body, "board", False)
        r = Reader(doc)
        self.hash = board_hash(doc)
        try:
            self._read_general(r)
            self._read_city(r)
            self.majors = read_majors(r)
            self._read_spaces(r)
            self._read_enemies(r)
            self._read_minors(r)
            self._read_rest(r)
        except BoardError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            # A value of the wrong shape deep inside a datum: still the caller's document error.
            raise BoardError(f"malformed board document ({type(exc).__name__}: {exc})") from None
        self.provisional_paths = tuple(sorted(r.provisional))
        self.provisional = bool(self.provisional_paths)

    # -- general ---------------------------------------------------------------------------
    def _read_general(self, r: Reader) -> None:
        self.min_players = r.get("players.min", int)
        self.max_players = r.get("players.max", int)
        if not 1 <= self.min_players <= self.max_players:
            raise BoardError("players: min must be at most max")
        self.first_year = r.get("rounds.first_year", int)
        self.last_year = r.get("rounds.last_year", int)
        if self.last_year < self.first_year:
            raise BoardError("rounds: last_year before first_year")
        self.discs = r.get("supply.discs_per_player", int)
        self.people = r.get("supply.people_per_player", int)
        self.per_round = r.get("supply.people_placed_per_round", int)
        self.purple = r.get("supply.purple_discs", int)
        self.sections = r.get("supply.wall_road_sections", int)
        self.hut_tiles = r.get("supply.hut_house_tiles_per_colour", int)
        pools = r.get("supply.building_tiles", dict)
        self.tile_pools = {k: integer(v, f"supply.building_tiles.{k}", 0) for k, v in pools.items()}
        self.start_stock = amounts(r.get("supply.start_stock"), "supply.start_stock")
        self.last_player_bonus = amounts(r.get("supply.last_player_bonus"), "supply.last_player_bonus")

    # -- city --------------------------------------------------------------------------------
    def _read_city(self, r: Reader) -> None:
        w = self.width = r.get("city.width", int)
        h = self.height = r.get("city.height", int)
        rows = r.get("city.cells", list)
        # 21.1 check 1
        if len(rows) != h or any(not isinstance(row, str) or len(row) != w for row in rows):
            raise BoardError(f"city.cells: expected {h} rows of {w} characters")
        for row in rows:
            for ch in row:
                if not (ch == "." or "A" <= ch <= "Z"):
                    raise BoardError(f"city.cells: {ch!r} is neither a district letter, P nor '.'")
        self.district: dict[Cell, str] = {}
        plaza: list[Cell] = []
        for y, row in enumerate(rows):
            for x, ch in enumerate(row):
                if ch == "P":
                    plaza.append((x, y))
                elif ch != ".":
                    self.district[(x, y)] = ch
        # check 2
        xs, ys = sorted({c[0] for c in plaza}), sorted({c[1] for c in plaza})
        if len(plaza) != 4 or len(xs) != 2 or len(ys) != 2 or xs[1] - xs[0] != 1 or ys[1] - ys[0] != 1:
            raise BoardError("city.cells: the P cells must form one 2x2 block")
        self.plaza = frozenset(plaza)
        self.cells: tuple[Cell, ...] = tuple(sorted(self.district, key=lambda c: (c[1], c[0])))
        self.playable = frozenset(self.cells) | self.plaza
        self.districts = tuple(sorted(set(self.district.values())))
        adjacency = r.get("city.placement_adjacency", str)
        if adjacency not in ("king", "rook"):
            raise BoardError("city.placement_adjacency must be 'king' or 'rook'")
        if r.get("city.battle_movement", str) != "rook":
            raise BoardError("city.battle_movement must be 'rook' (RIO-BATTLE-22)")
        steps = [(1, 0), (-1, 0), (0, 1), (0, -1)]
        diag = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
        around = steps + diag if adjacency == "king" else steps
        self.adjacent: dict[Cell, tuple[Cell, ...]] = {
            c: tuple((c[0] + dx, c[1] + dy) for dx, dy in around if (c[0] + dx, c[1] + dy) in self.district)
            for c in self.cells
        }
        self.rook: dict[Cell, tuple[Cell, ...]] = {
            c: tuple((c[0] + dx, c[1] + dy) for dx, dy in steps if (c[0] + dx, c[1] + dy) in self.playable)
            for c in self.playable
        }
        for name in self.districts:  # check 3: each district 4-connected
            members = {c for c, d in self.district.items() if d == name}
            seen, todo = set(), [next(iter(members))]
            while todo:
                c = todo.pop()
                if c in seen:
                    continue
                seen.add(c)
                todo.extend(n for n in self.rook.get(c, ()) if n in members)
            if seen != members:
                raise BoardError(f"city.cells: district {name} is not 4-connected")
        centres = r.get("city.district_centres", dict)
        self.centre_vertices: dict[str, frozenset[Vertex]] = {}
        for name, centre in centres.items():
            path = f"city.district_centres.{name}"
            if name not in self.districts:
                raise BoardError(f"{path}: no such district")
            if not isinstance(centre, Mapping) or len(centre) != 1:
                raise BoardError(f'{path}: expected {{"vertex": [X, Y]}} or {{"cell": [x, y]}}')
            if "vertex" in centre:
                vx, vy = pair(centre["vertex"], path)
                vertices = frozenset({(vx, vy)})
                touching = {(vx - 1, vy - 1), (vx, vy - 1), (vx - 1, vy), (vx, vy)}
            elif "cell" in centre:
                cx, cy = pair(centre["cell"], path)
                vertices = frozenset((cx + dx, cy + dy) for dx in (0, 1) for dy in (0, 1))
                touching = {(cx, cy)}
            else:
                raise BoardError(f"{path}: expected vertex or cell")
            if not any(self.district.get(c) == name for c in touching):
                raise BoardError(f"{path}: the centre does not touch a cell of district {name}")
            self.centre_vertices[name] = vertices
        if set(centres) != set(self.districts):
            raise BoardError("city.district_centres: every district needs exactly one centre")
        # check 4
        self.start_zone = self._cells(r.get("city.start_zone", list), "city.start_zone")
        self.plaza_adjacent = self._cells(r.get("city.plaza_adjacent", list), "city.plaza_adjacent")
        for c in self.plaza_adjacent:
            if not any((c[0] + dx, c[1] + dy) in self.plaza for dx in (-1, 0, 1) for dy in (-1, 0, 1)):
                raise BoardError(f"city.plaza_adjacent: {list(c)} does not neighbour the Plaza Mayor")
        self.max_per_cell = r.get("city.max_people_per_cell", int)
        limits = r.get("city.district_limits", dict)
        self.district_limits = {k: integer(v, "city.district_limits", 0) for k, v in limits.items()}
        # check 5
        self.wall_slots = self._edges(r.get("city.wall_slots", list), "city.wall_slots")
        self.road_slots = self._edges(r.get("city.road_slots", list), "city.road_slots")
        self.printed_walls = self._edges(r.get("city.printed_walls", list), "city.printed_walls")
        self.printed_roads = self._edges(r.get("city.printed_roads", list), "city.printed_roads")
        self.closed_edges = self._edges(r.get("city.closed_edges", list), "city.closed_edges")
        if not set(self.printed_walls) <= set(self.wall_slots):
            raise BoardError("city.printed_walls must be wall slots")
        if not set(self.printed_roads) <= set(self.road_slots):
            raise BoardError("city.printed_roads must be road slots")
        if not set(self.closed_edges) <= set(self.wall_slots) or set(self.closed_edges) & set(
            self.printed_walls
        ):
            raise BoardError("city.closed_edges must be wall slots without a printed wall")
        # The edges' keys as the state spells them (``queries.ekey``), made once: the legal moves
        # of every placement ask for them.
        self.wall_slot_keys = tuple(_edge_key(e) for e in self.wall_slots)
        self.road_slot_keys = tuple(_edge_key(e) for e in self.road_slots)
        self.printed_wall_keys = frozenset(_edge_key(e) for e in self.printed_walls)
        self.printed_road_keys = frozenset(_edge_key(e) for e in self.printed_roads)
        self.closed_edge_keys = frozenset(_edge_key(e) for e in self.closed_edges)
        # the cell inside the city behind each wall slot (entry edges lead into it)
        self.edge_cell: dict[Edge, Cell] = {}
        for edge in self.wall_slots:
            inside = [c for c in edge_cells(edge) if c in self.playable]
            if len(inside) != 1:
                raise BoardError(f"city.wall_slots: {edge} is not an outer edge of the city")
            self.edge_cell[edge] = inside[0]
        # The neighbourhoods by the state's cell keys ("x,y"), for the move listings' inner loops.
        self.rook_keys = {_cell_key(c): tuple(map(_cell_key, ns)) for c, ns in self.rook.items()}
        self.adjacent_keys = {_cell_key(c): tuple(map(_cell_key, ns)) for c, ns in self.adjacent.items()}
        self.row_order = {_cell_key(c): (c[1], c[0]) for c in self.cells}  # listings go row by row
        self.start_zone_keys = frozenset(map(_cell_key, self.start_zone))
        self.cell_walls: dict[Cell, tuple[Edge, ...]] = {}
        for edge, c in self.edge_cell.items():
            self.cell_walls[c] = self.cell_walls.get(c, ()) + (edge,)
        vertices = r.get("city.plaza_vertices", list)
        expected = {(x + dx, y + dy) for x, y in self.plaza for dx in (0, 1) for dy in (0, 1)}
        if {pair(v, "city.plaza_vertices") for v in vertices} != expected or len(vertices) != 9:
            raise BoardError("city.plaza_vertices must be the corners of the P cells")
        self.plaza_vertices = frozenset(expected)
        for site in ("fort_site", "port_site"):
            value = r.get(f"city.{site}", dict)
            if value == {"off_grid": True}:
                continue
            if set(value) != {"cells"}:
                raise BoardError(f'city.{site}: expected {{"off_grid": true}} or {{"cells": [...]}}')
            self._cells(value["cells"], f"city.{site}")

    def _cells(self, value: list, path: str) -> tuple[Cell, ...]:
        cells = tuple(pair(c, path) for c in value)
        if len(set(cells)) != len(cells):
            raise BoardError(f"{path}: a cell is listed twice")
        for c in cells:
            if c not in self.district:
                raise BoardError(f"{path}: {list(c)} is not a playable district cell")
        return cells

    def _edges(self, value: list, path: str) -> tuple[Edge, ...]:
        out = []
        for item in value:
            if not (isinstance(item, list) and len(item) == 2):
                raise BoardError(f"{path}: expected [[X1, Y1], [X2, Y2]], not {item!r}")
            a, b = sorted((pair(item[0], path), pair(item[1], path)))
            if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
                raise BoardError(f"{path}: {item} is not one unit long")
            for vx, vy in (a, b):
                if not (0 <= vx <= self.width and 0 <= vy <= self.height):
                    raise BoardError(f"{path}: {item} lies outside the grid")
            out.append((a, b))
        if len(set(out)) != len(out):
            raise BoardError(f"{path}: an edge is listed twice")
        return tuple(out)

    # -- mine, forest, field, craftsmen, dock ------------------------------------------------
    def _read_spaces(self, r: Reader) -> None:
        self.tracks: dict[str, tuple[str, tuple[tuple[int, int], ...]]] = {}
        for name in ("mine", "forest"):
            p = f"spaces.{name}"
            resource = r.get(f"{p}.resource", str)
            if resource not in ("stone", "wood"):
                raise BoardError(f"{p}.resource: stone or wood")
            spaces = []
            for i, space in enumerate(r.node(f"{p}.track")):
                people = r.value(space["people"], f"{p}.track[{i}].people", int)
                if people not in (1, 2, 3):
                    raise BoardError(f"{p}.track[{i}].people must be 1, 2 or 3")
                spaces.append((people, r.value(space["min_players"], f"{p}.track[{i}].min_players", int)))
            check_min_players([low for _, low in spaces], f"{p}.track")
            if r.get(f"{p}.yield_per_space", int) != 1:
                raise BoardError(f"{p}.yield_per_space: only 1 is supported")
            self.tracks[name] = (resource, tuple(spaces))
        self.field_people_per_silver = r.get("spaces.field.people_per_silver", int)
        for name in ("field", "craftsmen", "dock"):
            if r.get(f"spaces.{name}.capacity") is not None:
                raise BoardError(f"spaces.{name}.capacity: only null (unlimited, RIO-RL-17) is supported")
        exchange = r.get("spaces.craftsmen.exchange_per_person", dict)
        self.craft_give = tuple(exchange.get("give_one_of", ()))
        self.craft_get = exchange.get("get")
        if not set(self.craft_give) <= set(GOODS) or self.craft_get not in GOODS:
            raise BoardError("spaces.craftsmen.exchange_per_person: unknown goods")

    # -- enemies, round track -----------------------------------------------------------------
    def _read_enemies(self, r: Reader) -> None:
        self.enemies: dict[str, dict[str, Any]] = {}
        for name in ("natives", "pirates"):
            p = f"enemies.{name}"
            track = r.get(f"{p}.track", list)
            if not track:
                raise BoardError(f"{p}.track is empty")
            spaces = tuple(
                (integer(t.get("value"), f"{p}.track.value"), integer(t.get("bonus"), f"{p}.track.bonus", 0))
                for t in track
            )
            start = integer(r.get(f"{p}.start_index"), f"{p}.start_index", 0, len(spaces) - 1)
            reset = integer(r.get(f"{p}.reset_index"), f"{p}.reset_index", 0, len(spaces) - 1)
            mark = r.get(f"{p}.advance_mark", str)
            if mark not in MARKS:
                raise BoardError(f"{p}.advance_mark: feather or skull")
            self.enemies[name] = {
                "track": spaces,
                "start": start,
                "reset": reset,
                "superiority": r.get(f"{p}.military_superiority", bool),
                "mark": mark,
            }
        self.retreat = r.get("enemies.retreat_after_battle", int)
        reduction = r.get("enemies.bonus_reduction", dict)
        self.bonus_reduction = {
            int(k): integer(v, "enemies.bonus_reduction", 0) for k, v in reduction.items()
        }
        if set(self.bonus_reduction) != set(range(self.min_players, self.max_players + 1)):
            raise BoardError("enemies.bonus_reduction must cover every player count")  # check 11
        self.both_hit = r.get("enemies.both_hit_fights", str)
        if self.both_hit not in self.enemies:
            raise BoardError("enemies.both_hit_fights: natives or pirates")
        self.marks: dict[int, tuple[str, ...]] = {}
        previous = self.first_year
        for i, mark in enumerate(r.node("round_track.marks")):
            value = r.value(mark, f"round_track.marks[{i}]", dict)
            year = integer(value.get("to"), f"round_track.marks[{i}].to")
            if not previous < year <= self.last_year:  # check 8
                raise BoardError(f"round_track.marks[{i}].to: years must increase within the game")
            previous = year
            kinds = tuple(value.get("marks", ()))
            if not set(kinds) <= set(MARKS):
                raise BoardError(f"round_track.marks[{i}].marks: only feather and skull")
            self.marks[year] = kinds

    # -- minor buildings' use ------------------------------------------------------------------
    def _read_minors(self, r: Reader) -> None:
        self.minors = read_minors(r, self.tile_pools)
        self.surround_min = r.get("minor_buildings.square.surround_min", int)
        uses = r.node("building_use")
        if not set(uses) <= set(MINOR_BUILDINGS):
            raise BoardError("building_use: keys must be minor buildings")
        self.uses: dict[str, dict[str, Any]] = {}
        for name in uses:
            use = r.get(f"building_use.{name}", dict)
            self.uses[name] = {
                "pay": amounts(use.get("pay", {}), f"building_use.{name}.pay"),
                "choose_one": tuple(amounts(o, f"building_use.{name}") for o in use.get("choose_one", ())),
                "with_cathedral": tuple(
                    amounts(o, f"building_use.{name}") for o in use.get("with_cathedral", ())
                ),
            }

    # -- scoring, characters, ship, battle ------------------------------------------------------
    def _read_rest(self, r: Reader) -> None:
        self.per_house = r.get("district_scoring.per_house", int)
        self.production = tuple(r.get("district_scoring.production_buildings", list))
        penalty = r.get("district_scoring.production_penalty", dict)
        self.production_free = integer(penalty.get("free"), "district_scoring.production_penalty.free", 0)
        self.production_step = integer(penalty.get("per_extra"), "district_scoring.production_penalty")
        self.district_bonus = dict(r.get("district_scoring.bonus", dict))
        self.house_floor = r.get("district_scoring.floor_per_house", int)
        characters = r.node("characters")
        if set(characters) != set(CHARACTERS):  # check 10
            raise BoardError(f"characters must be exactly {list(CHARACTERS)}")
        self.characters = {name: dict(r.get(f"characters.{name}", dict)) for name in CHARACTERS}
        for name, ch in self.characters.items():
            integer(ch.get("cost"), f"characters.{name}.cost", 0)
            integer(ch.get("min_vp"), f"characters.{name}.min_vp", 0)
        self.penalty = amounts(r.get("character_failure_penalty"), "character_failure_penalty")
        self.noble = tuple(r.get("noble_buildings", list))
        for name in self.noble + self.production:
            if name not in MINOR_BUILDINGS:
                raise BoardError(f"{name!r} is not a minor building")
        purchase = r.get("resource_purchase", dict)
        self.buyable = tuple(purchase.get("goods", ()))
        self.buy_first = integer(purchase.get("first"), "resource_purchase.first", 0)
        self.buy_step = integer(purchase.get("step"), "resource_purchase.step", 0)
        ship = {
            k: r.get(f"ship.{k}")
            for k in (
                "hold_per_player",
                "goods_per_person",
                "launch_fee",
                "shipowner_share_of_fee",
                "voyage_years",
                "payout_per_good",
                "payout_per_set",
                "set_size",
                "set_bonus_mode",
            )
        }
        if ship["set_bonus_mode"] not in ("cumulative", "replaces"):
            raise BoardError("ship.set_bonus_mode: cumulative or replaces")
        self.ship = ship
        self.uses_per_round = r.get("rules.uses_per_round", dict)
        self.characters_per_round = r.get("rules.characters_per_round", int)
        dice = r.get("dice", dict)
        self.dice = (integer(dice.get("count"), "dice.count", 1), integer(dice.get("sides"), "dice.sides", 2))
        self.battle = {
            k: r.get(f"battle.{k}")
            for k in (
                "attackers_per_defending_player",
                "free_defenders_per_player",
                "recruit_cost",
                "max_group",
                "moves_by_group_size",
                "cannon_target_offset",
                "rounds_without_combat_to_end",
                "attacker_vp",
                "defender_vp_per_attacker_destroyed",
                "defender_vp_per_own_person_lost",
                "superiority_survivors",
            )
        }
        self.silver_per_vp = r.get("end_scoring.silver_per_vp", int)
        self.tie_breaks = tuple(r.get("end_scoring.tie_breaks", list))

    # -- derived helpers -------------------------------------------------------------------------
    def track_spaces(self, name: str, players: int) -> tuple[int, ...]:
        """People required by each existing space of the mine or forest track, in order."""
        return tuple(people for people, low in self.tracks[name][1] if low <= players)

    def entry_edges(self, walls: frozenset[Edge] | set[Edge]) -> tuple[Edge, ...]:
        """RIO-RL-69 (1): outer edges with no wall that are not closed."""
        closed = set(self.closed_edges)
        return tuple(e for e in self.wall_slots if e not in walls and e not in closed)


def edge_cells(edge: Edge) -> tuple[Cell, Cell]:
    """The two cells on either side of a unit edge."""
    (x1, y1), (x2, y2) = edge
    if y1 == y2:
        return (x1, y1 - 1), (x1, y1)
    return (x1 - 1, y1), (x1, y1)


def board_hash(doc: Mapping[str, Any]) -> str:
    canonical = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def default_document() -> dict[str, Any]:
    """The package's board document (``data/board.json``), parsed afresh (callers may modify it)."""
    return json.loads(_default_text())


@lru_cache(maxsize=1)
def _default_text() -> str:
    return resources.files(__package__).joinpath("data", "board.json").read_text("utf-8")


@lru_cache(maxsize=1)
def default_board() -> Board:
    return Board(default_document())


_BOARDS: dict[str, Board] = {}


def load_board(doc: Mapping[str, Any] | None) -> Board:
    """The validated board of ``doc`` (``None``: the package's board), cached by content hash."""
    if doc is None:
        return default_board()
    if not isinstance(doc, Mapping):
        raise BoardError("the board must be a JSON object")
    key = board_hash(doc)
    board = _BOARDS.get(key)
    if board is None:
        board = Board(doc)
        if len(_BOARDS) > 32:
            _BOARDS.clear()
        _BOARDS[key] = board
    return board
