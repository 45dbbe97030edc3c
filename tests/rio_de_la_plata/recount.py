"""An independent recount of every player's VP from a Rio de la Plata log, for the property tests.

It folds the events with the engine's ``evolve`` only to know the position before each event (who
stands on which grid space, what stands on a cell, the battle's groups), and applies the scoring
rules itself, from the rule text and the board's data: none of the engine's scoring functions is
called. If the engine scores anything the rules do not say, or misses something, the totals differ.
"""

from __future__ import annotations

from typing import Any

from games.rio_de_la_plata.rules import evolve

GOODS = ("stone", "wood", "luxury")


def _cell(key_or_list: Any) -> str:
    return key_or_list if isinstance(key_or_list, str) else f"{key_or_list[0]},{key_or_list[1]}"


def _xy(key: str) -> tuple[int, int]:
    x, y = key.split(",")
    return int(x), int(y)


def _has_active(s: dict, name: str, seat: int | None) -> bool:
    ch = s["chars"][name]
    # RIO-CHAR-5: from phase B of the year ``from`` on
    if seat is None or ch["owner"] != seat:
        return False
    return s["year"] > ch["from"] or (s["year"] == ch["from"] and s["step"] not in ("setup", "A"))


def _holder(s: dict, name: str, exclude: int | None = None) -> int | None:
    owner = s["chars"][name]["owner"]
    return owner if owner is not None and owner != exclude and _has_active(s, name, owner) else None


def _standing(s: dict, building: str) -> bool:
    return any(c["b"] == building for c in s["city"].values())


class Recount:
    def __init__(self, players: int):
        self.vp = [0] * players

    def add(self, seat: int, amount: int) -> None:
        self.vp[seat] = max(0, self.vp[seat] + amount)  # RIO-RL-2: never below 0

    # -- the battle ------------------------------------------------------------------------------
    def _combat(self, s: dict, key: str, attackers: int, defenders: list[int]) -> tuple[int, int]:
        """RIO-BATTLE-30, RIO-BATTLE-31, RIO-BATTLE-35, RIO-BATTLE-36: (attackers lost, defenders
        lost) and the defenders' VP."""
        board = s.board
        battle = s["battle"]
        sup_a = bool(board.enemies[battle["enemy"]]["superiority"])
        district = board.district.get(_xy(key))
        sup_d = district is not None and any(
            c["b"] == "barracks" and board.district.get(_xy(k)) == district for k, c in s["city"].items()
        )
        if attackers > len(defenders):
            lost_a, lost_d = 0, len(defenders)
        elif len(defenders) > attackers:
            lost_a, lost_d = attackers, 0
        else:
            lost_a = attackers - (1 if sup_a and not sup_d else 0)
            lost_d = len(defenders) - (1 if sup_d and not sup_a else 0)
        for seat in set(defenders):  # 2 VP per attacker destroyed, shared by people, rounded
            share = 2 * lost_a * defenders.count(seat) / len(defenders)
            self.add(seat, int(share + 0.5))
        captain = _holder(s, "captain", exclude=battle["attacker"])
        if captain is not None and captain in defenders:
            self.add(captain, lost_a)
        for seat in defenders[:lost_d]:  # losses from the top, 2 VP each to the owner
            self.add(seat, 2)
        return lost_a, lost_d

    def _arrive(self, s: dict, gid: str, key: str) -> None:
        battle = s["battle"]
        group = battle["groups"][gid]
        side = group["side"]
        here = [(i, g) for i, g in battle["groups"].items() if g["at"] == key and i != gid]
        if any(g["side"] == side for _, g in here):
            return  # a merge or a regrouping: no combat
        own = len(group["stack"])
        mine = list(group["stack"])
        for enemy in sorted((g for _, g in here), key=lambda g: -len(g["stack"])):  # the larger first
            if own == 0:
                break
            if side == "a":
                lost_a, _ = self._combat(s, key, own, list(enemy["stack"]))
                own -= lost_a
            else:
                _, lost_d = self._combat(s, key, len(enemy["stack"]), mine)
                mine = mine[lost_d:]
                own -= lost_d
        cell = s["city"].get(key)
        if side == "a" and own > 0 and cell and cell["b"]:  # RIO-BATTLE-34
            b = cell["b"]
            vp = {"hut": 2, "house": 4, "palace": 12, "cathedral": 12}.get(b, 6)
            self.add(battle["attacker"], vp)

    # -- the end ---------------------------------------------------------------------------------
    def _final(self, s: dict) -> None:
        """RIO-END-3 .. RIO-END-6, RIO-CHAR-7 (end of game), RIO-RL-24 .. RIO-RL-26."""
        board = s.board
        roads = [e for e in s["roads"]] + [f"{a[0]},{a[1]}-{b[0]},{b[1]}" for a, b in board.printed_roads]
        links: dict[str, set[str]] = {}
        for edge in roads:
            a, b = edge.split("-")
            links.setdefault(a, set()).add(b)
            links.setdefault(b, set()).add(a)
        todo = [f"{x},{y}" for x, y in board.plaza_vertices]
        reached: set[str] = set()
        while todo:
            v = todo.pop()
            if v in reached or v not in links:
                continue
            reached.add(v)
            todo += links[v]
        connected = {
            d for d, vertices in board.centre_vertices.items() if {f"{x},{y}" for x, y in vertices} & reached
        }
        count: dict[str, dict[str, int]] = {d: {} for d in board.districts}
        for key, cell in s["city"].items():
            if cell["b"]:
                d = board.district[_xy(key)]
                count[d][cell["b"]] = count[d].get(cell["b"], 0) + 1
        value = {}
        for d, c in count.items():
            production = sum(c.get(b, 0) for b in ("market", "company", "carpenter", "quarry"))
            v = 2 - max(0, production - 1)
            v += sum(1 for b in ("garden", "statue", "church", "barracks") if c.get(b))
            v += (d in connected) + 2 * bool(c.get("cathedral")) + 3 * bool(c.get("palace"))
            value[d] = v
        walls = set(s["walls"]) | {f"{a[0]},{a[1]}-{b[0]},{b[1]}" for a, b in board.printed_walls}
        closed = {f"{a[0]},{a[1]}-{b[0]},{b[1]}" for a, b in board.closed_edges}
        walled = 0
        for d in board.districts:
            outer = [
                f"{a[0]},{a[1]}-{b[0]},{b[1]}"
                for (a, b), c in board.edge_cell.items()
                if board.district.get(c) == d
            ]
            walled += bool(outer) and all(e in walls or e in closed for e in outer)
        churches = sum(1 for c in s["city"].values() if c["b"] == "church")
        majors = sum(_standing(s, b) for b in ("palace", "cathedral")) + s["fort"] + s["ship"]["in_play"]
        noble = sum(
            1
            for d in board.districts
            if sum(count[d].get(b, 0) for b in ("garden", "square", "statue", "barracks", "church")) >= 4
        )
        end_vp = {
            "master_quarryman": 5,
            "master_carpenter": 5,
            "master_craftsman": 8,
            "merchant": 12,
            "road_builder": 2 * len(connected),
            "protector": 3 * walled,
            "bishop": 4 * churches + 4 * _standing(s, "cathedral"),
            "architect": 7 * majors,
            "governor": 12 + 6 * noble,
        }
        for seat in range(s["n"]):
            total = s["p"][seat]["silver"] // 3
            total += sum(v for name, v in end_vp.items() if s["chars"][name]["owner"] == seat)
            total += sum(
                max(0, value[board.district[_xy(k)]])
                for k, c in s["city"].items()
                if c["b"] == "house" and c["own"] == seat
            )
            self.add(seat, total)

    # -- one event -------------------------------------------------------------------------------
    def event(self, s: dict | None, e: dict[str, Any], after: dict) -> None:
        kind = e["type"]
        if s is None:
            return
        board = s.board
        seat = e.get("seat")
        if kind == "building_completed":  # RIO-MAJOR-6, RIO-MAJOR-7
            grid = board.majors[e["building"]].grids[e["grid"]]
            for i, who in enumerate(s["major"][e["building"]]["grids"][e["grid"]]):
                if who is not None:
                    self.add(who, grid.spaces[i][0])
            self.add(e["completer"], {"fort": 4, "port": 2}.get(e["building"], 0))
        elif kind == "built":  # RIO-BUILD-10, RIO-RL-15: the board's VP for the noble buildings
            self.add(seat, board.minors[e["building"]].vp)
        elif kind == "used":  # RIO-USE-5: a church use pays 2 VP, 3 while the cathedral stands
            if s["city"][_cell(e["cell"])]["b"] == "church":
                self.add(seat, 3 if _standing(s, "cathedral") else 2)
        elif kind in ("claimed", "turn_ended"):  # RIO-CHAR-4: 5 VP penalty when it fails
            names = [e["character"]] if kind == "claimed" else []
            if kind == "turn_ended" and s["step"] == "B":
                names = sorted(n for n, who in s["spots"].items() if who == seat)
            for name in names:
                if after["chars"][name]["owner"] != seat:
                    self.add(seat, -5)
        elif kind == "ship_returned":  # RIO-SHIP-9, RIO-RL-20 (cumulative), RIO-SHIP-10, RIO-RL-21
            for who, hold in enumerate(s["ship"]["hold"]):
                stone, wood, luxury = hold
                self.add(who, stone + wood + 2 * luxury + 4 * sum(n // 3 for n in hold))
            owner = _holder(s, "shipowner")
            if owner is not None and s["ship"]["full"]:
                self.add(owner, 3)
        elif kind == "attacker_removed":  # RIO-BATTLE-11
            firer = s["battle"]["firer"]
            if _holder(s, "artillerist", exclude=s["battle"]["attacker"]) == firer:
                self.add(firer, 2)
        elif kind in ("moved", "bonus_stepped"):
            self._arrive(s, e["group"], _cell(e["to"]))
        elif kind == "game_ended":
            self._final(s)


def recount_vp(log: list[dict[str, Any]]) -> list[int]:
    state = None
    recount: Recount | None = None
    for event in log:
        after = evolve(state, event)
        if recount is None:
            recount = Recount(after["n"])
        recount.event(state, event, after)
        state = after
    assert recount is not None
    return recount.vp
