"""The rules of Rio de la Plata: ``evolve`` (apply one event), the automatic steps and ``decide``.

Design. A player's event is the fact "seat did X" (``placed``, ``built``, ``moved``...); ``evolve``
applies it with every consequence the rules attach to it (a displacement returning people, a combat
removing groups), so the log stays small and each event reads as one decision. Automatic events
(a grid's resolution, a ship's return, a dice roll, a round's end) are produced by
:func:`next_automatic`, which looks only at the state. ``decide`` accepts a command exactly when it is
one of :func:`legal_moves` (so the two can never disagree), returns its event and then every automatic
event up to the next decision. Random outcomes are drawn from ``Random(f"{seed}/{counter}")`` and
recorded in the event (``order_drawn``, ``dice_rolled``), so a replay never draws again.

Every figure the rules need comes from the board (``state.board``); rule IDs refer to
``shared/rules/rio-de-la-plata.md``.
"""

from __future__ import annotations

from random import Random
from typing import Any

from games.base import CommandError
from games.rio_de_la_plata.board import Edge, load_board
from games.rio_de_la_plata.config import SHIPOWNER_FROM_PHASE_B, revision
from games.rio_de_la_plata.state import State, make_state
from games.rio_de_la_plata.trade import (
    FREE_COMMANDS,
    TRADE_EVENT_OF,
    TRADE_HANDLERS,
    free_moves,
    lapses,
    trade_event,
)

Event = dict[str, Any]
Command = dict[str, Any]
GOODS = ("stone", "wood", "luxury")

# steps of the round
A, RESOLVE, B, B_END, ROLL, BATTLE, ROUND_END, GAME_END, OVER = (
    "A",
    "resolve",
    "B",
    "B_end",
    "roll",
    "battle",
    "round_end",
    "game_end",
    "over",
)


def ev(type_: str, **fields: Any) -> Event:
    event: Event = {"type": type_, "v": 1}
    event.update(fields)
    return event


# ---------------------------------------------------------------------------------------------
# Keys and geometry helpers


def ckey(cell: tuple[int, int] | list[int]) -> str:
    return f"{cell[0]},{cell[1]}"


def cpair(key: str) -> tuple[int, int]:
    x, y = key.split(",")
    return int(x), int(y)


def ekey(edge: Edge) -> str:
    (a, b), (c, d) = edge
    return f"{a},{b}-{c},{d}"


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
    return {ekey(e) for e in s.board.printed_walls} | set(s["walls"])


def roads(s: State) -> set[str]:
    return {ekey(e) for e in s.board.printed_roads} | set(s["roads"])


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


# ---------------------------------------------------------------------------------------------
# Setup


def new_state(config: dict[str, Any]) -> State:
    board = load_board(config.get("board"))
    n = config["players"]
    mpeople = board.people
    majors = {}
    for name, major in board.majors.items():
        majors[name] = {"grids": [[None] * len(g.spaces) for g in major.grids], "done": False}
    data: dict[str, Any] = {
        "config": config,
        "n": n,
        "year": board.first_year,
        "step": "setup",
        "order": list(range(n)),
        "turn": 0,
        "rng": 0,
        "started": False,
        "p": [
            {
                "silver": 0,
                "stone": 0,
                "wood": 0,
                "luxury": 0,
                "vp": 0,
                "supply": mpeople,
                "placed": 0,
                "buys": 0,
                "char_placed": 0,
                "mark": False,
                "huts": board.hut_tiles,
                "vp_by": {},
                "loaded": 0,
            }
            for _ in range(n)
        ],
        "city": {},
        "major": majors,
        "track": {name: [None] * len(board.track_spaces(name, n)) for name in board.tracks},
        "field": [0] * n,
        "craft": [0] * n,
        "dock": [0] * n,
        "otrack": [0] * n,
        "chars": {name: {"owner": None, "from": 0} for name in board.characters},
        "spots": {},
        "walls": [],
        "roads": [],
        "sections": board.sections,
        "tiles": dict(board.tile_pools),
        "fort": False,
        "ship": {
            "in_play": False,
            "at_sea": False,
            "back": None,
            "hold": [[0, 0, 0] for _ in range(n)],
            "launch": None,
            "fee_owner": None,
            "full": False,
        },
        "enemy": {name: e["start"] for name, e in board.enemies.items()},
        "queue": [],
        "due": [],
        "battle": None,
        "roll": None,
        "result": None,
        "offer": None,
    }
    return make_state(data, board)


def draw(s: State) -> Random:
    return Random(f"{s['config']['seed']}/{s['rng']}")


# ---------------------------------------------------------------------------------------------
# The automatic steps


def current(s: State) -> int:
    return s["order"][s["turn"]]


def next_automatic(s: State) -> Event | None:
    """The automatic event the rules produce now, or ``None`` when a player must decide."""
    step = s["step"]
    if step == "setup":
        order = list(range(s["n"]))
        draw(s).shuffle(order)
        return ev("order_drawn", order=order)  # RIO-SETUP-4
    if s["due"]:
        return None
    if step == A:
        return None
    if step == RESOLVE:
        if s["queue"]:
            name, grid, completer = s["queue"][0]
            return ev("building_completed", building=name, grid=grid, completer=completer)
        return ev("actions_started")
    if step == B:
        ship = s["ship"]
        if ship["in_play"] and not ship["at_sea"] and hold_total(s) >= hold_capacity(s):
            return ev("ship_sailed", full=True)  # RIO-SHIP-5
        if not s["started"]:
            return ev("action_turn_started", seat=current(s), income=income(s, current(s)))
        return None
    if step == B_END:
        ship = s["ship"]
        if ship["launch"] is not None:
            if hold_total(s) == 0:
                return ev("launch_refunded", seat=ship["launch"])  # RIO-RL-19
            return ev("ship_sailed", full=False)  # RIO-SHIP-6
        if ship["at_sea"] and ship["back"] == s["year"]:
            return ev("ship_returned", payouts=ship_payouts(s))  # RIO-SHIP-8, RIO-SHIP-9
        return ev("phase_c_started")
    if step == ROLL:
        rng = draw(s)
        count, sides = s.board.dice
        return ev("dice_rolled", purpose="war", dice=[rng.randint(1, sides) for _ in range(count)])
    if step == BATTLE:
        from games.rio_de_la_plata.battle import next_battle_event

        return next_battle_event(s)
    if step == ROUND_END:
        return ev("round_ended", order=next_order(s), year=s["year"] + 1)
    if step == GAME_END:
        return ev("game_ended", scoring=final_scoring(s))
    return None


def income(s: State, seat: int) -> dict[str, int]:
    """RIO-CHAR-8, RIO-RL-23: the fixed per-round resources of the seat's active characters."""
    out: dict[str, int] = {}
    for name, ch in s.board.characters.items():
        if active(s, name, seat):
            for good, amount in ch.get("income", {}).items():
                if good in GOODS:
                    out[good] = out.get(good, 0) + amount
    return out


def hold_capacity(s: State) -> int:
    return s.board.ship["hold_per_player"] * s["n"]


def hold_total(s: State) -> int:
    return sum(sum(h) for h in s["ship"]["hold"])


def ship_payouts(s: State) -> list[dict[str, int]]:
    """RIO-SHIP-9, RIO-RL-20 (cumulative or replacing set bonus, from the board)."""
    cfg = s.board.ship
    per_good, per_set, size = cfg["payout_per_good"], cfg["payout_per_set"], cfg["set_size"]
    out = []
    for hold in s["ship"]["hold"]:
        silver = vp = 0
        for good, count in zip(GOODS, hold, strict=True):
            sets = count // size
            single = count - sets * size if cfg["set_bonus_mode"] == "replaces" else count
            silver += single * per_good[good]["silver"] + sets * per_set["silver"]
            vp += single * per_good[good]["vp"] + sets * per_set["vp"]
        out.append({"silver": silver, "vp": vp})
    return out


def next_order(s: State) -> list[int]:
    """RIO-ORDER-2: most people on the track first, ties by reversed current order; the rest keep
    their relative order."""
    order = s["order"]
    position = {seat: i for i, seat in enumerate(order)}
    placed = [seat for seat in order if s["otrack"][seat] > 0]
    placed.sort(key=lambda seat: (-s["otrack"][seat], -position[seat]))
    return placed + [seat for seat in order if s["otrack"][seat] == 0]


# ---------------------------------------------------------------------------------------------
# End of game (section 17)


def district_values(s: State) -> dict[str, int]:
    """RIO-END-5, RIO-END-6: each district's value (2 + bonus)."""
    board = s.board
    bonus = board.district_bonus
    counts: dict[str, dict[str, int]] = {d: {} for d in board.districts}
    for key, cell in s["city"].items():
        if cell["b"]:
            d = board.district[cpair(key)]
            counts[d][cell["b"]] = counts[d].get(cell["b"], 0) + 1
    connected = connected_districts(s)
    out = {}
    for d in board.districts:
        c = counts[d]
        production = sum(c.get(b, 0) for b in board.production)
        value = board.per_house + max(0, production - board.production_free) * board.production_step
        for name, amount in bonus.items():
            if name == "road_connected":
                value += amount if d in connected else 0
            elif c.get(name):
                value += amount
        out[d] = value
    return out


def walled_districts(s: State) -> int:
    """RIO-RL-25, RIO-RL-66: districts touching the outer edge with a wall (or a closed edge) on
    every outer edge of their cells."""
    closed = {ekey(e) for e in s.board.closed_edges}
    standing = walls(s)
    count = 0
    for d in s.board.districts:
        edges = [ekey(e) for e, c in s.board.edge_cell.items() if s.board.district.get(c) == d]
        if edges and all(e in standing or e in closed for e in edges):
            count += 1
    return count


def final_scoring(s: State) -> list[dict[str, int]]:
    """RIO-END-3 .. RIO-END-6 and the end-of-game VP of RIO-CHAR-7, per seat."""
    board = s.board
    values = district_values(s)
    connected = len(connected_districts(s))
    majors_standing = sum(1 for name in ("palace", "cathedral") if any_tile(s, name))
    majors_standing += int(s["fort"]) + int(s["ship"]["in_play"])
    churches = sum(1 for c in s["city"].values() if c["b"] == "church")
    noble_districts = 0
    for d in board.districts:
        nobles = sum(
            1 for k, c in s["city"].items() if c["b"] in board.noble and board.district[cpair(k)] == d
        )
        if nobles >= board.characters["governor"].get("noble_buildings_needed", 4):
            noble_districts += 1
    out = []
    for seat in range(s["n"]):
        money = s["p"][seat]["silver"] // board.silver_per_vp
        chars = 0
        for name, ch in board.characters.items():
            if s["chars"][name]["owner"] != seat:
                continue
            chars += ch.get("end_vp", 0)
            chars += ch.get("end_vp_per_connected_district", 0) * connected
            chars += ch.get("end_vp_per_walled_district", 0) * walled_districts(s)
            chars += ch.get("end_vp_per_church", 0) * churches
            chars += ch.get("end_vp_cathedral", 0) * int(any_tile(s, "cathedral"))
            chars += ch.get("end_vp_per_major_building", 0) * majors_standing
            chars += ch.get("end_vp_per_noble_district", 0) * noble_districts
        city = 0
        for key, cell in s["city"].items():
            if cell["b"] == "house" and cell["own"] == seat:
                city += max(board.house_floor, values[board.district[cpair(key)]])
        out.append({"money": money, "characters": chars, "city": city})
    return out


def any_tile(s: State, name: str) -> bool:
    return any(c["b"] == name for c in s["city"].values())


def winners(s: State) -> list[int]:
    """RIO-END-7, RIO-RL-47."""

    def key(seat: int) -> tuple[int, ...]:
        p = s["p"][seat]
        return (p["vp"], p["silver"], p["luxury"], p["stone"] + p["wood"])

    best = max(key(seat) for seat in range(s["n"]))
    return [seat for seat in range(s["n"]) if key(seat) == best]


# ---------------------------------------------------------------------------------------------
# evolve


def evolve(s: State | None, e: Event) -> State:
    kind = e["type"]
    if kind == "game_started":
        return new_state(e["config"])
    assert s is not None
    s = s.copy()
    handler = HANDLERS.get(kind) or TRADE_HANDLERS.get(kind)
    if handler is None:
        from games.rio_de_la_plata.battle import BATTLE_HANDLERS

        handler = BATTLE_HANDLERS[kind]
    if s.get("offer") is not None and lapses(kind):
        s["offer"] = None  # RIO-RL-27: any other command makes an open offer lapse
    handler(s, e)
    return s


def _order_drawn(s: State, e: Event) -> None:
    s["rng"] += 1
    s["order"] = list(e["order"])
    for p in s["p"]:  # RIO-SETUP-3
        for good, amount in s.board.start_stock.items():
            p[good] += amount
    last = s["p"][s["order"][-1]]
    for good, amount in s.board.last_player_bonus.items():  # RIO-SETUP-5
        last[good] += amount
    s["step"] = A
    s["turn"] = 0


def _return_people(s: State, seat: int, count: int) -> None:
    s["p"][seat]["supply"] += count


def _placed(s: State, e: Event) -> None:
    seat, space = e["seat"], e["space"]
    p = s["p"][seat]
    board = s.board
    if space == "cell":
        key = ckey(e["cell"])
        cell = cell_of(s, key)
        cell = {**cell, "ppl": list(cell["ppl"])}
        if e.get("displace"):  # RIO-CITY-9
            victim = next(i for i, n in enumerate(cell["ppl"]) if n and i != seat)
            k = cell["ppl"][victim]
            cell["ppl"][victim] = 0
            _return_people(s, victim, k)
            p["supply"] -= 2 * k - 1
            p["placed"] += 2 * k
            cell["ppl"][seat] += 2 * k - 1
        else:
            p["supply"] -= 1
            p["placed"] += 1
            cell["ppl"][seat] += 1
        put_cell(s, key, cell)
    elif space == "major":
        name, grid, index = e["building"], e["grid"], e["index"]
        major = board.majors[name]
        if major.cost == "all_of":
            for good in major.cost_goods:
                p[good] -= 1
        elif major.cost == "one_of":
            p[e["pay"]] -= 1
        s["major"][name]["grids"][grid][index] = seat
        p["supply"] -= 1
        p["placed"] += 1
        existing = board.majors[name].grids[grid].existing(s["n"])
        if all(s["major"][name]["grids"][grid][i] is not None for i in existing):
            s["queue"].append([name, grid, seat])  # RIO-MAJOR-4, RIO-MAJOR-5
    elif space in ("mine", "forest"):
        spaces = board.track_spaces(space, s["n"])
        index = s["track"][space].index(None)
        s["track"][space][index] = seat
        p["supply"] -= spaces[index]
        p["placed"] += spaces[index]
    elif space == "character":
        s["spots"][e["character"]] = seat
        p["char_placed"] += 1
        p["supply"] -= 1
        p["placed"] += 1
    else:
        s[{"field": "field", "craftsmen": "craft", "dock": "dock", "order": "otrack"}[space]][seat] += 1
        p["supply"] -= 1
        p["placed"] += 1


def _bought(s: State, e: Event) -> None:
    p = s["p"][e["seat"]]
    p["silver"] -= e["price"]
    p[e["good"]] += 1
    p["buys"] += 1


def _launched(s: State, e: Event) -> None:
    seat = e["seat"]
    fee = s.board.ship["launch_fee"]
    owner = holder(s, "shipowner")
    share = s.board.ship["shipowner_share_of_fee"] if owner is not None else 0
    if owner == seat:  # RIO-RL-19: a Shipowner who launches pays only the bank's share
        fee -= share
        share = 0
    s["p"][seat]["silver"] -= fee
    if share:
        s["p"][owner]["silver"] += share
    s["ship"]["launch"] = seat
    s["ship"]["fee"] = fee
    s["ship"]["fee_owner"] = owner if share else None
    s["ship"]["share"] = share


def _refund_launch(s: State) -> None:
    """RIO-RL-60: the bank and the Shipowner return what they received for the launch."""
    ship = s["ship"]
    seat = ship["launch"]
    if seat is None:
        return
    s["p"][seat]["silver"] += ship.get("fee", 0)
    if ship.get("fee_owner") is not None:  # the launcher paid ``fee`` in all, ``share`` of it to him
        # A Shipowner who has spent his share meanwhile returns what he has; the bank (whose money is
        # unlimited, RIO-RL-33) makes up the rest (engine ruling 7 in docs/rio-de-la-plata-protocol.md).
        owner = s["p"][ship["fee_owner"]]
        owner["silver"] -= min(ship.get("share", 0), owner["silver"])
    ship["launch"] = None
    ship["fee"] = 0
    ship["fee_owner"] = None
    ship["share"] = 0


def _turn_ended(s: State, e: Event) -> None:
    seat = e["seat"]
    if s["step"] == A:
        s["turn"] += 1
        if s["turn"] >= s["n"]:
            s["turn"] = 0
            s["step"] = RESOLVE
        return
    # phase B: what cannot be declined is resolved now (RIO-RL-54), the rest return (RIO-RL-8)
    for space in ("mine", "forest"):
        if seat in s["track"][space]:
            _collect(s, seat, space)
    if s["field"][seat]:
        _collect(s, seat, "field")
    for name, who in sorted(s["spots"].items()):
        if who == seat:
            _claim(s, seat, name)
    for space in ("craft", "dock"):
        _return_people(s, seat, s[space][seat])
        s[space][seat] = 0
    s["p"][seat]["loaded"] = 0
    s["started"] = False
    s["turn"] += 1
    if s["turn"] >= s["n"]:
        s["turn"] = 0
        s["step"] = B_END


def _collect(s: State, seat: int, space: str) -> None:
    p = s["p"][seat]
    if space == "field":  # RIO-FIELD-1, RIO-RL-68
        p["silver"] += s["field"][seat] // s.board.field_people_per_silver
        _return_people(s, seat, s["field"][seat])
        s["field"][seat] = 0
        return
    resource = s.board.tracks[space][0]
    spaces = s.board.track_spaces(space, s["n"])
    for i, who in enumerate(s["track"][space]):
        if who == seat:  # RIO-RES-2: 1 resource per space
            p[resource] += 1
            _return_people(s, seat, spaces[i])
            s["track"][space][i] = None


def _collected(s: State, e: Event) -> None:
    _collect(s, e["seat"], e["space"])


def _claim(s: State, seat: int, name: str) -> None:
    """RIO-CHAR-3, RIO-CHAR-4."""
    ch = s.board.characters[name]
    p = s["p"][seat]
    del s["spots"][name]
    _return_people(s, seat, 1)
    if p["silver"] >= ch["cost"] and p["vp"] >= ch["min_vp"] and s["chars"][name]["owner"] is None:
        p["silver"] -= ch["cost"]
        s["chars"][name] = {"owner": seat, "from": s["year"] + 1}
    else:
        pen = s.board.penalty
        p["silver"] -= min(p["silver"], pen.get("silver", 0))
        gain_vp(s, seat, -pen.get("vp", 0), "penalties")


def _claimed(s: State, e: Event) -> None:
    _claim(s, e["seat"], e["character"])


def _crafted(s: State, e: Event) -> None:
    seat = e["seat"]
    p = s["p"][seat]
    if e["give"] is not None:  # RIO-CRAFT-1
        p[e["give"]] -= 1
        p[s.board.craft_get] += 1
    s["craft"][seat] -= 1
    _return_people(s, seat, 1)


def _loaded(s: State, e: Event) -> None:
    seat = e["seat"]
    s["p"][seat][e["good"]] -= 1
    s["p"][seat]["loaded"] += 1
    s["ship"]["hold"][seat][GOODS.index(e["good"])] += 1


def _built(s: State, e: Event) -> None:
    seat, name = e["seat"], e["building"]
    board = s.board
    minor = board.minors[name]
    p = s["p"][seat]
    key = ckey(e["cell"])
    cell = cell_of(s, key)
    cell = {**cell, "ppl": list(cell["ppl"])}
    for good, amount in minor.resources.items():
        p[good] -= amount
    cell["ppl"][seat] -= minor.people
    _return_people(s, seat, minor.people)
    if name == "hut":
        p["huts"] -= 1
        cell["own"] = seat
        cell["pool"] = "hut/house"
    elif cell["b"] is None:
        pool = e.get("pool") or minor.pools[0]
        s["tiles"][pool] -= 1
        cell["pool"] = pool
    cell["b"] = name
    cell["built"] = s["year"]
    put_cell(s, key, cell)
    if minor.vp:
        gain_vp(s, seat, minor.vp, "buildings")


def _used(s: State, e: Event) -> None:
    seat = e["seat"]
    key = ckey(e["cell"])
    cell = cell_of(s, key)
    cell = {**cell, "ppl": list(cell["ppl"])}
    use = s.board.uses[cell["b"]]
    p = s["p"][seat]
    for good, amount in use["pay"].items():
        p[good] -= amount
    options = (
        use["with_cathedral"] if use["with_cathedral"] and any_tile(s, "cathedral") else use["choose_one"]
    )
    for good, amount in options[e["choice"]].items():
        if good == "vp":
            gain_vp(s, seat, amount, "church")
        else:
            p[good] += amount
    if cell["uy"] != s["year"]:
        cell["uy"] = s["year"]
        cell["uses"] = 0
    cell["uses"] += 1
    cell["ppl"][seat] -= 1
    _return_people(s, seat, 1)
    put_cell(s, key, cell)


def _building_completed(s: State, e: Event) -> None:
    """RIO-MAJOR-6 .. RIO-MAJOR-10."""
    name, gi, completer = e["building"], e["grid"], e["completer"]
    major = s.board.majors[name]
    grid = major.grids[gi]
    occupants = s["major"][name]["grids"][gi]
    for i, seat in enumerate(occupants):
        if seat is not None:
            gain_vp(s, seat, grid.spaces[i][0], "major_buildings")
            _return_people(s, seat, 1)
    s["major"][name]["grids"][gi] = [None] * len(grid.spaces)
    if major.completer_bonus:
        gain_vp(s, completer, major.completer_bonus, "major_buildings")
    if not major.repeatable:
        s["major"][name]["done"] = True
    s["queue"].pop(0)
    if name == "fort":
        s["fort"] = True
    elif name == "port":
        s["ship"]["in_play"] = True  # RIO-SHIP-1
    elif name in ("palace", "cathedral"):
        if tile_sites(s, name):
            s["due"].append({"seat": completer, "kind": "tile", "building": name})
    else:
        kind = "wall" if name == "walls" else "road"
        due = min(grid.sections, s["sections"], len(free_slots(s, kind)))  # RIO-RL-55
        if due:
            s["due"].append({"seat": completer, "kind": "section", "what": kind, "left": due})


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
        closed = {ekey(e) for e in s.board.closed_edges}
        return [ekey(e) for e in s.board.wall_slots if ekey(e) not in taken and ekey(e) not in closed]
    taken = roads(s)
    return [ekey(e) for e in s.board.road_slots if ekey(e) not in taken]


def _tile_placed(s: State, e: Event) -> None:
    due = s["due"].pop(0)
    key = ckey(e["cell"])
    cell = cell_of(s, key)
    for seat, count in enumerate(cell["ppl"]):
        if count:
            _return_people(s, seat, count)
    s["city"][key] = {
        "b": due["building"],
        "own": None,
        "pool": None,
        "built": s["year"],
        "uses": 0,
        "uy": 0,
        "ppl": [0] * s["n"],
    }


def _section_placed(s: State, e: Event) -> None:
    due = s["due"][0]
    s["walls" if due["what"] == "wall" else "roads"].append(e["edge"])
    s["sections"] -= 1
    due["left"] -= 1
    if due["left"] <= 0 or not s["sections"] or not free_slots(s, due["what"]):
        s["due"].pop(0)


def _resource_chosen(s: State, e: Event) -> None:
    s["due"].pop(0)
    s["p"][e["seat"]][e["good"]] += 1


def _actions_started(s: State, e: Event) -> None:
    s["step"] = B
    s["turn"] = 0
    s["started"] = False


def _action_turn_started(s: State, e: Event) -> None:
    seat = e["seat"]
    s["started"] = True
    for good, amount in e["income"].items():
        s["p"][seat][good] += amount
    for name, ch in s.board.characters.items():
        if not active(s, name, seat):
            continue
        if ch.get("income", {}).get("any_resource"):
            s["due"].append({"seat": seat, "kind": "resource"})
        for what, field in (("road", "free_road_sections"), ("wall", "free_wall_sections")):
            count = min(ch.get(field, 0), s["sections"], len(free_slots(s, what)))
            if count:
                s["due"].append({"seat": seat, "kind": "section", "what": what, "left": count})


def _ship_sailed(s: State, e: Event) -> None:
    ship = s["ship"]
    if e["full"]:
        _refund_launch(s)
    ship["launch"] = None
    ship["at_sea"] = True
    ship["full"] = bool(e["full"])
    ship["back"] = s["year"] + s.board.ship["voyage_years"]  # RIO-SHIP-8


def _launch_refunded(s: State, e: Event) -> None:
    _refund_launch(s)


def _ship_returned(s: State, e: Event) -> None:
    ship = s["ship"]
    for seat, pay in enumerate(e["payouts"]):
        s["p"][seat]["silver"] += pay["silver"]
        if pay["vp"]:
            gain_vp(s, seat, pay["vp"], "ship")
    owner = holder(s, "shipowner")  # RIO-SHIP-10, RIO-RL-21, RIO-RL-61
    if owner is not None:
        ch = s.board.characters["shipowner"]
        s["p"][owner]["silver"] += ch.get("silver_per_arrival", 0)
        if ship["full"]:
            gain_vp(s, owner, ch.get("vp_per_full_voyage", 0), "characters")
    ship["hold"] = [[0, 0, 0] for _ in range(s["n"])]
    ship["at_sea"] = False
    ship["back"] = None
    ship["full"] = False


def _phase_c_started(s: State, e: Event) -> None:
    s["step"] = ROLL


def war_enemy(s: State, total: int) -> str | None:
    """RIO-WAR-2."""
    hit = [name for name, enemy in s.board.enemies.items() if total <= enemy["track"][s["enemy"][name]][0]]
    if len(hit) > 1:
        return s.board.both_hit
    return hit[0] if hit else None


def _dice_rolled(s: State, e: Event) -> None:
    s["rng"] += 1
    if e["purpose"] != "war":
        from games.rio_de_la_plata.battle import cannon_rolled

        cannon_rolled(s, e)
        return
    enemy = war_enemy(s, sum(e["dice"]))
    s["roll"] = sum(e["dice"])
    if enemy is None:
        s["step"] = GAME_END if s["year"] >= s.board.last_year else ROUND_END
    else:
        s["step"] = BATTLE
        s["battle"] = {"enemy": enemy, "stage": "start"}


def _round_ended(s: State, e: Event) -> None:
    """RIO-WAR-5, RIO-WAR-6, RIO-WAR-7, RIO-ORDER-3."""
    for seat in range(s["n"]):
        _return_people(s, seat, s["otrack"][seat])
        s["otrack"][seat] = 0
        p = s["p"][seat]
        p["placed"] = p["buys"] = p["char_placed"] = 0
    s["order"] = list(e["order"])
    s["year"] = e["year"]
    for mark in s.board.marks.get(s["year"], ()):
        for name, enemy in s.board.enemies.items():
            if enemy["mark"] == mark:
                s["enemy"][name] = min(s["enemy"][name] + 1, len(enemy["track"]) - 1)
    s["step"] = A
    s["turn"] = 0
    s["roll"] = None


def _game_ended(s: State, e: Event) -> None:
    for seat, parts in enumerate(e["scoring"]):
        for source, amount in parts.items():
            gain_vp(s, seat, amount, source)
    s["step"] = OVER
    s["result"] = {"winners": winners(s), "reason": "score", "vp": [p["vp"] for p in s["p"]]}


HANDLERS = {
    "order_drawn": _order_drawn,
    "placed": _placed,
    "bought": _bought,
    "launched": _launched,
    "turn_ended": _turn_ended,
    "collected": _collected,
    "claimed": _claimed,
    "crafted": _crafted,
    "loaded": _loaded,
    "built": _built,
    "used": _used,
    "building_completed": _building_completed,
    "tile_placed": _tile_placed,
    "section_placed": _section_placed,
    "resource_chosen": _resource_chosen,
    "actions_started": _actions_started,
    "action_turn_started": _action_turn_started,
    "ship_sailed": _ship_sailed,
    "launch_refunded": _launch_refunded,
    "ship_returned": _ship_returned,
    "phase_c_started": _phase_c_started,
    "dice_rolled": _dice_rolled,
    "round_ended": _round_ended,
    "game_ended": _game_ended,
}


# ---------------------------------------------------------------------------------------------
# Awaiting and legal moves


def awaiting(s: State | None) -> list[int]:
    """The seats whose decision is pending: the one the rules wait for and, while a trade offer is
    open, its recipient's answer first (RIO-RL-27: the offer does not change whose decision is
    pending; it adds one)."""
    pending = pending_decision(s)
    offer = s.get("offer") if s is not None and pending else None
    if offer is not None and offer["sent"]:
        return [offer["to"]] + [seat for seat in pending if seat != offer["to"]]
    return pending


def pending_decision(s: State | None) -> list[int]:
    """The seat whose (non-free) decision the rules wait for, or nobody (automatic step, game over)."""
    if s is None or s["step"] == OVER or next_automatic(s) is not None:
        return []
    if s["due"]:
        return [s["due"][0]["seat"]]
    if s["step"] in (A, B):
        return [current(s)]
    if s["step"] == BATTLE:
        from games.rio_de_la_plata.battle import battle_awaiting

        return battle_awaiting(s)
    return []


def buy_price(s: State, seat: int) -> int:
    """RIO-TRADE-2: the first purchase of a round costs ``first``, each next one ``step`` more."""
    return s.board.buy_first + s["p"][seat]["buys"] * s.board.buy_step


def legal_moves(s: State | None, seat: int) -> list[Command]:
    """Every command ``seat`` may issue now: the pending decision's moves if it is his, then the
    free commands (purchases and trades, RIO-RL-27) open to every player while the game awaits
    anybody."""
    pending = pending_decision(s)
    if s is None or not pending or not isinstance(seat, int) or not 0 <= seat < s["n"]:
        return []
    moves: list[Command] = []
    if seat in pending:
        if s["due"]:
            moves = due_moves(s, s["due"][0])
        elif s["step"] == A:
            moves = placement_moves(s, seat)
        elif s["step"] == B:
            moves = action_moves(s, seat)
        elif s["step"] == BATTLE:
            from games.rio_de_la_plata.battle import battle_moves

            moves = battle_moves(s, seat)
    return moves + free_moves(s, seat)


def due_moves(s: State, due: dict[str, Any]) -> list[Command]:
    if due["kind"] == "tile":
        return [{"type": "place_tile", "cell": list(cpair(k))} for k in tile_sites(s, due["building"])]
    if due["kind"] == "section":
        return [{"type": "place_section", "edge": k} for k in free_slots(s, due["what"])]
    return [{"type": "choose_resource", "good": good} for good in GOODS]


def city_placements(s: State, seat: int, left: int) -> list[Command]:
    """RIO-CITY-3 .. RIO-CITY-10, RIO-RL-3 .. RIO-RL-6."""
    board = s.board
    p = s["p"][seat]
    out: list[Command] = []
    candidates = set(board.start_zone)  # RIO-CITY-3: the start zone, own huts and their neighbours
    for key, cell in s["city"].items():
        if cell["own"] == seat and cell["b"] in ("hut", "house"):
            c = cpair(key)
            candidates.update(board.adjacent[c])
            if cell["b"] == "hut":
                candidates.add(c)
    for c in sorted(candidates, key=lambda c: (c[1], c[0])):
        key = ckey(c)
        cell = cell_of(s, key)
        if cell["b"] in ("palace", "cathedral") or (cell["own"] is not None and cell["own"] != seat):
            continue
        others = sum(n for i, n in enumerate(cell["ppl"]) if i != seat)
        mine = cell["ppl"][seat]
        total = others + mine
        if cell["b"] is None:
            if others == 0 and total < board.max_per_cell:
                out.append({"type": "place", "space": "cell", "cell": list(c)})
            elif others and not mine and 2 * others <= min(left, p["supply"]):
                out.append({"type": "place", "space": "cell", "cell": list(c), "displace": True})
            continue
        limit = cell_limit(s, key, cell)
        if total >= limit:
            continue
        if others and not (cell["b"] in board.uses and uses_limit(s, key) >= 2 and mine == 0):
            continue  # RIO-CITY-6, RIO-USE-4: two colours only on a twice-usable building
        out.append({"type": "place", "space": "cell", "cell": list(c)})
    return out


def placement_moves(s: State, seat: int) -> list[Command]:
    board = s.board
    p = s["p"][seat]
    left = min(board.per_round - p["placed"], p["supply"])
    moves: list[Command] = []
    if left > 0:
        moves += city_placements(s, seat, left)
        for name, major in board.majors.items():
            if s["major"][name]["done"]:
                continue
            if major.cost == "all_of" and any(p[g] < 1 for g in major.cost_goods):
                continue
            pays: list[str | None] = [None]
            if major.cost == "one_of":
                pays = [g for g in major.cost_goods if p[g] >= 1]
            for gi, grid in enumerate(major.grids):
                occupants = s["major"][name]["grids"][gi]
                for i in grid.existing(s["n"]):
                    if occupants[i] is None:
                        for pay in pays:
                            move = {
                                "type": "place",
                                "space": "major",
                                "building": name,
                                "grid": gi,
                                "index": i,
                            }
                            if pay is not None:
                                move["pay"] = pay
                            moves.append(move)
        for name in board.tracks:
            if None in s["track"][name]:
                need = board.track_spaces(name, s["n"])[s["track"][name].index(None)]
                if need <= left:
                    moves.append({"type": "place", "space": name})
        moves += [{"type": "place", "space": space} for space in ("field", "craftsmen", "order")]
        ship = s["ship"]
        if ship["in_play"] and not ship["at_sea"]:
            moves.append({"type": "place", "space": "dock"})
        if p["char_placed"] < board.characters_per_round:
            for name in board.characters:
                if s["chars"][name]["owner"] is None and name not in s["spots"]:
                    moves.append({"type": "place", "space": "character", "character": name})
    ship = s["ship"]
    if ship["in_play"] and not ship["at_sea"] and ship["launch"] is None:
        fee = board.ship["launch_fee"]
        if holder(s, "shipowner") == seat:
            fee -= board.ship["shipowner_share_of_fee"]
        if p["silver"] >= fee:
            moves.append({"type": "launch"})
    moves.append({"type": "end_turn"})
    return moves


def build_options(s: State, seat: int, key: str, cell: dict[str, Any]) -> list[Command]:
    """Section 6: what the seat's people on this cell may build now."""
    board = s.board
    p = s["p"][seat]
    mine = cell["ppl"][seat]
    if cell["built"] == s["year"]:
        return []  # RIO-BUILD-2
    c = cpair(key)
    district = board.district[c]
    out = []
    for name, minor in board.minors.items():
        if minor.people > mine or any(p[g] < n for g, n in minor.resources.items()):
            continue
        req = minor.requires
        pools: list[str | None] = [None]
        if req == "no_building" or req == "surrounded":
            if cell["b"] is not None:
                continue
            if name == "hut":
                if p["huts"] < 1:
                    continue
            else:
                pools = [pool for pool in minor.pools if s["tiles"].get(pool, 0) > 0]
                if not pools:
                    continue  # RIO-BUILD-12
            if req == "surrounded" and surround_count(s, key) < board.surround_min:
                continue
        elif req == "own_hut":
            if not (cell["b"] == "hut" and cell["own"] == seat):
                continue
        elif req == "market":
            if cell["b"] != "market":
                continue
        elif req in ("square_statue_tile", "square_garden_tile"):
            if cell["b"] != "square" or cell["pool"] not in minor.pools:
                continue
        limit = board.district_limits.get(name)
        if limit is not None:
            count = sum(
                1
                for k, other in s["city"].items()
                if other["b"] == name and board.district[cpair(k)] == district
            )
            if count >= limit:
                continue  # RIO-BUILD-9
        for pool in pools:
            move = {"type": "build", "cell": list(c), "building": name}
            if pool is not None and len(minor.pools) > 1:
                move["pool"] = pool
            out.append(move)
    return out


def surround_count(s: State, key: str) -> int:
    """RIO-BUILD-7, RIO-RL-12."""
    c = cpair(key)
    count = 0
    for n in s.board.adjacent[c]:
        other = s["city"].get(ckey(n))
        if other and other["b"] in s.board.minors and other["b"] != "square":
            count += 1
    standing = walls(s)
    count += sum(1 for e in s.board.cell_walls.get(c, ()) if ekey(e) in standing)
    return count


def use_options(s: State, seat: int, key: str, cell: dict[str, Any]) -> list[Command]:
    """Section 7."""
    use = s.board.uses.get(cell["b"] or "")
    if use is None or not house_adjacent(s, key, seat):
        return []
    if uses_this_round(s, cell) >= uses_limit(s, key):
        return []
    p = s["p"][seat]
    if any(p[g] < n for g, n in use["pay"].items()):
        return []
    options = (
        use["with_cathedral"] if use["with_cathedral"] and any_tile(s, "cathedral") else use["choose_one"]
    )
    return [{"type": "use", "cell": list(cpair(key)), "choice": i} for i in range(len(options))]


def action_moves(s: State, seat: int) -> list[Command]:
    moves: list[Command] = []
    p = s["p"][seat]
    for space in ("mine", "forest"):
        if seat in s["track"][space]:
            moves.append({"type": "collect", "space": space})
    if s["field"][seat]:
        moves.append({"type": "collect", "space": "field"})
    for name, who in sorted(s["spots"].items()):
        if who == seat:
            moves.append({"type": "claim", "character": name})
    if s["craft"][seat]:
        moves += [{"type": "craft", "give": g} for g in s.board.craft_give if p[g] > 0]
        moves.append({"type": "craft", "give": None})
    ship = s["ship"]
    capacity = s["dock"][seat] * s.board.ship["goods_per_person"]
    if p["loaded"] < capacity and ship["in_play"] and not ship["at_sea"] and hold_total(s) < hold_capacity(s):
        moves += [{"type": "load", "good": g} for g in GOODS if p[g] > 0]
    for key, cell in sorted(s["city"].items()):
        if cell["ppl"][seat]:
            moves += build_options(s, seat, key, cell)
            moves += use_options(s, seat, key, cell)
    moves.append({"type": "end_turn"})
    return moves


# ---------------------------------------------------------------------------------------------
# decide


EVENT_OF = {
    "place": "placed",
    "buy": "bought",
    "launch": "launched",
    "end_turn": "turn_ended",
    "collect": "collected",
    "claim": "claimed",
    "craft": "crafted",
    "load": "loaded",
    "build": "built",
    "use": "used",
    "place_tile": "tile_placed",
    "place_section": "section_placed",
    "choose_resource": "resource_chosen",
}


def canonical(command: Any) -> Command:
    if not isinstance(command, dict) or not isinstance(command.get("type"), str):
        raise CommandError("INVALID_COMMAND", "A command is an object with a string type.")
    out = {k: v for k, v in command.items()}
    if "cell" in out and isinstance(out["cell"], (list, tuple)):
        out["cell"] = list(out["cell"])
    return out


def command_events(s: State, seat: Any, command: Any) -> list[Event]:
    """The player event of ``command`` (not yet followed by the automatic ones)."""
    command = canonical(command)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < s["n"]:
        raise CommandError("INVALID_SEAT", "No such seat.")
    if s["step"] == OVER:
        raise CommandError("GAME_OVER", "The game is over.")
    if command not in legal_moves(s, seat):
        if seat not in awaiting(s) and command["type"] not in FREE_COMMANDS:
            raise CommandError("NOT_YOUR_TURN", "No decision is awaited from this seat now.")
        raise CommandError("ILLEGAL_MOVE", f"The rules do not allow {command!r} now.")
    kind = command.pop("type")
    if kind in TRADE_EVENT_OF:
        return [trade_event(s, seat, kind, command)]
    if kind in EVENT_OF:
        event = ev(EVENT_OF[kind], seat=seat, **command)
        if kind == "buy":
            event["price"] = buy_price(s, seat)
        return [event]
    from games.rio_de_la_plata.battle import battle_event

    return [battle_event(s, seat, kind, command)]


def run_automatic(s: State, out: list[Event]) -> State:
    while True:
        event = next_automatic(s)
        if event is None:
            return s
        out.append(event)
        s = evolve(s, event)


def decide(s: State, seat: Any, command: Any) -> list[Event]:
    out = command_events(s, seat, command)
    state = s
    for event in out:
        state = evolve(state, event)
    run_automatic(state, out)
    return out


def start(config: dict[str, Any]) -> list[Event]:
    out = [ev("game_started", config=config)]
    run_automatic(evolve(None, out[0]), out)
    return out
