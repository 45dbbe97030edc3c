"""``evolve``: apply one event to a state, with every consequence the rules attach to it.

A player's event is the fact "seat did X" (``placed``, ``built``, ``moved``...); ``evolve`` applies
it with every consequence the rules attach to it (a displacement returning people, a combat removing
groups), so the log stays small and each event reads as one decision. The battle's events are
applied by :mod:`games.rio_de_la_plata.battle`, the free commands' by
:mod:`games.rio_de_la_plata.trade`; random outcomes arrive recorded in the event, so a replay never
draws again.

Longer than 500 lines on purpose: one short handler for each of the round's 24 events and the
table of them (``HANDLERS``), which reads best as one list of every event's effect."""

from __future__ import annotations

from typing import Any

from games.base import SEAT_HANDED_TO_BOT, SEAT_TOKEN_ROTATED
from games.rio_de_la_plata.battle import (
    BATTLE_HANDLERS,
    cannon_rolled,
)
from games.rio_de_la_plata.board import load_board
from games.rio_de_la_plata.events import (
    B_END,
    BATTLE,
    GAME_END,
    OVER,
    RESOLVE,
    ROLL,
    ROUND_END,
    A,
    B,
    Event,
)
from games.rio_de_la_plata.queries import (
    GOODS,
    active,
    any_tile,
    cell_of,
    ckey,
    free_slots,
    gain_vp,
    holder,
    put_cell,
    tile_sites,
    winners,
)
from games.rio_de_la_plata.state import State, make_state
from games.rio_de_la_plata.trade import (
    TRADE_HANDLERS,
    lapses,
)
from games.rio_de_la_plata.undo import UNDONE, after, taken_back


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


# The server's own records in a game's log (games/base.py): a seat's token replaced, a seat handed to
# a bot. No player acted, so nothing in the game changes and an open offer stays open (RIO-RL-27
# lapses an offer on a command).
SERVER_RECORDS = frozenset({SEAT_TOKEN_ROTATED, SEAT_HANDED_TO_BOT})


def evolve(s: State | None, e: Event) -> State:
    kind = e["type"]
    if kind == "game_started":
        return new_state(e["config"])
    assert s is not None
    if kind in SERVER_RECORDS:
        return s
    if kind == UNDONE:
        return taken_back(s)
    before = s
    s = s.copy()
    apply(s, e)
    after(before, e, s)  # RIO-UNDO-2: only the last of these decisions, and nothing since
    return s


def apply(s: State, e: Event) -> None:
    """Apply a game event (not ``game_started``, a server record or ``undone``) to ``s`` itself:
    ``evolve`` without the copy and the undo bookkeeping, for a state nobody else holds."""
    kind = e["type"]
    handler = HANDLERS.get(kind) or TRADE_HANDLERS.get(kind)
    if handler is None:
        handler = BATTLE_HANDLERS[kind]
    if s.get("offer") is not None and lapses(kind):
        s["offer"] = None  # RIO-RL-27: any other command makes an open offer lapse
    handler(s, e)


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
        row = list(s["major"][name]["grids"][grid])
        row[index] = seat
        _put_grid(s, name, grid, row)
        p["supply"] -= 1
        p["placed"] += 1
        existing = board.majors[name].grids[grid].existing(s["n"])
        if all(row[i] is not None for i in existing):
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


def _put_grid(s: State, name: str, grid: int, row: list[int | None]) -> None:
    """A major building's record is replaced, never changed in place (the state copy shares it)."""
    grids = list(s["major"][name]["grids"])
    grids[grid] = row
    s["major"][name] = {**s["major"][name], "grids": grids}


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
    _put_grid(s, name, gi, [None] * len(grid.spaces))
    if major.completer_bonus:
        gain_vp(s, completer, major.completer_bonus, "major_buildings")
    if not major.repeatable:
        s["major"][name] = {**s["major"][name], "done": True}
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
