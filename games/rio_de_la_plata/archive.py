"""Rio de la Plata's archive hooks (``games.base.ArchiveHooks``): one chapter per round, statistics
facts (VP by source, buildings, battles led and defended), and a summary drawn as an SVG city grid
with the tracks at the end of each round (HTML) or as tables (Markdown).

Facts need the VP each event gives, which only the rules compute, so ``game_facts`` folds the log once
(a few hundred milliseconds for a whole game)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from games.rio_de_la_plata.annotate import annotate
from games.rio_de_la_plata.board import default_board
from games.rio_de_la_plata.events import OVER
from games.rio_de_la_plata.evolve import evolve
from games.rio_de_la_plata.queries import cpair, ekey
from games.rio_de_la_plata.reference import reference

SEAT_COLOURS = ("#c0392b", "#27ae60", "#f1c40f", "#2c3e50", "#8e44ad")
LETTERS = {
    "hut": "h",
    "house": "H",
    "quarry": "Q",
    "carpenter": "C",
    "market": "M",
    "company": "Co",
    "square": "Sq",
    "statue": "St",
    "garden": "G",
    "church": "Ch",
    "barracks": "B",
    "palace": "P",
    "cathedral": "Ca",
}


def chapters(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One chapter per year: from the first event of its phase A to its ``round_ended`` (or the
    ``game_ended``) included."""
    out: list[dict[str, Any]] = []
    start = None
    year = None
    battle = None
    for index, event in enumerate(events):
        kind = event["type"]
        if kind == "game_started":
            year = int((event.get("config") or {}).get("first_year") or 1580)
        elif kind == "order_drawn":
            start = index + 1
        elif kind == "battle_started":
            battle = {"enemy": event.get("enemy"), "attacker": event.get("attacker")}
        elif kind in ("round_ended", "game_ended") and start is not None:
            title = f"{year}" + (f": battle against the {battle['enemy']}" if battle else "")
            out.append({"title": title, "start": start, "end": index + 1, "year": year, "battle": battle})
            start = index + 1
            battle = None
            if kind == "round_ended":
                year = event.get("year")
    return out


def _buildings(state: Any) -> int:
    return sum(1 for cell in state["city"].values() if cell["b"])


def game_facts(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    state = None
    seats = 0
    built: dict[str, int] = {}
    enemies: dict[str, int] = {}
    seat_totals: list[dict[str, int]] = []
    battle: dict[str, Any] | None = None
    for event in events:
        before = state
        state = evolve(state, dict(event))
        kind = event["type"]
        if kind == "game_started":
            seats = state["n"]
            seat_totals = [
                {
                    "buildings_built": 0,
                    "battles_led": 0,
                    "battles_led_won": 0,
                    "battles_defended": 0,
                    "battles_defended_won": 0,
                }
                for _ in range(seats)
            ]
        elif kind == "built":
            built[event["building"]] = built.get(event["building"], 0) + 1
            seat_totals[event["seat"]]["buildings_built"] += 1
        elif kind == "undone" and event["event"]["type"] == "built":  # RIO-UNDO-3: never built
            taken = event["event"]
            built[taken["building"]] -= 1
            if not built[taken["building"]]:
                del built[taken["building"]]
            seat_totals[taken["seat"]]["buildings_built"] -= 1
        elif kind == "battle_started" and before is not None:
            enemies[event["enemy"]] = enemies.get(event["enemy"], 0) + 1
            battle = {"attacker": event["attacker"], "buildings": _buildings(before)}
        elif kind == "battle_ended" and battle is not None:
            # The attacker wins a battle in which he destroyed at least one building.
            won = _buildings(state) < battle["buildings"]
            seat_totals[battle["attacker"]]["battles_led"] += 1
            seat_totals[battle["attacker"]]["battles_led_won"] += int(won)
            for seat in range(seats):
                if seat != battle["attacker"]:
                    seat_totals[seat]["battles_defended"] += 1
                    seat_totals[seat]["battles_defended_won"] += int(not won)
            battle = None
    over = state is not None and state["step"] == OVER
    result = state["result"] if over and state is not None else None
    vp_by_source: dict[str, int] = {}
    seat_counters: list[dict[str, dict[str, int]]] = []
    for seat in range(seats):
        sources = dict(state["p"][seat]["vp_by"]) if state is not None else {}
        seat_counters.append({"vp_by_source": sources})
        seat_totals[seat]["vp"] = state["p"][seat]["vp"] if state is not None else 0
        for source, amount in sources.items():
            vp_by_source[source] = vp_by_source.get(source, 0) + amount
    return {
        "seats": seats,
        "first_seat": state["order"][0] if state is not None and seats else None,
        "winners": list(result["winners"]) if result else [],
        "outcome": result["reason"] if result else "unfinished",
        "chapters": len(chapters(events)),
        "events": len(events),
        "seat_counters": seat_counters,
        "seat_totals": seat_totals,
        "counters": {"vp_by_source": vp_by_source, "buildings": built, "battles": enemies},
        "detail": {"years": state["year"] if state is not None else None},
    }


def summarize(state: Any, viewer: Any) -> dict[str, Any]:
    """What an export shows after a chapter: public data only (Rio hides nothing but the seed)."""
    board = state.board
    return {
        "year": state["year"],
        "width": board.width,
        "height": board.height,
        "districts": {f"{x},{y}": d for (x, y), d in board.district.items()},
        "plaza": sorted(f"{x},{y}" for x, y in board.plaza),
        "city": {
            key: {"b": cell["b"], "own": cell["own"], "ppl": cell["ppl"]}
            for key, cell in state["city"].items()
        },
        "walls": sorted({ekey(e) for e in board.printed_walls} | set(state["walls"])),
        "roads": sorted({ekey(e) for e in board.printed_roads} | set(state["roads"])),
        "players": [
            {k: p[k] for k in ("vp", "silver", "stone", "wood", "luxury", "supply")} for p in state["p"]
        ],
        "order": state["order"],
        "enemies": dict(state["enemy"]),
        "ship": {"in_play": state["ship"]["in_play"], "at_sea": state["ship"]["at_sea"]},
        "characters": {name: ch["owner"] for name, ch in state["chars"].items() if ch["owner"] is not None},
    }


def _name(chapter: Mapping[str, Any], seat: int) -> str:
    names = chapter.get("players") or []
    name = names[seat] if seat < len(names) and names[seat] else None
    return f"{name} (seat {seat})" if name else f"seat {seat}"


CELL = 22


LABEL_MARGIN = 16  # room for the web board's column and row numbers (``live`` drawing)


def city_svg(summary: Mapping[str, Any], *, label: str, live: bool = False) -> str:
    """The city grid as SVG: districts, the Plaza Mayor, buildings in their owner's colour, people,
    walls and roads (``summary`` as :func:`summarize` makes it). The HTML export draws each year with
    it; the web client's board (``board_template``) is the same drawing of the empty city with
    ``live``: every cell carries ``data-cell="x,y"`` and the layers the page module redraws from each
    view are empty groups (``g.rio-buildings``, ``g.rio-people``, ``g.rio-sections``), with column
    and row numbers, district letters and the start zone drawn for a player to find a cell by."""
    width, height = summary["width"], summary["height"]
    m = LABEL_MARGIN if live else 0
    box = f"{-m} {-m} {width * CELL + 2 + m} {height * CELL + 2 + m}"
    parts = [
        f'<svg class="rio-city" viewBox="{box}" '
        f'width="{width * CELL + 2 + m}" height="{height * CELL + 2 + m}" role="img" '
        f'aria-label="{escape(label)}">'
    ]
    for key, district in summary["districts"].items():
        x, y = cpair(key)
        shade = "#efe6d2" if (ord(district) % 2) else "#e3d8bf"
        data = f' data-cell="{key}" data-district="{escape(district)}"' if live else ""
        parts.append(f'<rect {_square(x, y)} fill="{shade}"{data}/>')
    for key in summary["plaza"]:
        x, y = cpair(key)
        data = f' data-cell="{key}" data-plaza=""' if live else ""
        parts.append(f'<rect {_square(x, y)} fill="#bfb59f"{data}/>')
    if live:
        parts.extend(_grid_labels(summary))
    parts.append('<g class="rio-buildings">' if live else "")
    people = []
    for key, cell in summary["city"].items():
        parts.append(_building_svg(key, cell))
        people.append(_people_svg(key, cell))
    parts.append('</g><g class="rio-people">' if live else "")
    parts.extend(people)
    parts.append('</g><g class="rio-sections">' if live else "")
    parts.extend(_sections_svg(summary["walls"], summary["roads"]))
    parts.append("</g>" if live else "")
    parts.append("</svg>")
    return "".join(parts)


def _grid_labels(summary: Mapping[str, Any]) -> list[str]:
    """Column numbers above, row numbers to the left (the moves name cells as (column, row)), each
    district's letter at its middle, the start zone outlined."""
    out = ['<g class="rio-labels" aria-hidden="true">']
    for x in range(summary["width"]):
        out.append(
            f'<text class="rio-coord" x="{x * CELL + 1 + CELL // 2}" y="-4" text-anchor="middle">{x}</text>'
        )
    for y in range(summary["height"]):
        out.append(
            f'<text class="rio-coord" x="-3" y="{y * CELL + 1 + CELL // 2 + 4}" text-anchor="end">{y}</text>'
        )
    cells: dict[str, list[tuple[int, int]]] = {}
    for key, district in summary["districts"].items():
        cells.setdefault(district, []).append(cpair(key))
    for district, members in sorted(cells.items()):
        cx = sum(x for x, _ in members) / len(members) * CELL + 1 + CELL / 2
        cy = sum(y for _, y in members) / len(members) * CELL + 1 + CELL / 2
        out.append(
            f'<text class="rio-district" x="{cx:.0f}" y="{cy + 8:.0f}" text-anchor="middle">'
            f"{escape(district)}</text>"
        )
    for key in summary.get("start_zone", []):
        x, y = cpair(key)
        out.append(f'<rect class="rio-start" {_square(x, y)}/>')
    out.append("</g>")
    return out


def _square(x: int, y: int) -> str:
    return f'x="{x * CELL + 1}" y="{y * CELL + 1}" width="{CELL}" height="{CELL}"'


def _building_svg(key: str, cell: Mapping[str, Any]) -> str:
    if not cell["b"]:
        return ""
    x, y = cpair(key)
    colour = SEAT_COLOURS[cell["own"] % 5] if cell["own"] is not None else "#7f6a4f"
    return (
        f'<rect x="{x * CELL + 3}" y="{y * CELL + 3}" width="{CELL - 4}" height="{CELL - 4}" '
        f'fill="{colour}" opacity="0.85"/><text x="{x * CELL + CELL // 2 + 1}" y="{y * CELL + 15}" '
        f'text-anchor="middle">{escape(LETTERS.get(cell["b"], "?"))}</text>'
    )


def _people_svg(key: str, cell: Mapping[str, Any]) -> str:
    x, y = cpair(key)
    out = []
    for seat, count in enumerate(cell["ppl"]):
        for i in range(count):
            out.append(
                f'<circle cx="{x * CELL + 5 + 5 * i}" cy="{y * CELL + CELL - 3}" r="2.5" '
                f'fill="{SEAT_COLOURS[seat % 5]}" stroke="#000" stroke-width="0.5"/>'
            )
    return "".join(out)


def _sections_svg(walls: Sequence[str], roads: Sequence[str]) -> list[str]:
    out = []
    for kind, colour, width_px in (("wall", "#333", 3), ("road", "#a0522d", 2)):
        for edge in walls if kind == "wall" else roads:
            left, right = edge.split("-")
            (x1, y1), (x2, y2) = cpair(left), cpair(right)
            out.append(
                f'<line class="rio-{kind}" x1="{x1 * CELL + 1}" y1="{y1 * CELL + 1}" x2="{x2 * CELL + 1}" '
                f'y2="{y2 * CELL + 1}" stroke="{colour}" stroke-width="{width_px}"/>'
            )
    return out


TRACK_LABEL = 78
TRACK_BOX = 24


def tracks_svg(board: Any) -> str:
    """The board's spaces beside the city, for the web client's board (``live`` drawing): every
    major building's grid (its spaces' VP), the mine and forest tracks (the people each space needs)
    and the two enemy tracks (their values), each space a ``rect`` the page module colours from a
    view (``data-major``/``data-grid``/``data-space``, ``data-track``/``data-space``,
    ``data-enemy``/``data-index``; ``data-min``: the fewest players with whom the space exists)."""
    rows: list[tuple[str, list[tuple[str, str]]]] = []
    for name, major in board.majors.items():
        for gi, grid in enumerate(major.grids):
            boxes = [
                (f'data-major="{name}" data-grid="{gi}" data-space="{i}" data-min="{low}"', str(vp))
                for i, (vp, low) in enumerate(grid.spaces)
            ]
            rows.append((name, boxes))
    for name, (_good, spaces) in board.tracks.items():
        boxes = [
            (f'data-track="{name}" data-space="{i}" data-min="{low}"', str(people))
            for i, (people, low) in enumerate(spaces)
        ]
        rows.append((name, boxes))
    for name, enemy in board.enemies.items():
        boxes = [
            (f'data-enemy="{name}" data-index="{i}"', str(value))
            for i, (value, _b) in enumerate(enemy["track"])
        ]
        rows.append((name, boxes))
    widest = max(len(boxes) for _, boxes in rows)
    width, height = TRACK_LABEL + widest * TRACK_BOX + 2, len(rows) * TRACK_BOX + 2
    parts = [
        f'<svg class="rio-tracks" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'role="img" aria-label="Major buildings, mine and forest tracks, enemy tracks">'
    ]
    for r, (name, boxes) in enumerate(rows):
        y = r * TRACK_BOX + 1
        parts.append(f'<text class="rio-track-name" x="2" y="{y + 16}">{escape(name)}</text>')
        for i, (data, text) in enumerate(boxes):
            x = TRACK_LABEL + i * TRACK_BOX
            parts.append(
                f'<g class="rio-space" {data}><rect x="{x}" y="{y}" width="{TRACK_BOX - 2}" '
                f'height="{TRACK_BOX - 2}" rx="3"/><text x="{x + TRACK_BOX // 2 - 1}" y="{y + 16}" '
                f'text-anchor="middle">{escape(text)}</text></g>'
            )
    parts.append("</svg>")
    return "".join(parts)


def board_template() -> str:
    """The web client's board (``games.base.WebHooks``): the export's city drawing of the package's
    board, empty, with the layers the page module fills, and the tracks beside it. A game on another
    board document is drawn on this geometry (the page module says so)."""
    board = default_board()
    summary = {
        "width": board.width,
        "height": board.height,
        "districts": {f"{x},{y}": d for (x, y), d in board.district.items()},
        "plaza": sorted(f"{x},{y}" for x, y in board.plaza),
        "city": {},
        "walls": [],
        "roads": [],
        "start_zone": [f"{x},{y}" for x, y in board.start_zone],
    }
    # The words a player reads the board by (costs, effects, what each space does), as data for the
    # page module: a JSON script element is never run, and innerHTML does not run scripts anyway.
    facts = json.dumps(reference(board)).replace("</", "<\\/")
    return (
        '<div class="rio-board">'
        + city_svg(summary, label="The city", live=True)
        + tracks_svg(board)
        + f'<script type="application/json" class="rio-reference">{facts}</script>'
        + "</div>"
    )


def render_chapter_html(summary: Mapping[str, Any], chapter: Mapping[str, Any]) -> str:
    parts = [city_svg(summary, label=f"The city at the end of {summary['year']}")]
    rows = []
    for seat, p in enumerate(summary["players"]):
        rows.append(
            f'<tr><td><span class="rio-chip" style="background:{SEAT_COLOURS[seat % 5]}"></span>'
            f"{escape(_name(chapter, seat))}</td><td>{p['vp']}</td><td>{p['silver']}</td>"
            f"<td>{p['stone']}</td><td>{p['wood']}</td><td>{p['luxury']}</td></tr>"
        )
    enemies = ", ".join(f"{escape(k)} on space {v + 1}" for k, v in summary["enemies"].items())
    ship = (
        "at sea"
        if summary["ship"]["at_sea"]
        else ("in port" if summary["ship"]["in_play"] else "not in play")
    )
    return (
        '<div class="rio-chapter">'
        + "".join(parts)
        + '<table class="rio-players"><tr><th>player</th><th>VP</th><th>silver</th><th>stone</th>'
        + "<th>wood</th><th>luxury</th></tr>"
        + "".join(rows)
        + f"</table><p>Enemy tracks: {enemies}. Ship: {ship}.</p></div>"
    )


def render_chapter_markdown(summary: Mapping[str, Any], chapter: Mapping[str, Any]) -> str:
    lines = ["| player | VP | silver | stone | wood | luxury |", "| --- | --- | --- | --- | --- | --- |"]
    for seat, p in enumerate(summary["players"]):
        cells = [_name(chapter, seat)] + [str(p[k]) for k in ("vp", "silver", "stone", "wood", "luxury")]
        lines.append("| " + " | ".join(cells) + " |")
    counts: dict[str, int] = {}
    for cell in summary["city"].values():
        if cell["b"]:
            counts[cell["b"]] = counts.get(cell["b"], 0) + 1
    lines.append("")
    lines.append("Buildings: " + (", ".join(f"{n} {b}" for b, n in sorted(counts.items())) or "none") + ".")
    return "\n".join(lines) + "\n"


RENDER_CSS = (
    ".rio-city text { font: 10px sans-serif; fill: #fff; }\n"
    ".rio-players { border-collapse: collapse; margin: 8px 0; font: 13px sans-serif; }\n"
    ".rio-players td, .rio-players th { padding: 2px 8px; border-bottom: 1px solid #ddd; }\n"
    ".rio-chip { display: inline-block; width: 10px; height: 10px; margin-right: 6px; }\n"
    # The web client's board (board_template) and its page module (web/renderer.js).
    ".rio-board svg { width: 100%; height: auto; display: block; margin-bottom: 8px; }\n"
    ".rio-tracks text { font: 12px sans-serif; fill: #2b2118; }\n"
    ".rio-space rect { fill: #f3ead4; stroke: #bfb59f; }\n"
    ".rio-space.absent { display: none; }\n"
    ".rio-space.taken text { fill: #fff; }\n"
    ".rio-space.done rect { stroke: #2b2118; stroke-width: 2; }\n"
    ".rio-space.rio-marker rect { fill: #2b2118; }\n"
    ".rio-space.rio-marker text { fill: #fff; font-weight: 700; }\n"
    ".rio-city rect[data-cell] { stroke: #d6cbb2; stroke-width: 0.5; }\n"
    ".rio-city rect.rio-legal { stroke: #7b2d26; stroke-width: 2; }\n"
    ".rio-city line.rio-wall { stroke: #333; stroke-width: 3; }\n"
    ".rio-city line.rio-road { stroke: #a0522d; stroke-width: 2; }\n"
    ".rio-city .rio-attackers { fill: #2b2118; opacity: 0.85; }\n"
    ".rio-city .rio-defenders { fill: none; stroke: #2b2118; stroke-width: 1.5; }\n"
    ".rio-city .rio-group-size { font: 700 11px sans-serif; fill: #fff; paint-order: stroke; stroke: #2b2118;"
    " stroke-width: 2px; }\n"
    ".rio-details { font-size: 13px; padding-left: 18px; }\n"
    # The web board: coordinates, districts, the start zone, people, and what may be clicked.
    ".rio-city text.rio-coord { font: 12px sans-serif; fill: #5b4d3b; }\n"
    ".rio-city text.rio-district { font: 700 24px sans-serif; fill: #2b2118; opacity: 0.14; }\n"
    ".rio-city rect.rio-start { fill: none; stroke: #1f4e79; stroke-width: 1.5; stroke-dasharray: 3 2; }\n"
    ".rio-city text.rio-letter { font: 700 11px sans-serif; fill: #fff; }\n"
    ".rio-city circle.rio-person { stroke: #000; stroke-width: 0.8; }\n"
    ".rio-city .rio-target { fill: rgba(123, 45, 38, 0.14); stroke: #7b2d26; stroke-width: 2;"
    " cursor: pointer; }\n"
    ".rio-city .rio-target:hover { fill: rgba(123, 45, 38, 0.35); }\n"
    ".rio-city .rio-target-edge { fill: rgba(123, 45, 38, 0.45); stroke: #7b2d26; stroke-width: 1;"
    " cursor: pointer; }\n"
    ".rio-city .rio-target-edge:hover { fill: #7b2d26; }\n"
    ".rio-space.pickable rect { stroke: #7b2d26; stroke-width: 2.5; cursor: pointer; }\n"
    ".rio-space.pickable:hover rect { fill: #f0c674; }\n"
    ".rio-tracks text.rio-track-name { font: 12px sans-serif; }\n"
    "table.rio-stocks th, table.rio-stocks td { padding: 4px 3px; }\n"
    "@media (max-width: 600px) { table.rio-stocks { font-size: 12px; } }\n"
)


def annotator_for(events: Sequence[Mapping[str, Any]], viewer: Any) -> Any:
    """Annotations reveal nothing hidden (the seed is never quoted), so one annotator serves all."""
    return annotate
