"""Bring the version-1 board sketch of the Rio de la Plata specification (section 21) to schema
version 2 (section 21.1) and print it: explicit wall and road slots, plaza vertices, grids, closed
vocabularies, constants as data. Run once to produce games/rio_de_la_plata/data/board.json; the
file, not this script, is the source of truth afterwards (a transcribed board replaces it).

    python scripts/rio_board_v2.py ../shared/rules/rio-de-la-plata.md > games/rio_de_la_plata/data/board.json
"""

from __future__ import annotations

import json
import sys


def tag(value, src="rulebook", note=None):
    out = {"v": value, "src": src}
    if note:
        out["note"] = note
    return out


def unit_edges(width: int, height: int):
    for y in range(height + 1):
        for x in range(width):
            yield ((x, y), (x + 1, y))
    for x in range(width + 1):
        for y in range(height):
            yield ((x, y), (x, y + 1))


def edge_cells(edge):
    """The (up to two) cells on either side of a unit edge."""
    (x1, y1), (x2, y2) = edge
    if y1 == y2:  # horizontal edge at row line y1 between columns x1..x1+1
        return (x1, y1 - 1), (x1, y1)
    return (x1 - 1, y1), (x1, y1)


def convert(v1: dict) -> dict:
    d = json.loads(json.dumps(v1))
    d["schema"] = {"name": "rio-de-la-plata.board", "version": 2}
    d["src_values"] = ["rulebook", "board", "provisional", "ruling"]
    d["players"]["min"]["src"] = "ruling"
    d["supply"]["money_unlimited"]["src"] = "ruling"
    city = d["city"]
    width, height = city["width"]["v"], city["height"]["v"]
    rows = city["cells"]["v"]

    def kind(cell):
        x, y = cell
        if not (0 <= x < width and 0 <= y < height) or rows[y][x] == ".":
            return None
        return rows[y][x]

    walls, roads = [], []
    for edge in unit_edges(width, height):
        a, b = (kind(c) for c in edge_cells(edge))
        as_list = [list(edge[0]), list(edge[1])]
        if (a is None) != (b is None):
            walls.append(as_list)
        elif a is not None and b is not None and not (a == "P" and b == "P"):
            roads.append(as_list)
    city["wall_slots"] = tag(walls, "provisional", "outer unit edges; one section covers one cell side")
    city["road_slots"] = tag(roads, "provisional", "RIO-RL-56 default: unit edges between two playable cells")
    plaza = [(x, y) for y in range(height) for x in range(width) if rows[y][x] == "P"]
    vertices = sorted({(x + dx, y + dy) for x, y in plaza for dx in (0, 1) for dy in (0, 1)})
    city["plaza_vertices"] = tag([list(v) for v in vertices], "provisional", "the corners of the P cells")
    centres = city["district_centres"]
    centres["v"] = {k: {"vertex": v} for k, v in centres["v"].items()}
    city["fort_site"] = tag({"off_grid": True}, "provisional", city["fort_site"].get("note"))
    city["port_site"] = tag({"off_grid": True}, "rulebook", city["port_site"].get("note"))

    for name, building in d["major_buildings"].items():
        spaces = building.pop("spaces")
        grid = {"spaces": spaces["v"]}
        if "sections_on_completion" in building:
            grid["sections_on_completion"] = building.pop("sections_on_completion")["v"]
        building["grids"] = tag([grid], spaces["src"], spaces.get("note"))
        building.pop("district_bonus", None)
        if name in ("palace", "cathedral"):
            building["tile_cells"] = tag(1, "provisional")

    requires = {"surrounded_5": "surrounded"}
    for building in d["minor_buildings"].values():
        building["requires"]["v"] = requires.get(building["requires"]["v"], building["requires"]["v"])
        pools, side = building["tile"]["v"].split(":")
        building["tile"]["v"] = {"pools": pools.split("|"), "side": side}
    d["minor_buildings"]["square"]["surround_min"] = tag(5)

    ship = d["ship"]
    ship["payout_per_set"] = ship.pop("payout_per_set_of_3_same")
    ship["set_size"] = tag(3)
    ship["set_bonus_mode"]["src"] = "ruling"
    d["rules"] = {
        "uses_per_round": tag({"default": 1, "road_connected": 2}),
        "characters_per_round": tag(1),
    }
    d["battle"]["superiority_survivors"] = tag(1)
    d["dice"] = tag({"count": 2, "sides": 6})
    return d


def main() -> None:
    text = open(sys.argv[1], encoding="utf-8").read()
    start = text.index("```json") + len("```json")
    v1 = json.loads(text[start : text.index("```", start)])
    json.dump(convert(v1), sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
