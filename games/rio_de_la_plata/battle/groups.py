"""Who is who in a battle and where its groups are: the queries every stage of the battle asks
(section 16; the battle's state is described in :mod:`games.rio_de_la_plata.battle`)."""

from __future__ import annotations

from typing import Any

from games.rio_de_la_plata.queries import active
from games.rio_de_la_plata.state import State

Event = dict[str, Any]
ATT = -1  # an attacker in a stack: attackers belong to no seat


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


def movers(s: State) -> list[int]:
    battle = battle_of(s)
    return [battle["attacker"]] + defenders(s)


def commander(group: dict[str, Any]) -> int:
    return group["stack"][0]


def group_at(battle: dict[str, Any], key: str, side: str | None = None) -> tuple[str, dict] | None:
    for gid, g in battle["groups"].items():
        if g["at"] == key and (side is None or g["side"] == side):
            return gid, g
    return None


def occupants(battle: dict[str, Any]) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Cell -> side -> the groups there (two of a side only after a 2+2 regrouping, RIO-RL-38)."""
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for g in battle["groups"].values():
        if g["at"] is not None:
            out.setdefault(g["at"], {}).setdefault(g["side"], []).append(g)
    return out
