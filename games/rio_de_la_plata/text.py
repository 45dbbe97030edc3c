"""Rio de la Plata as plain text for the terminal client (``games.base.TextHooks``).

The view carries the state but not the board's geometry (districts, plaza, track sizes), which is
the game's data: the drawing reads it from the board document the view's configuration names (the
package's own when ``config.board`` is null), so it lives here, beside the data, rather than in
cli/. Pure functions of a view: nothing hidden is available to them (Rio hides only the seed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.rio_de_la_plata.annotate import annotate
from games.rio_de_la_plata.board import Board
from games.rio_de_la_plata.text_words import (
    Vertex,
    cell_name,
    character_terms,
    edge_vertices,
    view_board,
    words,
)

STEPS = {
    "A": "phase A: placing people",
    "resolve": "resolving the completed major buildings",
    "B": "phase B: actions",
    "B_end": "the ship sails",
    "roll": "phase C: the war check",
    "battle": "phase C: battle",
    "round_end": "the year ends",
    "game_end": "final scoring",
    "over": "the game is over",
}
GOODS = ("silver", "stone", "wood", "luxury")
CELL_WIDTH = 4
# Building codes of the text board: two letters, the first a capital, so that none can be read as a
# district (a single small letter: "a" .. "h") nor as another building (the SVG's one-letter codes,
# archive.LETTERS, made a hut of seat 0, "h0", look like district h).
CODES = {
    "hut": "Hu",
    "house": "Ho",
    "quarry": "Qu",
    "carpenter": "Cp",
    "market": "Mk",
    "company": "Co",
    "square": "Sq",
    "statue": "St",
    "garden": "Ga",
    "church": "Ch",
    "barracks": "Ba",
    "palace": "Pa",
    "cathedral": "Ca",
}
START = "*"
# Plain ASCII (a terminal that is not UTF-8 could not print box-drawing characters).
WALL = {"h": "=", "v": "#"}
ROAD = {"h": "-", "v": "|"}
PLAZA = "::"


def _name(seat: int | None, names: Mapping[int, str] | None) -> str:
    if seat is None:
        return "-"
    name = (names or {}).get(seat)
    return f"{seat} {name}" if name else f"seat {seat}"


def _people(ppl: Sequence[int]) -> str:
    """People on a cell, by seat: ``0:2`` (two of seat 0), ``01`` (one each of seats 0 and 1)."""
    present = [(seat, n) for seat, n in enumerate(ppl) if n]
    if len(present) == 1:
        seat, n = present[0]
        return f"{seat}:{n}" if n > 1 else f"{seat}"
    return "".join(str(seat) * n for seat, n in present)


def sections(view: Mapping[str, Any], board: Board) -> dict[tuple[Vertex, Vertex], str]:
    """Every wall and road section standing, printed or placed: edge -> ``wall`` or ``road``."""
    out: dict[tuple[Vertex, Vertex], str] = {}
    for kind, printed, placed in (
        ("road", board.printed_roads, view.get("roads") or []),
        ("wall", board.printed_walls, view.get("walls") or []),
    ):
        for a, b in printed:
            first, second = sorted((a, b))
            out[(first, second)] = kind
        for key in placed:
            out[edge_vertices(key)] = kind
    return out


def city_grid(view: Mapping[str, Any], board: Board) -> list[str]:
    """The city drawn cell by cell: two text lines per row (the building's code and owner, or the
    district's letter, with ``*`` on a start-zone cell; then the people on the cell by seat), and
    between rows and columns the cells' edges, where walls and roads stand."""
    city: Mapping[str, Any] = view.get("city") or {}
    standing = sections(view, board)

    def mark(edge: tuple[Vertex, Vertex], side: str) -> str:
        kind = standing.get(edge)
        return WALL[side] if kind == "wall" else ROAD[side] if kind == "road" else " "

    def vertex(x: int, y: int) -> str:
        touching = [
            ((x - 1, y), (x, y)),
            ((x, y), (x + 1, y)),
            ((x, y - 1), (x, y)),
            ((x, y), (x, y + 1)),
        ]
        return "+" if any(edge in standing for edge in touching) else " "

    head = "    " + "".join(f" {x:^{CELL_WIDTH}}" for x in range(board.width))
    lines = [head.rstrip()]
    for y in range(board.height + 1):
        border = "".join(
            vertex(x, y) + mark(((x, y), (x + 1, y)), "h") * CELL_WIDTH for x in range(board.width)
        )
        lines.append(("    " + border + vertex(board.width, y)).rstrip())
        if y == board.height:
            break
        top, bottom = [], []
        for x in range(board.width):
            cell = city.get(f"{x},{y}") or {}
            if (x, y) in board.plaza:
                label = PLAZA
            elif cell.get("b"):
                label = CODES.get(cell["b"], "?") + (str(cell["own"]) if cell.get("own") is not None else "")
            elif (x, y) in board.district:
                label = board.district[(x, y)].lower()
            else:
                label = ""
            if (x, y) in board.start_zone:
                label += START
            side = mark(((x, y), (x, y + 1)), "v")
            top.append(side + f"{label:^{CELL_WIDTH}}")
            bottom.append(side + f"{_people(cell.get('ppl') or []):^{CELL_WIDTH}}")
        last = mark(((board.width, y), (board.width, y + 1)), "v")
        lines.append((f"{y:>3} " + "".join(top) + last).rstrip())
        lines.append(("    " + "".join(bottom) + last).rstrip())
    return lines


def _held(name: str, data: Mapping[str, Any], view: Mapping[str, Any]) -> str:
    """A held character, with the phase its benefits start in while they have not (RIO-CHAR-5)."""
    start, year = data.get("from"), view.get("year")
    if not isinstance(start, int) or not isinstance(year, int):
        return words(name)
    if year < start or (year == start and view.get("step") in ("setup", "A")):
        return f"{words(name)} (works from phase B of {start})"
    return words(name)


def _occupants(row: Sequence[int | None], existing: Sequence[int]) -> str:
    return "[" + " ".join("." if row[i] is None else str(row[i]) for i in existing) + "]"


def _grid_spaces(
    row: Sequence[int | None], spaces: Sequence[tuple[int, int]], existing: Sequence[int]
) -> str:
    """A major building's grid: each space's VP, then its occupant (``.``: free), e.g. ``[5:. 5:0]``."""
    return "[" + " ".join(f"{spaces[i][0]}:{'.' if row[i] is None else row[i]}" for i in existing) + "]"


def render_text(view: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    """The whole table: the year and step, turn order, the city grid, players' stocks, the major
    buildings, tracks and spaces, characters, the ship, the enemies, a battle, the decision awaited
    and the result."""
    board = view_board(view)
    players = view.get("n") or len(view.get("p") or [])
    me = view.get("seat")
    awaiting = list(view.get("awaiting") or [])
    out: list[str] = []
    provisional = " (provisional board values)" if view.get("provisional_board") else ""
    out.append(
        f"Rio de la Plata, {players} players: year {view.get('year')} "
        f"({board.first_year} to {board.last_year}), "
        f"{STEPS.get(str(view.get('step')), view.get('step'))}{provisional}"
    )
    order = view.get("order") or []
    turn = view.get("turn")
    out.append(
        "Turn order: "
        + " > ".join(
            ("*" if i == turn and view.get("step") in ("A", "B") else "") + _name(s, names)
            for i, s in enumerate(order)
        )
    )

    out.append("")
    out.append(
        "The city (a.. districts, * the start zone, :: the Plaza Mayor, a building's code then its"
        " owner's seat; under each cell its people by seat, 0:2 for two of seat 0; walls = #, roads"
        " - |, on the cells' edges):"
    )
    out.extend(city_grid(view, board))
    legend = ", ".join(f"{code} {words(name)}" for name, code in CODES.items())
    out.append(f"  Buildings: {legend}.")
    standing = sections(view, board)
    for kind in ("wall", "road"):
        edges = sorted(edge for edge, what in standing.items() if what == kind)
        where = "; ".join(f"between ({a[0]}, {a[1]}) and ({b[0]}, {b[1]})" for a, b in edges) or "none"
        out.append(f"  {kind.capitalize()}s ({len(edges)}): {where}.")
    out.append(f"  {view.get('sections', '?')} wall and road sections left in the supply.")

    out.append("")
    out.append(f"  {'player':<22}{'VP':>4}{'silver':>8}{'stone':>7}{'wood':>6}{'luxury':>8}{'people':>8}")
    chars: Mapping[str, Any] = view.get("chars") or {}
    for seat, p in enumerate(view.get("p") or []):
        pointer = ">" if seat in awaiting else " "
        who = _name(seat, names) + (" (you)" if seat == me else "")
        owned = [_held(c, data, view) for c, data in chars.items() if data.get("owner") == seat]
        out.append(
            f"{pointer} {who:<22}{p.get('vp', 0):>4}{p.get('silver', 0):>8}{p.get('stone', 0):>7}"
            f"{p.get('wood', 0):>6}{p.get('luxury', 0):>8}{p.get('supply', 0):>8}"
            + (f"  characters: {', '.join(owned)}" if owned else "")
        )

    out.append("")
    out.append("Major buildings (each space's VP, then who is on it; . a free space) and the other spaces:")
    n = int(view.get("n") or len(view.get("p") or []) or 0)
    for name, major in (view.get("major") or {}).items():
        spec = board.majors.get(name)
        grids = major.get("grids") or []
        shown = []
        for gi, row in enumerate(grids):
            if spec is None:
                shown.append(_occupants(row, range(len(row))))
                continue
            shown.append(_grid_spaces(row, spec.grids[gi].spaces, spec.grids[gi].existing(n)))
        cost = f" (pay 1 {' and 1 '.join(spec.cost_goods)})" if spec and spec.cost == "all_of" else ""
        if spec and spec.cost == "one_of":
            cost = f" (pay 1 {' or 1 '.join(spec.cost_goods)})"
        out.append(f"  {words(name):<10} {' '.join(shown)}{' complete' if major.get('done') else cost}")
    tracks = view.get("track") or {}
    for name, row in tracks.items():
        out.append(f"  {name:<10} {_occupants(row, range(len(row)))}")
    for key, label in (("field", "field"), ("craft", "craftsmen"), ("dock", "dock"), ("otrack", "order")):
        counts = view.get(key) or []
        placed = ", ".join(f"{_name(s, names)}: {c}" for s, c in enumerate(counts) if c)
        out.append(f"  {label:<10} {placed or '-'}")
    spots = view.get("spots") or {}
    free = [
        f"{words(c)} ({character_terms(board, c)})"
        for c, data in chars.items()
        if data.get("owner") is None and c not in spots
    ]
    taken = [f"{words(c)} ({_name(s, names)})" for c, s in spots.items()]
    out.append(f"  characters in the bank: {', '.join(free) or 'none'}")
    if taken:
        out.append(f"  people on characters: {', '.join(taken)}")
    ship = view.get("ship") or {}
    if ship.get("at_sea"):
        where = "at sea"
    elif ship.get("in_play"):
        where = "in port" + (
            f", launch ordered by {_name(ship.get('launch'), names)}"
            if ship.get("launch") is not None
            else ""
        )
    else:
        where = "not in play"
    hold = ship.get("hold") or []
    loaded = ", ".join(
        f"{_name(s, names)}: " + "/".join(str(g) for g in goods) for s, goods in enumerate(hold) if any(goods)
    )
    out.append(f"  ship: {where}" + (f"; hold (stone/wood/luxury) {loaded}" if loaded else ""))
    enemies = view.get("enemy") or {}
    shown_enemies = []
    for enemy, index in enemies.items():
        track = board.enemies.get(enemy, {}).get("track") or ()
        value = track[index][0] if index < len(track) else "?"
        shown_enemies.append(f"{enemy} on space {index + 1} of {len(track)} (value {value})")
    out.append(f"  enemies: {', '.join(shown_enemies) or '-'}")

    battle = view.get("battle")
    if battle:
        out.append("")
        out.append(
            f"Battle against the {battle.get('enemy')}: {_name(battle.get('attacker'), names)} leads the "
            f"attack; stage {battle.get('stage')}, round {battle.get('round', 0)}."
        )
        for gid, group in sorted((battle.get("groups") or {}).items(), key=lambda item: int(item[0])):
            stack = " ".join("A" if s == -1 else str(s) for s in group.get("stack") or [])
            where = cell_name(group["at"]) if group.get("at") else f"edge {group.get('edge')}"
            side = "attackers" if group.get("side") == "a" else "defenders"
            out.append(f"  group {gid} ({side}): [{stack}] at {where}")

    out.append("")
    due = view.get("due") or []
    if view.get("result"):
        result = view["result"]
        winners = result.get("winners") or []
        out.append(
            "Game over. "
            + (f"Winner: {', '.join(_name(s, names) for s in winners)}" if winners else "No winner")
            + (f" ({result.get('reason')})" if result.get("reason") else "")
            + "."
        )
    elif due:
        first = due[0]
        what = first.get("kind")
        detail = first.get("building") or first.get("what") or ""
        out.append(
            f"Waiting for {_name(first.get('seat'), names)} to place a {what} {words(detail)}".rstrip() + "."
        )
    elif awaiting:
        out.append("Waiting for: " + ", ".join(_name(s, names) for s in awaiting) + ".")
    offer = view.get("offer")
    if offer:

        def terms(items: Mapping[str, int]) -> str:
            return ", ".join(f"{n} {words(item)}" for item, n in sorted(items.items())) or "nothing"

        state = "sent" if offer.get("sent") else "being written"
        author, recipient = _name(offer.get("from"), names), _name(offer.get("to"), names)
        out.append(
            f"Trade offer ({state}) from {author} to {recipient}: "
            f"gives {terms(offer.get('give') or {})} for {terms(offer.get('get') or {})}."
        )
    if me is not None and not view.get("result") and me not in awaiting:
        out.append("Nothing to do: waiting for the others.")
    return "\n".join(out)


def describe_event(event: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    """The engine's annotation of the event, with the players' names."""
    # The annotation reads these from the states around the event, which a client does not hold.
    if event.get("type") == "claimed":
        text = f"Seat {event.get('seat')} claims the {words(event.get('character'))}."
    elif event.get("type") == "offer_sent":
        text = f"Seat {event.get('seat')} sends the trade offer."
    else:
        text = annotate(None, dict(event), None)
    for seat in names or {}:
        text = text.replace(f"Seat {seat}", _name(seat, names)).replace(f"seat {seat}", _name(seat, names))
    return text
