"""The battle of section 16 as a procedure of single commands (RIO-RL-51 .. RIO-RL-70).

Stages of ``state["battle"]["stage"]``: ``start`` (automatic: roles, groups and the number of
attackers), ``place`` (the attacker puts his attackers on entry edges one at a time), ``cannon`` and
``cannon_remove`` (the firing player names k, the dice decide, he removes k attackers one at a time),
``defend`` (each defender in turn order places free, then recruited, people and passes), ``split``
(first battle round: the attacker takes groups of 1..3 off each stack), ``move`` (battle rounds: each
side in turn moves groups one at a time and passes), ``over`` (automatic: the fighting ends),
``withdraw`` (each player in turn order takes people back and passes) and ``end`` (automatic:
RIO-RL-51, the enemy marker retreats).

Groups live in ``battle["groups"]`` (id -> group) while the fighting lasts: ``side`` ``a``/``d``,
``stack`` (owners, top first; attackers are ``-1``), ``at`` (a cell key) or ``edge`` (outside the
city), ``moved`` (this battle round), ``fought`` (the last battle round it fought in), ``can_bonus``
(a bonus move is open to it now) and ``bonused`` (it made its bonus move this battle round).

The three manoeuvres, each a procedure of single commands (RIO-RL-69):

* a *join*: a ``move`` onto a group of one's own side is a merge (RIO-BATTLE-25) or, for two pairs,
  the 2+2 regrouping (RIO-BATTLE-27). When the moving group is a mixed pair the moving player
  chooses which person goes across (``choose_across``); when the new group would hold two or more
  colours he names its commander (``choose_commander``) and every other player in it answers
  (``consent``) (RIO-BATTLE-19, RIO-RL-64). ``battle["ask"]`` holds the proposal meanwhile. A refused
  join is not made; the group may be given another move (not that one again this battle round).
* a *bonus move* (RIO-BATTLE-28, RIO-RL-46, RIO-RL-63, RIO-RL-72): ``bonus`` names the group (it must
  have made a normal step, a merge or a regrouping this battle round, and that step was not a
  combat: RIO-RL-40), ``sacrifice`` removes one group of its
  side at a time (another player's group only with his ``consent``), and ``bonus_step`` takes the one
  extra cell. ``battle["bonus"]`` holds it meanwhile.
"""

from __future__ import annotations

from typing import Any

from games.rio_de_la_plata.config import BONUS_AFTER_FIGHTING, RL_71, revision
from games.rio_de_la_plata.events import GAME_END, ROUND_END, ev
from games.rio_de_la_plata.queries import (
    active,
    cell_limit,
    cell_of,
    ckey,
    cpair,
    draw,
    ekey,
    epair,
    gain_vp,
    put_cell,
    walls,
)
from games.rio_de_la_plata.state import State

Event = dict[str, Any]
ATT = -1


def battle_of(s: State) -> dict[str, Any]:
    battle = s["battle"]
    assert battle is not None
    return battle


def defenders(s: State) -> list[int]:
    attacker = battle_of(s).get("attacker")
    return [seat for seat in s["order"] if seat != attacker]


def captain(s: State) -> int | None:
    """RIO-BATTLE-4, RIO-RL-58: the active Captain, unless the attacker holds it."""
    owner = s["chars"]["captain"]["owner"]
    if owner is not None and active(s, "captain", owner) and owner != battle_of(s).get("attacker"):
        return owner
    return None


def artillerist(s: State) -> int | None:
    owner = s["chars"]["artillerist"]["owner"]
    if owner is not None and active(s, "artillerist", owner) and owner != battle_of(s).get("attacker"):
        return owner
    return None


# ---------------------------------------------------------------------------------------------
# The start of the battle


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


def next_battle_event(s: State) -> Event | None:
    battle = battle_of(s)
    stage = battle["stage"]
    if stage == "start":
        attacker, reset = choose_attacker(s)
        count = attacker_count(s, battle["enemy"], attacker, reset)
        return ev(
            "battle_started",
            enemy=battle["enemy"],
            attacker=attacker,
            marks_reset=reset,
            attackers=count["attackers"],
            people=count["people"],
        )
    if stage == "cannon_roll":
        rng = draw(s)
        dice, sides = s.board.dice
        return ev("dice_rolled", purpose="cannon", dice=[rng.randint(1, sides) for _ in range(dice)])
    if stage == "over":
        return ev("fighting_ended")
    if stage == "end":
        return ev("battle_ended", enemy=battle["enemy"], marker=retreat_index(s, battle["enemy"]))
    return None


def retreat_index(s: State, enemy: str) -> int:
    """RIO-WAR-3, RIO-RL-30."""
    index = s["enemy"][enemy] - s.board.retreat
    return index if index >= 0 else s.board.enemies[enemy]["reset"]


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
    _reset_defender(s)


def _reset_defender(s: State) -> None:
    battle = battle_of(s)
    seats = defenders(s)
    if battle["di"] >= len(seats):
        battle["stage"] = "split"
        if not battle["stacks"]:
            _start_round(s)
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
        _start_round(s)


def movers(s: State) -> list[int]:
    battle = battle_of(s)
    return [battle["attacker"]] + defenders(s)


def _has_groups(s: State, seat: int) -> bool:
    battle = battle_of(s)
    side = "a" if seat == battle["attacker"] else "d"
    return any(
        g["side"] == side and (side == "a" or g["stack"][0] == seat) for g in battle["groups"].values()
    )


def _start_round(s: State) -> None:
    battle = battle_of(s)
    battle["stage"] = "move"
    battle["round"] += 1
    battle["combat"] = False
    battle["mover"] = 0
    battle["refused"] = []
    for group in battle["groups"].values():
        group.update({"moved": False, "can_bonus": False, "bonused": False})
    if not any(g["side"] == "a" for g in battle["groups"].values()):
        battle["stage"] = "over"
        return
    _skip_idle_movers(s)


def _skip_idle_movers(s: State) -> None:
    battle = battle_of(s)
    order = movers(s)
    while battle["mover"] < len(order) and not _has_groups(s, order[battle["mover"]]):
        battle["mover"] += 1
    if battle["mover"] >= len(order):
        _end_round(s)


def _end_round(s: State) -> None:
    """RIO-BATTLE-38, RIO-RL-49."""
    battle = battle_of(s)
    battle["quiet"] = 0 if battle["combat"] else battle["quiet"] + 1
    attackers_left = any(g["side"] == "a" for g in battle["groups"].values())
    if not attackers_left or battle["quiet"] >= s.board.battle["rounds_without_combat_to_end"]:
        battle["stage"] = "over"
        return
    _start_round(s)


# ---------------------------------------------------------------------------------------------
# Movement and combat


def group_at(battle: dict[str, Any], key: str, side: str | None = None) -> tuple[str, dict] | None:
    for gid, g in battle["groups"].items():
        if g["at"] == key and (side is None or g["side"] == side):
            return gid, g
    return None


def destinations(s: State, gid: str) -> list[str]:
    """RIO-BATTLE-22 .. RIO-BATTLE-26, RIO-RL-39, RIO-RL-40, RIO-RL-50, RIO-RL-53."""
    battle = battle_of(s)
    board = s.board
    group = battle["groups"][gid]
    side = group["side"]
    size = len(group["stack"])
    allowance = int(board.battle["moves_by_group_size"][str(size)])
    forbidden = set(battle["forbidden"])
    barred = group["fought"] >= battle["round"] - 1

    occupied = _occupants(battle)
    other_side = "d" if side == "a" else "a"
    refused = {tuple(r) for r in battle.get("refused", ())}

    def stop_kind(key: str) -> str | None:
        """None: may pass through; 'stop': may stop, not pass; 'end': a move ends here; 'no'."""
        if key in forbidden:
            return "no"
        here = occupied.get(key)
        if here:
            if here.get(other_side):
                return "end"
            own = here.get(side) or []
            if own:
                ok = len(own) == 1 and _join_kind(s, group, own[0]) is not None and not barred
                return "end" if ok and (gid, key) not in refused else "no"
        cell = s["city"].get(key)
        if cell and cell["b"]:
            return "end" if side == "a" else "stop"
        return None

    def passable(kind: str | None) -> bool:
        return kind is None or (kind == "stop" and side == "d")

    found: set[str] = set()
    frontier: list[tuple[str, int]] = []
    if group["at"] is None:  # RIO-RL-39: the first step is into the cell behind the edge
        first = ckey(board.edge_cell[epair(group["edge"])])
        kind = stop_kind(first)
        if kind == "no":
            return []
        found.add(first)
        if passable(kind):
            frontier = [(first, allowance - 1)]
    else:
        frontier = [(group["at"], allowance)]
    seen = {f[0]: f[1] for f in frontier}
    while frontier:
        key, left = frontier.pop()
        if left <= 0:
            continue
        for n in board.rook[cpair(key)]:
            nk = ckey(n)
            kind = stop_kind(nk)
            if kind == "no" or nk == group["at"]:
                continue
            found.add(nk)
            if passable(kind) and seen.get(nk, -1) < left - 1:
                seen[nk] = left - 1
                frontier.append((nk, left - 1))
    found.discard(group["at"] or "")
    return sorted(found)


def _occupants(battle: dict[str, Any]) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Cell -> side -> the groups there (two of a side only after a 2+2 regrouping, RIO-RL-38)."""
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for g in battle["groups"].values():
        if g["at"] is not None:
            out.setdefault(g["at"], {}).setdefault(g["side"], []).append(g)
    return out


def _join_kind(s: State, group: dict[str, Any], other: dict[str, Any]) -> str | None:
    """RIO-BATTLE-25, RIO-BATTLE-26, RIO-BATTLE-27, RIO-BATTLE-20: ``merge`` (at most 3 together),
    ``regroup`` (two pairs) or ``None``; people who fought this battle round or the last cannot."""
    battle = battle_of(s)
    top = s.board.battle["max_group"]
    if other["fought"] >= battle["round"] - 1 or group["fought"] >= battle["round"] - 1:
        return None
    if len(group["stack"]) + len(other["stack"]) <= top:
        return "merge"
    if len(group["stack"]) == 2 and len(other["stack"]) == 2:
        return "regroup"
    return None


def _share(total: int, stack: list[int]) -> dict[int, int]:
    """RIO-BATTLE-19, RIO-EX-12: VP shared in proportion to people, each share rounded."""
    out: dict[int, int] = {}
    for seat in set(stack):
        out[seat] = int(total * stack.count(seat) / len(stack) + 0.5)
    return out


def _superiority(s: State, key: str) -> tuple[bool, bool]:
    """RIO-BATTLE-31, RIO-RL-43: (attackers, defenders)."""
    battle = battle_of(s)
    attackers = bool(s.board.enemies[battle["enemy"]]["superiority"])
    district = s.board.district.get(cpair(key))
    defenders_have = district is not None and any(
        c["b"] == "barracks" and s.board.district.get(cpair(k)) == district for k, c in s["city"].items()
    )
    return attackers, defenders_have


def _remove_people(s: State, group: dict[str, Any], count: int, vp_each: int) -> list[int]:
    """Take ``count`` people off the top of a stack (RIO-BATTLE-19); they return to supply."""
    removed = group["stack"][:count]
    group["stack"] = group["stack"][count:]
    for seat in removed:
        if seat != ATT:
            s["p"][seat]["supply"] += 1
            if vp_each:
                gain_vp(s, seat, vp_each, "battle")  # RIO-BATTLE-35
    return removed


def combat(s: State, key: str, attackers: tuple[str, dict], defenders_: tuple[str, dict]) -> None:
    """RIO-BATTLE-29, RIO-BATTLE-30, RIO-BATTLE-35, RIO-BATTLE-36, RIO-RL-44."""
    battle = battle_of(s)
    board = s.board
    (aid, a), (did, d) = attackers, defenders_
    na, nd = len(a["stack"]), len(d["stack"])
    sup_a, sup_d = _superiority(s, key)
    keep = board.battle["superiority_survivors"]
    if na > nd:
        lose_a, lose_d = 0, nd
    elif nd > na:
        lose_a, lose_d = na, 0
    else:
        lose_a = na - (keep if sup_a and not sup_d else 0)
        lose_d = nd - (keep if sup_d and not sup_a else 0)
    stack_before = list(d["stack"])
    per_attacker = board.battle["defender_vp_per_attacker_destroyed"]
    for seat, vp in _share(per_attacker * lose_a, stack_before).items():
        if vp:
            gain_vp(s, seat, vp, "battle")
    chief = captain(s)
    if chief is not None and chief in stack_before and lose_a:
        gain_vp(s, chief, board.characters["captain"].get("vp_per_attacker_destroyed", 1) * lose_a, "battle")
    _remove_people(s, a, lose_a, 0)
    _remove_people(s, d, lose_d, board.battle["defender_vp_per_own_person_lost"])
    for gid, g in ((aid, a), (did, d)):
        g["fought"] = battle["round"]
        if not g["stack"]:
            del battle["groups"][gid]
    battle["combat"] = True


def attack_building(s: State, key: str, gid: str) -> None:
    """RIO-BATTLE-32, RIO-BATTLE-34, RIO-RL-42, RIO-RL-45, RIO-RL-62."""
    battle = battle_of(s)
    group = battle["groups"][gid]
    cell = dict(cell_of(s, key))
    b = cell["b"]
    vp_table = s.board.battle["attacker_vp"]
    vp = vp_table.get(b, vp_table.get("other_minor", 0))
    gain_vp(s, battle["attacker"], vp, "battle")
    if b in ("hut", "house"):
        s["p"][cell["own"]]["huts"] += 1
    elif b in s.board.minors and cell["pool"]:
        s["tiles"][cell["pool"]] += 1
    cell.update({"b": None, "own": None, "pool": None})
    put_cell(s, key, cell)
    group["stack"] = group["stack"][1:]
    group["fought"] = battle["round"]
    if not group["stack"]:
        del battle["groups"][gid]
    battle["combat"] = True


def _arrive(s: State, gid: str, key: str) -> bool:
    """The group steps onto ``key``: combat with each enemy group there, the largest first
    (engine ruling: two enemy groups share a cell only after a 2+2 regrouping), then, for attackers,
    the attack on the building (RIO-BATTLE-29, RIO-BATTLE-32, RIO-RL-40, RIO-RL-42). True when the
    step was a combat."""
    battle = battle_of(s)
    group = battle["groups"][gid]
    side = group["side"]
    other_side = "d" if side == "a" else "a"
    group["at"], group["edge"] = key, None
    enemies = sorted(
        ((eid, g) for eid, g in battle["groups"].items() if g["at"] == key and g["side"] == other_side),
        key=lambda item: (-len(item[1]["stack"]), int(item[0])),
    )
    fought = False
    for enemy in enemies:
        if gid not in battle["groups"]:
            break
        pair = ((gid, group), enemy) if side == "a" else (enemy, (gid, group))
        combat(s, key, pair[0], pair[1])
        fought = True
    cell = s["city"].get(key)
    if side == "a" and gid in battle["groups"] and cell and cell["b"]:
        attack_building(s, key, gid)
        fought = True
    return fought


def _moved(s: State, e: Event) -> None:
    battle = battle_of(s)
    gid, key = e["group"], ckey(e["to"])
    group = battle["groups"][gid]
    group["moved"] = True
    friend = group_at(battle, key, group["side"])
    if friend is not None:  # RIO-BATTLE-25, RIO-BATTLE-27: a merge or a 2+2 regrouping
        group["moved"] = False  # not moved until the join is made (a refusal leaves it free)
        fid, f = friend
        battle["ask"] = {
            "kind": _join_kind(s, group, f),
            "group": gid,
            "target": fid,
            "to": key,
            "mover": e["seat"],
            "across": None,
            "commander": None,
            "consent": None,
        }
        _advance_join(s)
        return
    fought = _arrive(s, gid, key)
    if gid in battle["groups"]:
        # RIO-BATTLE-28 gives "any group" its bonus move, so a group that fought earlier in this
        # battle round still has one after a normal step; a step that is itself a combat ends the
        # move where it took place (RIO-RL-40), bonus step included.
        if revision(s["config"]) < BONUS_AFTER_FIGHTING:
            fought = group["fought"] == battle["round"]
        group["can_bonus"] = not fought and not group.get("bonused")


def _joined_people(s: State, ask: dict[str, Any]) -> list[int]:
    battle = battle_of(s)
    group, target = battle["groups"][ask["group"]], battle["groups"][ask["target"]]
    crossing = group["stack"] if ask["kind"] == "merge" else [group["stack"][ask["across"] or 0]]
    return crossing + target["stack"]


def _advance_join(s: State) -> None:
    """RIO-RL-64: settle what the join still needs (the person going across, the commander, the
    consents, in that order), then make it."""
    battle = battle_of(s)
    ask = battle["ask"]
    group = battle["groups"][ask["group"]]
    if ask["kind"] == "regroup" and ask["across"] is None:
        if len(set(group["stack"])) > 1:
            return  # choose_across
        ask["across"] = 0
    colours = set(_joined_people(s, ask))
    if ask["commander"] is None:
        if len(colours) > 1:
            return  # choose_commander
        ask["commander"] = ask["mover"]
    if ask["consent"] is None:
        ask["consent"] = [seat for seat in s["order"] if seat in colours and seat != ask["mover"]]
    if ask["consent"]:
        return  # consent
    _make_join(s)


def _make_join(s: State) -> None:
    battle = battle_of(s)
    ask = battle.pop("ask")
    battle["ask"] = None
    gid, fid, chief = ask["group"], ask["target"], ask["commander"]
    group, target = battle["groups"][gid], battle["groups"][fid]
    if ask["kind"] == "merge":
        crossing, staying = group["stack"], []
    else:
        index = ask["across"] or 0
        crossing = [group["stack"][index]]
        staying = group["stack"][:index] + group["stack"][index + 1 :]
    # RIO-RL-64: the commander's people on top, then the moving group's, then the group on the cell
    target["stack"] = (
        [p for p in crossing if p == chief]
        + [p for p in target["stack"] if p == chief]
        + [p for p in crossing if p != chief]
        + [p for p in target["stack"] if p != chief]
    )
    target["moved"] = True
    target["fought"] = max(target["fought"], group["fought"])
    target["can_bonus"] = not target.get("bonused")
    if staying:  # RIO-BATTLE-27: the single stays on the cell, a unit of its own (RIO-RL-38)
        group.update({"stack": staying, "at": ask["to"], "edge": None, "moved": True})
        group["can_bonus"] = not group.get("bonused")
    else:
        del battle["groups"][gid]


def _refuse_join(s: State) -> None:
    """RIO-RL-64: on a refusal the move is not made; the group may be given another move (this one
    is not offered again this battle round: engine ruling)."""
    battle = battle_of(s)
    ask = battle["ask"]
    battle["ask"] = None
    battle.setdefault("refused", []).append([ask["group"], ask["to"]])


def _across_chosen(s: State, e: Event) -> None:
    battle_of(s)["ask"]["across"] = e["person"]
    _advance_join(s)


def _commander_chosen(s: State, e: Event) -> None:
    battle_of(s)["ask"]["commander"] = e["commander"]
    _advance_join(s)


def _consented(s: State, e: Event) -> None:
    battle = battle_of(s)
    ask = battle["ask"]
    if not e["accept"]:
        if ask["kind"] == "sacrifice":
            _refuse_sacrifice(s)
        else:
            _refuse_join(s)
        return
    ask["consent"].pop(0)
    if ask["consent"]:
        return
    if ask["kind"] == "sacrifice":
        _make_sacrifice(s)
    else:
        _make_join(s)


# ---------------------------------------------------------------------------------------------
# Bonus moves (RIO-BATTLE-28, RIO-RL-46, RIO-RL-63)


def commander(group: dict[str, Any]) -> int:
    return group["stack"][0]


def bonus_victims(s: State, gid: str) -> list[str]:
    """RIO-RL-46: the groups a bonus move of ``gid`` may sacrifice: for attackers, other attacker
    groups; for defenders, groups commanded by one of the group's players. Anywhere, outside the
    city included (RIO-RL-63)."""
    battle = battle_of(s)
    group = battle["groups"][gid]
    colours = set(group["stack"])
    refused = set((battle.get("bonus") or {}).get("refused", ()))
    out = []
    for vid, g in sorted(battle["groups"].items(), key=lambda item: int(item[0])):
        if vid == gid or g["side"] != group["side"] or vid in refused:
            continue
        if group["side"] == "d" and commander(g) not in colours:
            continue
        out.append(vid)
    return out


def bonus_steps(s: State, gid: str) -> list[str]:
    """The one extra cell (RIO-BATTLE-28): an orthogonal neighbour, not forbidden, and not a cell
    holding a group of its own side (engine ruling: a bonus step does not merge or regroup)."""
    battle = battle_of(s)
    group = battle["groups"][gid]
    if group["at"] is None:
        return []
    forbidden = set(battle["forbidden"])
    occupied = _occupants(battle)
    out = []
    for n in s.board.rook[cpair(group["at"])]:
        key = ckey(n)
        if key in forbidden or occupied.get(key, {}).get(group["side"]):
            continue
        out.append(key)
    return sorted(out)


def bonus_open(s: State, gid: str) -> bool:
    battle = battle_of(s)
    group = battle["groups"][gid]
    return bool(
        group.get("can_bonus")
        and not group.get("bonused")
        and len(bonus_victims(s, gid)) >= len(group["stack"])
        and bonus_steps(s, gid)
    )


def _bonus_started(s: State, e: Event) -> None:
    battle = battle_of(s)
    group = battle["groups"][e["group"]]
    group["can_bonus"] = False
    group["bonused"] = True  # RIO-RL-46: at most one bonus move per battle round
    battle["bonus"] = {"group": e["group"], "left": len(group["stack"]), "refused": []}


def _sacrificed(s: State, e: Event) -> None:
    battle = battle_of(s)
    victim = battle["groups"][e["group"]]
    others = [seat for seat in s["order"] if seat in victim["stack"] and seat != e["seat"]]
    battle["ask"] = {"kind": "sacrifice", "victim": e["group"], "mover": e["seat"], "consent": others}
    if not others:
        _make_sacrifice(s)


def _make_sacrifice(s: State) -> None:
    """RIO-RL-46: sacrificed people go to their owners' supplies without VP (RIO-BATTLE-37)."""
    battle = battle_of(s)
    ask = battle["ask"]
    battle["ask"] = None
    victim = battle["groups"].pop(ask["victim"])
    for seat in victim["stack"]:
        if seat != ATT:
            s["p"][seat]["supply"] += 1
    battle["bonus"]["left"] -= 1


def _refuse_sacrifice(s: State) -> None:
    """RIO-RL-63: another player's group is sacrificed only with his consent. When too few groups
    are left to sacrifice, the bonus move is lost (engine ruling; the sacrifices made stand)."""
    battle = battle_of(s)
    ask = battle["ask"]
    battle["ask"] = None
    bonus = battle["bonus"]
    bonus["refused"].append(ask["victim"])
    if len(bonus_victims(s, bonus["group"])) < bonus["left"]:
        battle["bonus"] = None


def _bonus_stepped(s: State, e: Event) -> None:
    battle = battle_of(s)
    battle["bonus"] = None
    _arrive(s, e["group"], ckey(e["to"]))


def _passed(s: State, e: Event) -> None:
    battle = battle_of(s)
    if battle["stage"] == "defend":
        battle["di"] += 1
        _reset_defender(s)
    elif battle["stage"] == "move":
        battle["mover"] += 1
        _skip_idle_movers(s)
    elif battle["stage"] == "withdraw":
        battle["withdrawer"] += 1
        if battle["withdrawer"] >= s["n"]:
            battle["stage"] = "end"


def _fighting_ended(s: State, e: Event) -> None:
    """RIO-BATTLE-39, RIO-BATTLE-40 (mixed groups first, RIO-RL-65); plaza people go home
    (RIO-RL-51 (a)). Groups of different colours left on one cell by a 2+2 regrouping are taken back
    like mixed groups (engine ruling: a cell holds one colour outside a battle, RIO-CITY-6)."""
    battle = battle_of(s)
    colours: dict[str, set[int]] = {}
    for g in battle["groups"].values():
        if g["side"] == "d":
            colours.setdefault(g["at"], set()).update(g["stack"])
    for g in battle["groups"].values():
        if g["side"] == "a":
            continue
        if len(colours[g["at"]]) > 1 or cpair(g["at"]) in s.board.plaza:
            for seat in g["stack"]:
                s["p"][seat]["supply"] += 1
            continue
        cell = dict(cell_of(s, g["at"]))
        cell["ppl"] = list(cell["ppl"])
        cell["ppl"][g["stack"][0]] += len(g["stack"])
        put_cell(s, g["at"], cell)
    battle["groups"] = {}
    battle["stacks"] = {}
    battle["stage"] = "withdraw"
    battle["withdrawer"] = 0


def _withdrew(s: State, e: Event) -> None:
    key = ckey(e["cell"])
    cell = dict(cell_of(s, key))
    cell["ppl"] = list(cell["ppl"])
    cell["ppl"][e["seat"]] -= e["count"]
    s["p"][e["seat"]]["supply"] += e["count"]
    put_cell(s, key, cell)


def _battle_ended(s: State, e: Event) -> None:
    """RIO-RL-51 (b)-(d), RIO-RL-71 (from rules revision 2), RIO-WAR-3."""
    rl_71 = revision(s["config"]) >= RL_71
    for key in sorted(s["city"]):
        cell = dict(s["city"][key])
        cell["ppl"] = list(cell["ppl"])
        b = cell["b"]
        for seat in range(s["n"]):
            n = cell["ppl"][seat]
            if not n:
                continue
            if b in ("palace", "cathedral", "statue", "garden", "barracks", "house") or (
                b == "hut" and cell["own"] != seat
            ):
                cell["ppl"][seat] = 0
                s["p"][seat]["supply"] += n
        # (d), and RIO-RL-71 for a cell without a building (where only a 2+2 regrouping can have
        # left a fourth person: the regrouping's single goes home, people of one colour being
        # interchangeable); the latest in turn order gives way first.
        excess = sum(cell["ppl"]) - cell_limit(s, key, cell) if b is not None or rl_71 else 0
        for seat in reversed(s["order"]):
            take = min(max(0, excess), cell["ppl"][seat])
            cell["ppl"][seat] -= take
            s["p"][seat]["supply"] += take
            excess -= take
        put_cell(s, key, cell)
    s["enemy"][e["enemy"]] = e["marker"]
    s["battle"] = None
    s["step"] = GAME_END if s["year"] >= s.board.last_year else ROUND_END


BATTLE_HANDLERS = {
    "battle_started": _battle_started,
    "attacker_placed": _attacker_placed,
    "fired": _fired,
    "attacker_removed": _attacker_removed,
    "defended": _defended,
    "split": _split,
    "moved": _moved,
    "across_chosen": _across_chosen,
    "commander_chosen": _commander_chosen,
    "consented": _consented,
    "bonus_started": _bonus_started,
    "sacrificed": _sacrificed,
    "bonus_stepped": _bonus_stepped,
    "passed": _passed,
    "fighting_ended": _fighting_ended,
    "withdrew": _withdrew,
    "battle_ended": _battle_ended,
}


# ---------------------------------------------------------------------------------------------
# Awaiting and legal moves


def battle_awaiting(s: State) -> list[int]:
    battle = battle_of(s)
    stage = battle["stage"]
    if stage in ("place", "split"):
        return [battle["attacker"]]
    if stage in ("cannon", "cannon_remove"):
        return [battle["firer"]]
    if stage == "defend":
        return [defenders(s)[battle["di"]]]
    if stage == "move":
        ask = battle.get("ask")
        if ask is not None:  # RIO-RL-69 (5): choices and consents are pending decisions
            return [ask["consent"][0]] if ask.get("consent") else [ask["mover"]]
        return [movers(s)[battle["mover"]]]
    if stage == "withdraw":
        return [s["order"][battle["withdrawer"]]]
    return []


def battle_moves(s: State, seat: int) -> list[dict[str, Any]]:
    battle = battle_of(s)
    stage = battle["stage"]
    if stage == "place":  # RIO-RL-69 (1)
        standing = {epair(k) for k in walls(s)}
        return [{"type": "place_attacker", "edge": ekey(e)} for e in s.board.entry_edges(standing)]
    if stage == "cannon":
        total = sum(battle["stacks"].values())
        return [{"type": "fire", "k": k} for k in range(1, total + 1)]
    if stage == "cannon_remove":  # RIO-RL-69 (2)
        return [{"type": "remove_attacker", "edge": k} for k in sorted(battle["stacks"])]
    if stage == "defend":  # RIO-RL-70
        moves: list[dict[str, Any]] = []
        price = recruit_price(s)
        if s["p"][seat]["supply"] and s["p"][seat]["silver"] >= price:
            moves = [{"type": "defend", "cell": list(cpair(k))} for k in defend_cells(s, seat)]
        return moves + [{"type": "pass"}]
    if stage == "split":  # RIO-RL-69 (3)
        top = s.board.battle["max_group"]
        return [
            {"type": "split", "edge": k, "size": size}
            for k, n in sorted(battle["stacks"].items())
            for size in range(1, min(top, n) + 1)
        ]
    if stage == "move":  # RIO-RL-53, RIO-RL-69 (4), (5)
        return move_stage_moves(s, seat)
    if stage == "withdraw":  # RIO-BATTLE-40, RIO-RL-65
        moves = []
        for key, cell in sorted(s["city"].items()):
            for count in range(1, cell["ppl"][seat] + 1):
                moves.append({"type": "withdraw", "cell": list(cpair(key)), "count": count})
        return moves + [{"type": "pass"}]
    return []


def move_stage_moves(s: State, seat: int) -> list[dict[str, Any]]:
    battle = battle_of(s)
    ask = battle.get("ask")
    if ask is not None:
        if ask.get("consent"):
            return [{"type": "consent", "accept": True}, {"type": "consent", "accept": False}]
        if ask["kind"] == "regroup" and ask["across"] is None:  # RIO-RL-64
            stack = battle["groups"][ask["group"]]["stack"]
            firsts = sorted({stack.index(p) for p in stack})
            return [{"type": "choose_across", "person": i} for i in firsts]
        colours = sorted(set(_joined_people(s, ask)))
        return [{"type": "choose_commander", "commander": c} for c in colours]
    bonus = battle.get("bonus")
    if bonus is not None:  # RIO-RL-63: the sacrifices, one at a time, then the step
        gid = bonus["group"]
        if bonus["left"]:
            return [{"type": "sacrifice", "group": v} for v in bonus_victims(s, gid)]
        return [{"type": "bonus_step", "group": gid, "to": list(cpair(k))} for k in bonus_steps(s, gid)]
    side = "a" if seat == battle["attacker"] else "d"
    moves: list[dict[str, Any]] = []
    bonuses: list[dict[str, Any]] = []
    for gid, g in sorted(battle["groups"].items(), key=lambda item: int(item[0])):
        if g["side"] != side or (side == "d" and g["stack"][0] != seat):
            continue
        if not g["moved"]:
            moves += [{"type": "move", "group": gid, "to": list(cpair(k))} for k in destinations(s, gid)]
        if bonus_open(s, gid):
            bonuses.append({"type": "bonus", "group": gid})
    return moves + bonuses + [{"type": "pass"}]


BATTLE_EVENT_OF = {
    "place_attacker": "attacker_placed",
    "fire": "fired",
    "remove_attacker": "attacker_removed",
    "defend": "defended",
    "split": "split",
    "move": "moved",
    "choose_across": "across_chosen",
    "choose_commander": "commander_chosen",
    "consent": "consented",
    "bonus": "bonus_started",
    "sacrifice": "sacrificed",
    "bonus_step": "bonus_stepped",
    "pass": "passed",
    "withdraw": "withdrew",
}


def battle_event(s: State, seat: int, kind: str, command: dict[str, Any]) -> Event:
    event = ev(BATTLE_EVENT_OF[kind], seat=seat, **command)
    if kind == "defend":
        event["price"] = recruit_price(s)
    return event
