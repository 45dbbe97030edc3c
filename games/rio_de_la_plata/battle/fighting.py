"""Movement and combat in the battle rounds (RIO-BATTLE-22 .. RIO-BATTLE-36, RIO-RL-39 ..
RIO-RL-45): where a group may go, whether it may join a group of its own side, and what happens when
it steps onto enemies or, as attackers, onto a building (the VP of both included)."""

from __future__ import annotations

from typing import Any

from games.rio_de_la_plata.battle.groups import ATT, battle_of, captain, occupants
from games.rio_de_la_plata.queries import cell_of, ckey, cpair, epair, gain_vp, put_cell
from games.rio_de_la_plata.state import State

_UNKNOWN = object()  # a cell whose kind is not worked out yet (None is a kind)


def destinations(
    s: State, gid: str, occupied: dict[str, dict[str, list[dict[str, Any]]]] | None = None
) -> list[str]:
    """RIO-BATTLE-22 .. RIO-BATTLE-26, RIO-RL-39, RIO-RL-40, RIO-RL-50, RIO-RL-53 (``occupied``:
    ``occupants(battle)`` when the caller has it). What a cell is to the group is worked out once
    per cell: the search reaches a cell from several sides."""
    battle = battle_of(s)
    board = s.board
    group = battle["groups"][gid]
    side = group["side"]
    size = len(group["stack"])
    allowance = int(board.battle["moves_by_group_size"][str(size)])
    forbidden = set(battle["forbidden"])
    barred = group["fought"] >= battle["round"] - 1

    if occupied is None:
        occupied = occupants(battle)
    other_side = "d" if side == "a" else "a"
    refused = {tuple(r) for r in battle.get("refused", ())}
    city = s["city"]
    on_building = "end" if side == "a" else "stop"

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
                ok = len(own) == 1 and join_kind(s, group, own[0]) is not None and not barred
                return "end" if ok and (gid, key) not in refused else "no"
        cell = city.get(key)
        if cell and cell["b"]:
            return on_building
        return None

    # the kinds a group may pass through: defenders pass buildings (RIO-BATTLE-23)
    through: tuple[str | None, ...] = (None, "stop") if side == "d" else (None,)
    kinds: dict[str, Any] = {}
    found: set[str] = set()
    frontier: list[tuple[str, int]] = []
    at = group["at"]
    if at is None:  # RIO-RL-39: the first step is into the cell behind the edge
        first = ckey(board.edge_cell[epair(group["edge"])])
        kind = kinds[first] = stop_kind(first)
        if kind == "no":
            return []
        found.add(first)
        if kind in through:
            frontier = [(first, allowance - 1)]
    else:
        frontier = [(at, allowance)]
    seen = {f[0]: f[1] for f in frontier}
    rook = board.rook_keys
    while frontier:
        key, left = frontier.pop()
        if left <= 0:
            continue
        left -= 1
        for nk in rook[key]:
            kind = kinds.get(nk, _UNKNOWN)
            if kind is _UNKNOWN:
                kind = kinds[nk] = stop_kind(nk)
            if kind == "no" or nk == at:
                continue
            found.add(nk)
            if kind in through and seen.get(nk, -1) < left:
                seen[nk] = left
                frontier.append((nk, left))
    found.discard(at or "")
    return sorted(found)


def join_kind(s: State, group: dict[str, Any], other: dict[str, Any]) -> str | None:
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


def arrive(s: State, gid: str, key: str) -> bool:
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
