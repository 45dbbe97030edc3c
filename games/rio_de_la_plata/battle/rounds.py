"""The battle rounds' turns (RIO-BATTLE-38, RIO-RL-49): who moves next, and when the fighting ends
because no attacker is left or the rounds went by without combat."""

from __future__ import annotations

from games.rio_de_la_plata.battle.groups import battle_of, movers
from games.rio_de_la_plata.state import State


def _has_groups(s: State, seat: int) -> bool:
    battle = battle_of(s)
    side = "a" if seat == battle["attacker"] else "d"
    return any(
        g["side"] == side and (side == "a" or g["stack"][0] == seat) for g in battle["groups"].values()
    )


def start_round(s: State) -> None:
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
    skip_idle_movers(s)


def skip_idle_movers(s: State) -> None:
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
    start_round(s)
