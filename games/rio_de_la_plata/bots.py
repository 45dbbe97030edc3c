"""Bots for Rio de la Plata, playing from a seat's view (``legal_moves`` included), never the hidden
state (there is none but the seed). ``BOTS`` is found by the ``bots`` registry.

The heuristic bot scores every legal move with a few rules of thumb and plays the best (ties broken
by its random generator). It leaves the characters alone: their costs are board data the view does
not carry, and a random player who claims one he cannot pay for loses 5 VP. It fills major buildings
for their VP, pairs people on free cells to build huts and turns its huts into houses, uses buildings
and the ship, and in a battle attacks the nearest buildings and fires the cannons at the number of
attackers that maximises the expected hits. It never proposes a trade, and accepts an offer only
when what it receives is worth more than what it gives (``WORTH``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

Command = dict[str, Any]


def _cell(value: Any) -> str:
    return f"{value[0]},{value[1]}"


def _two_dice_at_least(target: int) -> float:
    hits = sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= target)
    return hits / 36


#: rough worth of one unit of each tradable thing, in silver, for judging a trade offer
WORTH = {"silver": 1.0, "stone": 1.5, "wood": 1.5, "luxury": 2.5}


def _worth(items: Mapping[str, int]) -> float:
    return sum(WORTH.get(item, 5.0) * count for item, count in items.items())


class HeuristicBot:
    level = "heuristic"

    def choose(self, view: Mapping[str, Any], rng: random.Random) -> Command:
        moves = list(view.get("legal_moves") or [])
        if not moves:
            raise ValueError("the view offers no legal move")
        seat = view["seat"]
        scored = [(self.score(view, seat, move), rng.random(), i) for i, move in enumerate(moves)]
        return dict(moves[max(scored)[2]])

    def score(self, v: Mapping[str, Any], seat: int, m: Mapping[str, Any]) -> float:
        kind = m["type"]
        me = v["p"][seat]
        city = v["city"]
        if kind == "place":
            return self._placement(v, seat, me, city, m)
        if kind == "build":
            b = m["building"]
            return {"house": 30, "hut": 20}.get(b, 12 if b in ("church", "square", "statue", "garden") else 6)
        if kind == "use":
            cell = city.get(_cell(m["cell"]), {})
            return 9 if cell.get("b") == "church" else 5 + m.get("choice", 0) * 0.1
        if kind in ("collect", "claim"):
            return 5
        if kind == "load":
            return 8 + (1 if m["good"] == "luxury" else 0)
        if kind == "craft":
            return 3 if m["give"] is not None else 0
        if kind in ("launch", "buy"):
            return -10
        if kind in ("offer_open", "offer_add", "offer_send"):
            return -50  # it never proposes: a proposal that lapses is a wasted command
        if kind == "offer_accept":  # an offer it gains by (a random player's gift, say)
            offer = v["offer"]
            return 50 if _worth(offer["give"]) > _worth(offer["get"]) else -50
        if kind == "offer_decline":
            return 0
        if kind == "fire":
            # The battle is phase C: a character works in it from the year after it came (RIO-CHAR-5).
            gunner = v["chars"]["artillerist"]
            bonus = 1 if gunner["owner"] == seat and v["year"] >= gunner["from"] else 0
            return m["k"] * _two_dice_at_least(m["k"] + 6 - bonus)
        if kind == "place_attacker":
            return -self._distance_to_building(v, m["edge"])
        if kind == "move":
            return self._battle_move(v, seat, m)
        if kind == "defend":
            return 2
        if kind == "withdraw":
            return -1
        if kind == "consent":
            return 1 if m["accept"] else 0
        if kind == "choose_commander":
            return 1 if m["commander"] == seat else 0
        if kind == "bonus":
            return -5  # a bonus move costs as many groups as the group has people
        if kind == "bonus_step" and seat == v["battle"]["attacker"]:
            return self._battle_move(v, seat, m)
        if kind == "split":
            return m["size"] == 1
        if kind == "pass":
            return 1 if v["battle"] and v["battle"]["stage"] == "move" else 0
        return 0

    def _placement(self, v: Any, seat: int, me: Any, city: Any, m: Mapping[str, Any]) -> float:
        space = m["space"]
        left = 5 - me["placed"]
        if space == "major":
            return 10 + m["index"] * -0.1
        if space in ("mine", "forest"):
            good = "stone" if space == "mine" else "wood"
            return 7 if me[good] < 3 else 2
        if space == "field":
            return 4 if me["silver"] < 5 else 1
        if space == "character":
            return -100
        if space == "dock":
            return 6 if me["stone"] + me["wood"] + me["luxury"] >= 3 else -5
        if space in ("order", "craftsmen"):
            return -3
        cell = city.get(_cell(m["cell"]))
        if m.get("displace"):
            return -2
        if cell is None:
            return 8 if left >= 2 else -1
        mine = cell["ppl"][seat]
        if cell["b"] is None:
            return 9 if mine == 1 else -2
        if cell["b"] == "hut" and cell["own"] == seat:
            return 11 if me["stone"] >= 1 and me["wood"] >= 1 and mine == 0 else -2
        if cell["b"] in ("church", "market", "company", "quarry", "carpenter"):
            return 3
        return -1

    def _distance_to_building(self, v: Any, edge: str) -> float:
        left, right = edge.split("-")
        x1, y1 = map(int, left.split(","))
        x2, y2 = map(int, right.split(","))
        ex, ey = (x1 + x2) / 2, (y1 + y2) / 2
        best = 99.0
        for key, cell in v["city"].items():
            if cell["b"]:
                x, y = map(int, key.split(","))
                best = min(best, abs(x + 0.5 - ex) + abs(y + 0.5 - ey))
        return best

    def _battle_move(self, v: Any, seat: int, m: Mapping[str, Any]) -> float:
        battle = v["battle"]
        target = _cell(m["to"])
        if seat != battle["attacker"]:
            return 0
        cell = v["city"].get(target)
        if cell and cell["b"]:
            return 20
        tx, ty = m["to"]
        best = 99
        for key, other in v["city"].items():
            if other["b"]:
                x, y = map(int, key.split(","))
                best = min(best, abs(x - tx) + abs(y - ty))
        return 10 - best


HEURISTIC = HeuristicBot()
BOTS = {"heuristic": HEURISTIC}
