"""The battle up to its first battle round (RIO-BATTLE-1 .. RIO-BATTLE-17, RIO-RL-34 .. RIO-RL-38):
the attacker and the number of attackers, their placing on the entry edges, the cannon, the defence,
and the split of the attackers' stacks into groups."""

from __future__ import annotations

from typing import Any

from games.rio_de_la_plata.battle.groups import ATT, Event, artillerist, battle_of, captain, defenders
from games.rio_de_la_plata.battle.rounds import start_round
from games.rio_de_la_plata.queries import ckey, epair, gain_vp, put_cell, walls
from games.rio_de_la_plata.state import State


def choose_attacker(s: State) -> tuple[int, bool]:
    """RIO-BATTLE-1, RIO-RL-34: most VP among those without an attack mark, earliest in turn
    order on a tie; when everybody has a mark, the marks are removed first."""
    reset = all(s["p"][seat]["mark"] for seat in range(s["n"]))
    candidates = [seat for seat in s["order"] if reset or not s["p"][seat]["mark"]]
    best = max(s["p"][seat]["vp"] for seat in candidates)
    return next(seat for seat in candidates if s["p"][seat]["vp"] == best), reset


def forbidden_cells(s: State, attacker: int) -> list[str]:
    """RIO-BATTLE-3: the cells holding the attacker's people."""
    return sorted(k for k, c in s["city"].items() if c["ppl"][attacker])


def attacker_count(s: State, enemy: str, attacker: int, reset: bool) -> dict[str, int]:
    """RIO-BATTLE-6, RIO-BATTLE-7, RIO-RL-35."""
    board = s.board
    forbidden = set(forbidden_cells(s, attacker))
    people = sum(
        n
        for k, c in s["city"].items()
        if k not in forbidden
        for seat, n in enumerate(c["ppl"])
        if seat != attacker
    )
    defending = s["n"] - 1
    bonus = board.enemies[enemy]["track"][s["enemy"][enemy]][1]
    wanted = (
        people
        + board.battle["attackers_per_defending_player"] * defending
        + max(0, bonus - board.bonus_reduction[s["n"]])
    )
    marks = (0 if reset else sum(1 for p in s["p"] if p["mark"])) + 1
    cap = board.purple - 1 - int(s["ship"]["at_sea"]) - marks
    return {"people": people, "wanted": wanted, "cap": cap, "attackers": max(0, min(wanted, cap))}


def _battle_started(s: State, e: Event) -> None:
    battle = battle_of(s)
    attacker = e["attacker"]
    if e["marks_reset"]:
        for p in s["p"]:
            p["mark"] = False
    s["p"][attacker]["mark"] = True
    forbidden = forbidden_cells(s, attacker)
    groups: dict[str, dict[str, Any]] = {}
    order = s["order"]
    for key in sorted(s["city"]):
        if key in forbidden:
            continue  # RIO-RL-52: these people take no part
        cell = dict(s["city"][key])
        cell["ppl"] = list(cell["ppl"])
        stack: list[int] = []
        for seat in order:  # RIO-RL-38, RIO-RL-52: earlier in turn order on top
            stack += [seat] * cell["ppl"][seat]
            cell["ppl"][seat] = 0
        if stack:
            gid = str(len(groups) + 1)
            groups[gid] = {"side": "d", "stack": stack, "at": key, "edge": None, "moved": False, "fought": -9}
            put_cell(s, key, cell)
    battle.update(
        {
            "attacker": attacker,
            "to_place": e["attackers"],
            "stacks": {},
            "groups": groups,
            "next_id": len(groups) + 1,
            "forbidden": forbidden,
            "firer": None,
            "k": 0,
            "di": 0,
            "free_left": 0,
            "recruited": 0,
            "mover": 0,
            "round": 0,
            "quiet": 0,
            "combat": False,
            "withdrawer": 0,
        }
    )
    battle["stage"] = "place" if e["attackers"] else "over"
    if battle["stage"] == "place" and not s.board.entry_edges({epair(k) for k in walls(s)}):
        battle["stage"] = "over"


def _after_placing(s: State) -> None:
    battle = battle_of(s)
    firer = None
    if s["fort"]:  # RIO-BATTLE-9, RIO-RL-36
        firer = artillerist(s)
        if firer is None:
            firer = min(defenders(s), key=lambda seat: (s["p"][seat]["vp"], s["order"].index(seat)))
    if firer is not None and sum(battle["stacks"].values()):
        battle["firer"] = firer
        battle["stage"] = "cannon"
    else:
        _start_defence(s)


def _start_defence(s: State) -> None:
    battle = battle_of(s)
    battle["stage"] = "defend"
    battle["di"] = 0
    reset_defender(s)


def reset_defender(s: State) -> None:
    battle = battle_of(s)
    seats = defenders(s)
    if battle["di"] >= len(seats):
        battle["stage"] = "split"
        if not battle["stacks"]:
            start_round(s)
        return
    seat = seats[battle["di"]]
    battle["free_left"] = s.board.battle["free_defenders_per_player"]
    if captain(s) == seat:  # RIO-BATTLE-14
        battle["free_left"] += s.board.characters["captain"].get("free_defenders", 1)
    battle["recruited"] = 0


def _attacker_placed(s: State, e: Event) -> None:
    battle = battle_of(s)
    battle["stacks"][e["edge"]] = battle["stacks"].get(e["edge"], 0) + 1
    battle["to_place"] -= 1
    if battle["to_place"] == 0:
        _after_placing(s)


def _fired(s: State, e: Event) -> None:
    battle = battle_of(s)
    battle["k"] = e["k"]
    battle["stage"] = "cannon_roll"


def cannon_rolled(s: State, e: Event) -> None:
    """RIO-BATTLE-10, RIO-BATTLE-11."""
    battle = battle_of(s)
    bonus = 0
    if battle["firer"] == artillerist(s):
        bonus = s.board.characters["artillerist"].get("roll_bonus", 1)
    if sum(e["dice"]) + bonus >= battle["k"] + s.board.battle["cannon_target_offset"]:
        battle["stage"] = "cannon_remove"
        battle["hits"] = battle["k"]
    else:
        _start_defence(s)


def _attacker_removed(s: State, e: Event) -> None:
    battle = battle_of(s)
    battle["stacks"][e["edge"]] -= 1
    if not battle["stacks"][e["edge"]]:
        del battle["stacks"][e["edge"]]
    if battle["firer"] == artillerist(s):
        vp = s.board.characters["artillerist"].get("vp_per_cannon_hit", 2)
        gain_vp(s, battle["firer"], vp, "battle")
    battle["k"] -= 1
    if battle["k"] == 0 or not battle["stacks"]:
        _start_defence(s)


def defend_cells(s: State, seat: int) -> list[str]:
    """RIO-BATTLE-12, RIO-BATTLE-14, RIO-BATTLE-15, RIO-RL-37, RIO-RL-67."""
    battle = battle_of(s)
    forbidden = set(battle["forbidden"])
    anywhere = captain(s) == seat
    at = {g["at"]: g for g in battle["groups"].values() if g["at"] is not None}
    out = []
    for key, cell in sorted(s["city"].items()):
        b = cell["b"]
        if b is None or key in forbidden:
            continue
        allowed = (b in ("hut", "house") and cell["own"] == seat) or b == "barracks"
        if anywhere and b in s.board.minors:
            allowed = True
        if not allowed:
            continue
        group = at.get(key)
        if group is not None and (
            group["side"] != "d"
            or set(group["stack"]) != {seat}
            or len(group["stack"]) >= s.board.battle["max_group"]
        ):
            continue
        out.append(key)
    return out


def recruit_price(s: State) -> int:
    battle = battle_of(s)
    cost = s.board.battle["recruit_cost"]
    return 0 if battle["free_left"] else cost["first"] + cost["step"] * battle["recruited"]


def _defended(s: State, e: Event) -> None:
    battle = battle_of(s)
    seat = e["seat"]
    s["p"][seat]["supply"] -= 1
    s["p"][seat]["silver"] -= e["price"]
    if battle["free_left"]:
        battle["free_left"] -= 1
    else:
        battle["recruited"] += 1
    key = ckey(e["cell"])
    for group in battle["groups"].values():
        if group["at"] == key:
            group["stack"].append(seat)
            return
    gid = str(battle["next_id"])
    battle["next_id"] += 1
    battle["groups"][gid] = {
        "side": "d",
        "stack": [seat],
        "at": key,
        "edge": None,
        "moved": False,
        "fought": -9,
    }


def _split(s: State, e: Event) -> None:
    battle = battle_of(s)
    battle["stacks"][e["edge"]] -= e["size"]
    if not battle["stacks"][e["edge"]]:
        del battle["stacks"][e["edge"]]
    gid = str(battle["next_id"])
    battle["next_id"] += 1
    battle["groups"][gid] = {
        "side": "a",
        "stack": [ATT] * e["size"],
        "at": None,
        "edge": e["edge"],
        "moved": False,
        "fought": -9,
    }
    if not battle["stacks"]:
        start_round(s)


OPENING_HANDLERS = {
    "battle_started": _battle_started,
    "attacker_placed": _attacker_placed,
    "fired": _fired,
    "attacker_removed": _attacker_removed,
    "defended": _defended,
    "split": _split,
}
