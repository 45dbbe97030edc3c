"""The three manoeuvres, each a procedure of single commands (RIO-RL-69):

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

Every ``move`` is applied here: onto a group of its own side it opens a join, otherwise the group
steps (:func:`games.rio_de_la_plata.battle.fighting.arrive`) and may have a bonus move open.
"""

from __future__ import annotations

from typing import Any

from games.rio_de_la_plata.battle.fighting import arrive, join_kind
from games.rio_de_la_plata.battle.groups import ATT, Event, battle_of, commander, group_at, occupants
from games.rio_de_la_plata.config import BONUS_AFTER_FIGHTING, revision
from games.rio_de_la_plata.queries import ckey
from games.rio_de_la_plata.state import State


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
            "kind": join_kind(s, group, f),
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
    fought = arrive(s, gid, key)
    if gid in battle["groups"]:
        # RIO-BATTLE-28 gives "any group" its bonus move, so a group that fought earlier in this
        # battle round still has one after a normal step; a step that is itself a combat ends the
        # move where it took place (RIO-RL-40), bonus step included.
        if revision(s["config"]) < BONUS_AFTER_FIGHTING:
            fought = group["fought"] == battle["round"]
        group["can_bonus"] = not fought and not group.get("bonused")


def joined_people(s: State, ask: dict[str, Any]) -> list[int]:
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
    colours = set(joined_people(s, ask))
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


def bonus_steps(
    s: State, gid: str, occupied: dict[str, dict[str, list[dict[str, Any]]]] | None = None
) -> list[str]:
    """The one extra cell (RIO-BATTLE-28): an orthogonal neighbour, not forbidden, and not a cell
    holding a group of its own side (engine ruling: a bonus step does not merge or regroup).
    ``occupied``: ``occupants(battle)`` when the caller has it."""
    battle = battle_of(s)
    group = battle["groups"][gid]
    if group["at"] is None:
        return []
    forbidden = set(battle["forbidden"])
    if occupied is None:
        occupied = occupants(battle)
    out = []
    for key in s.board.rook_keys[group["at"]]:
        if key in forbidden or occupied.get(key, {}).get(group["side"]):
            continue
        out.append(key)
    return sorted(out)


def bonus_open(
    s: State, gid: str, occupied: dict[str, dict[str, list[dict[str, Any]]]] | None = None
) -> bool:
    battle = battle_of(s)
    group = battle["groups"][gid]
    return bool(
        group.get("can_bonus")
        and not group.get("bonused")
        and len(bonus_victims(s, gid)) >= len(group["stack"])
        and bonus_steps(s, gid, occupied)
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
    arrive(s, e["group"], ckey(e["to"]))


MANOEUVRE_HANDLERS = {
    "moved": _moved,
    "across_chosen": _across_chosen,
    "commander_chosen": _commander_chosen,
    "consented": _consented,
    "bonus_started": _bonus_started,
    "sacrificed": _sacrificed,
    "bonus_stepped": _bonus_stepped,
}
