"""``decide``: the legal moves of a seat, and the events a command causes followed by every automatic
event up to the next decision; ``start`` opens a game the same way. A command is accepted exactly
when it is one of :func:`legal_moves` (so the two can never disagree); a refused one raises
``CommandError`` with a stable code."""

from __future__ import annotations

from typing import Any

from games.base import CommandError
from games.rio_de_la_plata.battle import (
    battle_event,
    battle_moves,
)
from games.rio_de_la_plata.events import (
    BATTLE,
    OVER,
    A,
    B,
    Command,
    Event,
    ev,
)
from games.rio_de_la_plata.evolve import (
    evolve,
)
from games.rio_de_la_plata.queries import (
    GOODS,
    any_tile,
    buy_price,
    cell_limit,
    ckey,
    cpair,
    ekey,
    free_slots,
    hold_capacity,
    hold_total,
    holder,
    house_adjacent,
    tile_sites,
    uses_limit,
    uses_this_round,
    walls,
)
from games.rio_de_la_plata.state import State
from games.rio_de_la_plata.steps import (
    awaiting,
    next_automatic,
    pending_decision,
)
from games.rio_de_la_plata.trade import (
    FREE_COMMANDS,
    TRADE_EVENT_OF,
    free_moves,
    trade_event,
)
from games.rio_de_la_plata.undo import UNDO, undo_event


def legal_moves(s: State | None, seat: int) -> list[Command]:
    """Every command ``seat`` may issue now: the pending decision's moves if it is his, then the
    free commands (purchases and trades, RIO-RL-27) open to every player while the game awaits
    anybody."""
    pending = pending_decision(s)
    if s is None or not pending or not isinstance(seat, int) or not 0 <= seat < s["n"]:
        return []
    return decision_moves(s, seat, pending) + free_moves(s, seat)


def decision_moves(s: State, seat: int, pending: Any = None) -> list[Command]:
    """The pending decision's moves if it is ``seat``'s (``legal_moves`` without the free
    commands; ``pending``: ``pending_decision(s)`` when the caller has it)."""
    if pending is None:
        pending = pending_decision(s)
    moves: list[Command] = []
    if pending and seat in pending:
        if s["due"]:
            moves = due_moves(s, s["due"][0])
        elif s["step"] == A:
            moves = placement_moves(s, seat)
        elif s["step"] == B:
            moves = action_moves(s, seat)
        elif s["step"] == BATTLE:
            moves = battle_moves(s, seat)
    return moves


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
    city = s["city"]
    out: list[Command] = []
    candidates = set(board.start_zone_keys)  # RIO-CITY-3: the start zone, own huts and their neighbours
    for key, cell in city.items():
        if cell["own"] == seat and cell["b"] in ("hut", "house"):
            candidates.update(board.adjacent_keys[key])
            if cell["b"] == "hut":
                candidates.add(key)
    for key in sorted(candidates, key=board.row_order.__getitem__):
        cell = city.get(key)
        if cell is None:  # nothing and nobody there
            if board.max_per_cell > 0:
                out.append({"type": "place", "space": "cell", "cell": list(cpair(key))})
            continue
        if cell["b"] in ("palace", "cathedral") or (cell["own"] is not None and cell["own"] != seat):
            continue
        mine = cell["ppl"][seat]
        total = sum(cell["ppl"])
        others = total - mine
        if cell["b"] is None:
            if others == 0 and total < board.max_per_cell:
                out.append({"type": "place", "space": "cell", "cell": list(cpair(key))})
            elif others and not mine and 2 * others <= min(left, p["supply"]):
                out.append({"type": "place", "space": "cell", "cell": list(cpair(key)), "displace": True})
            continue
        if total >= board.max_per_cell or total >= cell_limit(s, key, cell):
            continue  # (no cell holds more than max_per_cell: the first test spares the second)
        if others and not (cell["b"] in board.uses and uses_limit(s, key) >= 2 and mine == 0):
            continue  # RIO-CITY-6, RIO-USE-4: two colours only on a twice-usable building
        out.append({"type": "place", "space": "cell", "cell": list(cpair(key))})
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


def command_events(s: State, seat: Any, command: Any, *, legal: bool = False) -> list[Event]:
    """The player event of ``command`` (not yet followed by the automatic ones). ``legal``: the
    caller took ``command`` from ``legal_moves(s, seat)`` (a search), so it is not checked again
    (the check costs as much as listing the moves)."""
    command = canonical(command)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < s["n"]:
        raise CommandError("INVALID_SEAT", "No such seat.")
    if s["step"] == OVER:
        raise CommandError("GAME_OVER", "The game is over.")
    if command["type"] == UNDO:  # never a legal move: bots and searches do not take moves back
        return [undo_event(s, seat, command)]
    if not legal and command not in legal_moves(s, seat):
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
