"""Rio de la Plata as plain text for the terminal client (``games.base.TextHooks``).

The view carries the state but not the board's geometry (districts, plaza, track sizes), which is
the game's data: the drawing reads it from the board document the view's configuration names (the
package's own when ``config.board`` is null), so it lives here, beside the data, rather than in
cli/. Pure functions of a view: nothing hidden is available to them (Rio hides only the seed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.rio_de_la_plata.annotate import annotate
from games.rio_de_la_plata.board import Board, load_board

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
REQUIRES = {
    "no_building": "on a cell without a building",
    "own_hut": "on your own hut",
    "market": "on a market",
    "surrounded": "on a cell with 5 minor buildings or wall sections around it",
    "square_statue_tile": "on a square (statue tile)",
    "square_garden_tile": "on a square (garden tile)",
}


def _name(seat: int | None, names: Mapping[int, str] | None) -> str:
    if seat is None:
        return "-"
    name = (names or {}).get(seat)
    return f"{seat} {name}" if name else f"seat {seat}"


def _words(identifier: Any) -> str:
    return str(identifier).replace("_", " ")


def _cell(value: Any) -> str:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return f"({value[0]}, {value[1]})"
    return str(value).join("()") if isinstance(value, str) and "," in value else str(value)


def _board(view: Mapping[str, Any]) -> Board:
    return load_board((view.get("config") or {}).get("board"))


def _people(ppl: Sequence[int]) -> str:
    """People on a cell, by seat: ``0:2`` (two of seat 0), ``01`` (one each of seats 0 and 1)."""
    present = [(seat, n) for seat, n in enumerate(ppl) if n]
    if len(present) == 1:
        seat, n = present[0]
        return f"{seat}:{n}" if n > 1 else f"{seat}"
    return "".join(str(seat) * n for seat, n in present)


Vertex = tuple[int, int]


def _edge(key: str) -> tuple[Vertex, Vertex]:
    """An edge key ``"X1,Y1-X2,Y2"`` as its two vertices, the smaller first."""
    left, right = key.split("-")
    a = tuple(int(v) for v in left.split(","))
    b = tuple(int(v) for v in right.split(","))
    first, second = sorted((a, b))
    return (first[0], first[1]), (second[0], second[1])


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
            out[_edge(key)] = kind
    return out


def describe_edge(key: str) -> str:
    """Where an edge is, in cells: the side of the cell below or to the right of it."""
    (x1, y1), (x2, y2) = _edge(key)
    if y1 == y2:  # horizontal: between cells (x1, y1 - 1) and (x1, y1)
        return f"edge {key}: the top of cell ({x1}, {y1})"
    return f"edge {key}: the left side of cell ({x1}, {y1})"


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
        return _words(name)
    if year < start or (year == start and view.get("step") in ("setup", "A")):
        return f"{_words(name)} (works from phase B of {start})"
    return _words(name)


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
    where = REQUIRES.get(minor.requires, _words(minor.requires))
    return f"{people}{' + ' + goods if goods else ''}, {minor.vp} VP, {where}"


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
    board = _board(view)
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
    legend = ", ".join(f"{code} {_words(name)}" for name, code in CODES.items())
    out.append(f"  Buildings: {legend}.")
    standing = sections(view, board)
    for kind in ("wall", "road"):
        edges = sorted(edge for edge, what in standing.items() if what == kind)
        where = ", ".join(f"{a[0]},{a[1]}-{b[0]},{b[1]}" for a, b in edges) or "none"
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
        out.append(f"  {_words(name):<10} {' '.join(shown)}{' complete' if major.get('done') else cost}")
    tracks = view.get("track") or {}
    for name, row in tracks.items():
        out.append(f"  {name:<10} {_occupants(row, range(len(row)))}")
    for key, label in (("field", "field"), ("craft", "craftsmen"), ("dock", "dock"), ("otrack", "order")):
        counts = view.get(key) or []
        placed = ", ".join(f"{_name(s, names)}: {c}" for s, c in enumerate(counts) if c)
        out.append(f"  {label:<10} {placed or '-'}")
    spots = view.get("spots") or {}
    free = [
        f"{_words(c)} ({character_terms(board, c)})"
        for c, data in chars.items()
        if data.get("owner") is None and c not in spots
    ]
    taken = [f"{_words(c)} ({_name(s, names)})" for c, s in spots.items()]
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
            where = _cell(group["at"]) if group.get("at") else f"edge {group.get('edge')}"
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
            f"Waiting for {_name(first.get('seat'), names)} to place a {what} {_words(detail)}".rstrip() + "."
        )
    elif awaiting:
        out.append("Waiting for: " + ", ".join(_name(s, names) for s in awaiting) + ".")
    offer = view.get("offer")
    if offer:

        def terms(items: Mapping[str, int]) -> str:
            return ", ".join(f"{n} {_words(item)}" for item, n in sorted(items.items())) or "nothing"

        state = "sent" if offer.get("sent") else "being written"
        author, recipient = _name(offer.get("from"), names), _name(offer.get("to"), names)
        out.append(
            f"Trade offer ({state}) from {author} to {recipient}: "
            f"gives {terms(offer.get('give') or {})} for {terms(offer.get('get') or {})}."
        )
    if me is not None and not view.get("result") and me not in awaiting:
        out.append("Nothing to do: waiting for the others.")
    return "\n".join(out)


# -- moves ----------------------------------------------------------------------------------------


def describe_move(move: Mapping[str, Any]) -> str:
    kind = move.get("type")
    if kind == "place":
        space = move.get("space")
        if space == "cell":
            verb = "displace the people on" if move.get("displace") else "place a person on"
            return f"{verb} cell {_cell(move.get('cell'))}"
        if space == "major":
            pay = f", paying 1 {move['pay']}" if move.get("pay") else ""
            grid = f" grid {move.get('grid', 0) + 1}" if move.get("grid") else ""
            space_number = move.get("index", 0) + 1
            return f"place a person on the {_words(move.get('building'))}{grid}, space {space_number}{pay}"
        if space == "character":
            return f"place a person on the {_words(move.get('character'))}"
        return f"place on the {_words(space)}"
    if kind == "launch":
        return "order the ship's launch (pay the fee)"
    if kind == "end_turn":
        return "end your turn"
    if kind == "buy":
        return f"buy 1 {move.get('good')} from the bank"
    if kind == "collect":
        return f"collect from the {move.get('space')}"
    if kind == "claim":
        return f"claim the {_words(move.get('character'))} (pay, or take the penalty)"
    if kind == "craft":
        give = move.get("give")
        return f"craftsmen: exchange 1 {give} for 1 luxury" if give else "craftsmen: decline the exchange"
    if kind == "load":
        return f"load 1 {move.get('good')} on the ship"
    if kind == "build":
        pool = f" (tile from {move['pool']})" if move.get("pool") else ""
        return f"build a {_words(move.get('building'))} on {_cell(move.get('cell'))}{pool}"
    if kind == "use":
        return f"use the building on {_cell(move.get('cell'))}: option {move.get('choice', 0) + 1}"
    if kind == "place_tile":
        return f"put the tile on {_cell(move.get('cell'))}"
    if kind == "place_section":
        return f"place a section on edge {move.get('edge')}"
    if kind == "choose_resource":
        return f"take 1 {move.get('good')}"
    if kind == "place_attacker":
        return f"place an attacker at edge {move.get('edge')}"
    if kind == "fire":
        return f"fire the cannons at {move.get('k')} attacker(s)"
    if kind == "remove_attacker":
        return f"remove an attacker at edge {move.get('edge')}"
    if kind == "defend":
        return f"put a defender on {_cell(move.get('cell'))}"
    if kind == "split":
        return f"take a group of {move.get('size')} off the stack at edge {move.get('edge')}"
    if kind == "move":
        return f"move group {move.get('group')} to {_cell(move.get('to'))}"
    if kind == "withdraw":
        return f"withdraw {move.get('count')} from {_cell(move.get('cell'))}"
    if kind == "choose_across":
        return f"send the person at position {move.get('person', 0) + 1} of the pair across"
    if kind == "choose_commander":
        return f"let seat {move.get('commander')} command the new group"
    if kind == "consent":
        return "agree" if move.get("accept") else "refuse"
    if kind == "bonus":
        return f"start a bonus move with group {move.get('group')} (sacrificing groups)"
    if kind == "sacrifice":
        return f"sacrifice group {move.get('group')}"
    if kind == "bonus_step":
        return f"move group {move.get('group')} one extra cell to {_cell(move.get('to'))}"
    if kind == "pass":
        return "pass"
    if kind == "offer_open":
        return f"write a trade offer to seat {move.get('to')}"
    if kind == "offer_add":
        what = "you give" if move.get("side") == "give" else "you ask for"
        return f"add 1 {_words(move.get('item'))} to what {what}"
    if kind == "offer_send":
        return "send the trade offer"
    if kind == "offer_accept":
        return "accept the trade offer"
    if kind == "offer_decline":
        return "decline the trade offer"
    fields = {k: v for k, v in move.items() if k != "type"}
    return f"{kind} {fields}" if fields else str(kind)


def _use_label(move: Mapping[str, Any], board: Board | None, building: str | None) -> str:
    use = board.uses.get(building or "") if board is not None else None
    choice = move.get("choice", 0)
    if use is not None:
        options = use["choose_one"]
        if 0 <= choice < len(options):
            pay = " + ".join(f"{n} {g}" for g, n in use["pay"].items())
            gain = " + ".join(f"{n} {g}" for g, n in options[choice].items())
            return f"pay {pay}, receive {gain}"
    return f"option {choice + 1}"


def _label_with_terms(move: Mapping[str, Any], label: str, board: Board, due: Mapping[str, Any]) -> str:
    """A move's label with what the board says it costs and gives: a major building space's VP, a
    character's price and VP requirement, a minor building's cost, VP and site, where an edge is."""
    kind, space = move.get("type"), move.get("space")
    if kind == "place" and space == "major":
        spec = board.majors.get(str(move.get("building")))
        grid, index = int(move.get("grid") or 0), int(move.get("index") or 0)
        if spec is not None and grid < len(spec.grids) and index < len(spec.grids[grid].spaces):
            vp = spec.grids[grid].spaces[index][0]
            where = f" grid {grid + 1}," if grid else ""
            pay = f", paying 1 {move['pay']}" if move.get("pay") else ""
            return f"place a person on the {_words(spec.name)}{where} space {index + 1} ({vp} VP){pay}"
    if kind == "place" and space == "character":
        name = str(move.get("character"))
        return f"place a person on the {_words(name)} ({character_terms(board, name)})"
    if kind == "claim":
        name = str(move.get("character"))
        return f"claim the {_words(name)}: pay {character_terms(board, name)}, or take the penalty"
    if kind == "build":
        terms = minor_terms(board, str(move.get("building")))
        return f"{label}: {terms}" if terms else label
    if kind == "place_section":
        what = due.get("what") if due.get("kind") == "section" else None
        return f"place a {what or 'wall or road'} section on {describe_edge(str(move.get('edge')))}"
    return label


# Moves with many variants, asked in two steps: the group they belong to (None: a menu entry of
# their own) and the question of the second step.
def _group(move: Mapping[str, Any]) -> tuple[tuple[Any, ...], str, str] | None:
    kind = move.get("type")
    if kind == "place" and move.get("space") == "cell":
        return ("cell",), "place a person on a city cell (choose the cell)", "Which cell"
    if kind == "place" and move.get("space") == "major":
        name = _words(move.get("building"))
        return (
            ("major", move.get("building")),
            f"place a person on the {name} (choose the space)",
            "Which space",
        )
    if kind == "place" and move.get("space") == "character":
        return ("character",), "place a person on a character (choose which)", "Which character"
    if kind == "build":
        where = _cell(move.get("cell"))
        return ("build", str(move.get("cell"))), f"build on {where} (choose the building)", "Which building"
    if kind == "use":
        where = _cell(move.get("cell"))
        return (
            ("use", str(move.get("cell"))),
            f"use the building on {where} (choose what to receive)",
            "Which",
        )
    if kind in ("place_tile", "place_section", "place_attacker", "remove_attacker", "defend", "fire"):
        labels = {
            "place_tile": ("put the tile on a site (choose it)", "Which site"),
            "place_section": ("place a wall or road section (choose the edge)", "Which edge"),
            "place_attacker": ("place an attacker (choose the edge)", "Which edge"),
            "remove_attacker": ("remove an attacker (choose the edge)", "Which edge"),
            "defend": ("put a defender on a cell (choose the cell)", "Which cell"),
            "fire": ("fire the cannons (choose how many)", "At how many attackers"),
        }
        label, prompt = labels[kind]
        return (kind,), label, prompt
    if kind == "move":
        return ("move", move.get("group")), f"move group {move.get('group')} (choose where)", "Where to"
    if kind == "split":
        edge = move.get("edge")
        return ("split", edge), f"split the stack at edge {edge} (choose the size)", "How many"
    if kind == "withdraw":
        return ("withdraw",), "withdraw people (choose the cell and how many)", "Which"
    if kind == "bonus_step":
        group = move.get("group")
        return ("bonus_step", group), f"move group {group} one extra cell (choose where)", "Where to"
    if kind == "sacrifice":
        return ("sacrifice",), "sacrifice a group (choose which)", "Which group"
    if kind == "offer_open":
        return ("offer_open",), "write a trade offer (choose to whom)", "To whom"
    if kind == "offer_add":
        return ("offer_add",), "add an item to your offer (choose it)", "Which item"
    return None


def _typed_key(move: Mapping[str, Any]) -> str | None:
    """What a reader may type for a variant that is a place (``TextHooks.move_menu``'s ``key``): the
    edge of a section, the cell of a placement or a defender; moves with other variants have none,
    so every key is unique within its question."""
    kind = move.get("type")
    if kind == "place_section":
        return str(move.get("edge"))
    cell = move.get("cell")
    placed = kind == "place" and move.get("space") == "cell" and not move.get("displace")
    if (kind == "defend" or placed) and isinstance(cell, (list, tuple)) and len(cell) == 2:
        return f"{cell[0]},{cell[1]}"
    return None


def move_menu(
    moves: Sequence[Mapping[str, Any]], view: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """``TextHooks.move_menu``: a placement on one of fifty cells, the space of a major building, the
    building to build on a cell, an edge, a group's destination... are one entry each and a second
    question, so the first menu stays short; every move appears once, in the order given."""
    menu: list[dict[str, Any]] = []
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    board = _board(view) if view is not None else None
    city = (view or {}).get("city") or {}
    due = ((view or {}).get("due") or [{}])[0]
    for move in moves:
        label = describe_move(move)
        if move.get("type") == "use":
            cell = move.get("cell") or [0, 0]
            building = (city.get(f"{cell[0]},{cell[1]}") or {}).get("b")
            label = f"use the {_words(building or 'building')} on {_cell(cell)}: " + _use_label(
                move, board, building
            )
        elif board is not None:
            label = _label_with_terms(move, label, board, due)
        grouped = _group(move)
        if grouped is None:
            menu.append({"label": label, "move": dict(move)})
            continue
        key, group_label, prompt = grouped
        if key not in groups:
            groups[key] = {"label": group_label, "prompt": prompt, "options": []}
            menu.append(groups[key])
        option: dict[str, Any] = {"label": label, "move": dict(move)}
        typed = _typed_key(move)
        if typed is not None:
            option["key"] = typed
        groups[key]["options"].append(option)
    return [
        {"label": e["options"][0]["label"], "move": e["options"][0]["move"]}
        if "options" in e and len(e["options"]) == 1
        else e
        for e in menu
    ]


def describe_event(event: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    """The engine's annotation of the event, with the players' names."""
    # The annotation reads these from the states around the event, which a client does not hold.
    if event.get("type") == "claimed":
        text = f"Seat {event.get('seat')} claims the {_words(event.get('character'))}."
    elif event.get("type") == "offer_sent":
        text = f"Seat {event.get('seat')} sends the trade offer."
    else:
        text = annotate(None, dict(event), None)
    for seat in names or {}:
        text = text.replace(f"Seat {seat}", _name(seat, names)).replace(f"seat {seat}", _name(seat, names))
    return text


def attach_text_hooks(game: Any) -> Any:
    game.render_text = render_text
    game.describe_event = describe_event
    game.describe_move = describe_move
    game.move_menu = move_menu
    return game
