"""The end of a battle (RIO-BATTLE-39, RIO-BATTLE-40, RIO-RL-51, RIO-RL-65, RIO-RL-71, RIO-WAR-3):
the groups go back onto the city or home, each player withdraws people, the people on cells they may
not stay on go home, and the enemy marker retreats."""

from __future__ import annotations

from games.rio_de_la_plata.battle.groups import Event, battle_of
from games.rio_de_la_plata.config import RL_71, revision
from games.rio_de_la_plata.events import GAME_END, ROUND_END
from games.rio_de_la_plata.queries import cell_limit, cell_of, ckey, cpair, put_cell
from games.rio_de_la_plata.state import State


def retreat_index(s: State, enemy: str) -> int:
    """RIO-WAR-3, RIO-RL-30."""
    index = s["enemy"][enemy] - s.board.retreat
    return index if index >= 0 else s.board.enemies[enemy]["reset"]


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


CLOSING_HANDLERS = {
    "fighting_ended": _fighting_ended,
    "withdrew": _withdrew,
    "battle_ended": _battle_ended,
}
