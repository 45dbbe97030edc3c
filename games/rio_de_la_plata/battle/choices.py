"""Whom a battle awaits and what he may do (RIO-RL-53, RIO-RL-69, RIO-RL-70): the legal moves of
each stage, and the event a battle command becomes."""

from __future__ import annotations

from typing import Any

from games.rio_de_la_plata.battle.fighting import destinations
from games.rio_de_la_plata.battle.groups import Event, battle_of, defenders, movers, occupants
from games.rio_de_la_plata.battle.manoeuvres import bonus_open, bonus_steps, bonus_victims, joined_people
from games.rio_de_la_plata.battle.opening import defend_cells, recruit_price
from games.rio_de_la_plata.events import ev
from games.rio_de_la_plata.queries import cpair, ekey, epair, walls
from games.rio_de_la_plata.state import State


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
        colours = sorted(set(joined_people(s, ask)))
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
    occupied = occupants(battle)
    for gid, g in sorted(battle["groups"].items(), key=lambda item: int(item[0])):
        if g["side"] != side or (side == "d" and g["stack"][0] != seat):
            continue
        if not g["moved"]:
            to = destinations(s, gid, occupied)
            moves += [{"type": "move", "group": gid, "to": list(cpair(k))} for k in to]
        if bonus_open(s, gid, occupied):
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
