"""The automatic steps: :func:`next_automatic` looks only at the state and produces the event the
rules produce by themselves now (a grid's resolution, a ship's return, a dice roll, a round's end,
the final scoring), or ``None`` when a player must decide; :func:`awaiting` names who. Random
outcomes are drawn from ``Random(f"{seed}/{counter}")`` and recorded in the event (``order_drawn``,
``dice_rolled``)."""

from __future__ import annotations

from games.rio_de_la_plata.battle import (
    battle_awaiting,
    next_battle_event,
)
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
    ev,
)
from games.rio_de_la_plata.queries import (
    GOODS,
    active,
    any_tile,
    connected_districts,
    cpair,
    current,
    draw,
    ekey,
    hold_capacity,
    hold_total,
    walls,
)
from games.rio_de_la_plata.state import State


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
        return battle_awaiting(s)
    return []
