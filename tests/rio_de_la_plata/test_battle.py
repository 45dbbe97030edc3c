"""The battle of section 16 as single commands (RIO-RL-51 .. RIO-RL-70), on constructed positions."""

from __future__ import annotations

from games.rio_de_la_plata import GAME
from games.rio_de_la_plata.battle.closing import retreat_index
from games.rio_de_la_plata.battle.fighting import _share, destinations
from games.rio_de_la_plata.rules import ev, evolve, next_automatic

from .helpers import new_game, play, rule_moves, set_cell

ATTACKER, YELLOW, GREEN = 0, 1, 2


def base(enemy: str = "natives"):
    state, _ = new_game(3, seed=2)
    state = state.copy()
    state["order"] = [ATTACKER, YELLOW, GREEN]
    state["p"][ATTACKER]["vp"] = 10
    state["p"][ATTACKER]["vp_by"] = {"buildings": 10}
    return state


def started(state, enemy: str = "natives"):
    state = state.copy()
    state["step"] = "battle"
    state["battle"] = {"enemy": enemy, "stage": "start"}
    event = next_automatic(state)
    assert event["type"] == "battle_started"
    return evolve(state, event), event


def fight(state, groups: dict, enemy: str = "natives", round_: int = 1):
    """A battle in its move stage with the given groups (id -> (side, stack, cell or edge))."""
    state = state.copy()
    state["step"] = "battle"
    built = {}
    for gid, (side, stack, where) in groups.items():
        outside = "-" in where
        built[gid] = {
            "side": side,
            "stack": stack,
            "at": None if outside else where,
            "edge": where if outside else None,
            "moved": False,
            "fought": -9,
        }
    state["battle"] = {
        "enemy": enemy,
        "stage": "move",
        "attacker": ATTACKER,
        "to_place": 0,
        "stacks": {},
        "groups": built,
        "next_id": 100,
        "forbidden": [],
        "firer": None,
        "k": 0,
        "di": 0,
        "free_left": 0,
        "recruited": 0,
        "mover": 0,
        "round": round_,
        "quiet": 0,
        "combat": False,
        "withdrawer": 0,
    }
    for _side, stack, _ in groups.values():
        for seat in stack:
            if seat >= 0:
                state["p"][seat]["supply"] -= 1
    return state


def test_battle_1_battle_2_battle_5_roles_and_attack_mark():
    """RIO-BATTLE-1, RIO-BATTLE-2, RIO-BATTLE-5, RIO-WAR-4: the player with most VP leads the purple
    attackers and gets an attack mark; the others defend; the first step is placing attackers."""
    state, event = started(base())
    assert event["attacker"] == ATTACKER and state["p"][ATTACKER]["mark"]
    assert state["battle"]["stage"] == "place"
    assert GAME.awaiting(state) == [ATTACKER]
    assert event["attackers"] == 0 + 2 * 2 + 0  # P + 2D + max(0, B - r) with the natives on space 1


def test_battle_8_wall_1_rl_69_entry_edges_without_walls():
    """RIO-BATTLE-8, RIO-WALL-1, RIO-RL-69: attackers go on outer edges without a wall, one at a time;
    all attackers on one edge form one stack."""
    state, _ = started(base())
    edges = {m["edge"] for m in rule_moves(state, ATTACKER)}
    assert len(edges) == len(state.board.wall_slots)
    state = state.copy()
    state["walls"] = ["0,0-1,0"]
    edges = {m["edge"] for m in rule_moves(state, ATTACKER)}
    assert "0,0-1,0" not in edges and len(edges) == len(state.board.wall_slots) - 1
    for _ in range(2):
        state = play(state, ATTACKER, {"type": "place_attacker", "edge": "1,0-2,0"})
    assert state["battle"]["stacks"] == {"1,0-2,0": 2}


def test_battle_3_rl_52_rl_35_attacker_people_forbid_their_cells():
    """RIO-BATTLE-3, RIO-RL-52, RIO-RL-35, RIO-BATTLE-6: the attacker's people's cells are forbidden and
    not counted; defenders' people elsewhere count in P and form groups (RIO-BATTLE-16,
    RIO-BATTLE-17, RIO-RL-38)."""
    state = base()
    set_cell(state, (2, 2), ppl=[2, 0, 0])
    set_cell(state, (4, 2), ppl=[0, 2, 0])
    set_cell(state, (6, 2), ppl=[0, 0, 1])
    state, event = started(state)
    assert event["people"] == 3 and event["attackers"] == 3 + 4
    battle = state["battle"]
    assert battle["forbidden"] == ["2,2"]
    stacks = sorted((g["at"], g["stack"]) for g in battle["groups"].values())
    assert stacks == [("4,2", [YELLOW, YELLOW]), ("6,2", [GREEN])]


def test_battle_9_battle_10_battle_11_ex_9_rl_36_cannons():
    """RIO-BATTLE-9, RIO-BATTLE-10, RIO-BATTLE-11, RIO-EX-9, RIO-RL-36, RIO-RL-69: with the fort built
    the Artillerist names 3, rolls 8 + 1 = 9 >= 3 + 6, removes 3 attackers one at a time, 6 VP."""
    state = base()
    state["fort"] = True
    state["chars"]["artillerist"] = {"owner": GREEN, "from": 1500}
    state, _ = started(state)
    for _ in range(4):
        state = play(state, ATTACKER, {"type": "place_attacker", "edge": "1,0-2,0"})
    assert state["battle"]["stage"] == "cannon" and GAME.awaiting(state) == [GREEN]
    assert [m["k"] for m in rule_moves(state, GREEN)] == [1, 2, 3, 4]
    state = evolve(state, ev("fired", seat=GREEN, k=3))
    state = evolve(state, ev("dice_rolled", purpose="cannon", dice=[4, 4]))
    assert state["battle"]["stage"] == "cannon_remove"
    for _ in range(3):
        state = play(state, GREEN, {"type": "remove_attacker", "edge": "1,0-2,0"})
    assert state["battle"]["stacks"] == {"1,0-2,0": 1}
    assert state["p"][GREEN]["vp"] == 6
    # Without the Artillerist the defender with the fewest VP fires and scores nothing; 8 < 9 misses.
    state = base()
    state["fort"] = True
    state["p"][YELLOW]["vp"] = 5
    state, _ = started(state)
    for _ in range(4):
        state = play(state, ATTACKER, {"type": "place_attacker", "edge": "1,0-2,0"})
    assert GAME.awaiting(state) == [GREEN]
    state = evolve(state, ev("fired", seat=GREEN, k=3))
    state = evolve(state, ev("dice_rolled", purpose="cannon", dice=[4, 4]))
    assert state["battle"]["stage"] == "defend"


def test_battle_12_battle_13_battle_15_rl_37_rl_70_defenders():
    """RIO-BATTLE-12, RIO-BATTLE-13, RIO-BATTLE-15, RIO-RL-37, RIO-RL-70: each defender in turn order
    places up to 2 free people on his own huts and houses or any barracks, then recruits at 1, 2, 3
    silver, at most 3 per cell, one colour per cell, then passes."""
    state = base()
    set_cell(state, (4, 2), b="hut", own=YELLOW, pool="hut/house")
    set_cell(state, (5, 2), b="barracks", pool="church/barracks")
    set_cell(state, (6, 2), b="house", own=GREEN, pool="hut/house")
    state["p"][YELLOW]["silver"] = 10
    state, _ = started(state)
    for _ in range(4):
        state = play(state, ATTACKER, {"type": "place_attacker", "edge": "1,0-2,0"})
    assert state["battle"]["stage"] == "defend" and GAME.awaiting(state) == [YELLOW]
    cells = [m["cell"] for m in rule_moves(state, YELLOW) if m["type"] == "defend"]
    assert cells == [[4, 2], [5, 2]]
    for _ in range(3):
        state = play(state, YELLOW, {"type": "defend", "cell": [4, 2]})
    assert state["p"][YELLOW]["silver"] == 9  # two free, the first recruit 1 silver
    assert [m["cell"] for m in rule_moves(state, YELLOW) if m["type"] == "defend"] == [[5, 2]]
    state = play(state, YELLOW, {"type": "defend", "cell": [5, 2]})
    assert state["p"][YELLOW]["silver"] == 7
    state = play(state, YELLOW, {"type": "pass"})
    assert GAME.awaiting(state) == [GREEN]
    cells = [m["cell"] for m in rule_moves(state, GREEN) if m["type"] == "defend"]
    assert cells == [[6, 2]]  # the barracks holds yellow: one colour per cell


def test_battle_14_rl_67_rl_58_captain_defenders_anywhere():
    """RIO-BATTLE-14, RIO-RL-67, RIO-RL-58, RIO-BATTLE-4: the active Captain places 1 more free person
    and on any minor building; the attacker's Captain counts as unheld."""
    state = base()
    set_cell(state, (4, 2), b="quarry", pool="quarry/carpenter")
    state["chars"]["captain"] = {"owner": YELLOW, "from": 1500}
    state, _ = started(state)
    for _ in range(4):
        state = play(state, ATTACKER, {"type": "place_attacker", "edge": "1,0-2,0"})
    assert state["battle"]["free_left"] == 3
    assert [m["cell"] for m in rule_moves(state, YELLOW) if m["type"] == "defend"] == [[4, 2]]
    state = base()
    set_cell(state, (4, 2), b="quarry", pool="quarry/carpenter")
    state["chars"]["captain"] = {"owner": YELLOW, "from": 1581}  # acquired this year: not yet
    state, _ = started(state)
    for _ in range(4):
        state = play(state, ATTACKER, {"type": "place_attacker", "edge": "1,0-2,0"})
    assert state["battle"]["free_left"] == 2


def test_battle_21_ex_10_rl_69_split_stacks():
    """RIO-BATTLE-21, RIO-EX-10, RIO-RL-69: in the first battle round the attacker takes groups of 1,
    2 or 3 off each stack (4 -> 2 + 1 + 1, 2 -> 1 + 1) before moving."""
    state, _ = started(base())
    state["battle"]["to_place"] = 8
    for edge, count in (("1,0-2,0", 4), ("3,0-4,0", 2), ("5,0-6,0", 1), ("7,0-8,0", 1)):
        for _ in range(count):
            state = play(state, ATTACKER, {"type": "place_attacker", "edge": edge})
    state = play(state, YELLOW, {"type": "pass"})
    state = play(state, GREEN, {"type": "pass"})
    assert state["battle"]["stage"] == "split"
    sizes = {m["size"] for m in rule_moves(state, ATTACKER) if m["edge"] == "1,0-2,0"}
    assert sizes == {1, 2, 3}
    for edge, size in (("1,0-2,0", 2), ("1,0-2,0", 1), ("1,0-2,0", 1), ("3,0-4,0", 1), ("3,0-4,0", 1)):
        state = play(state, ATTACKER, {"type": "split", "edge": edge, "size": size})
    for edge in ("5,0-6,0", "7,0-8,0"):
        state = play(state, ATTACKER, {"type": "split", "edge": edge, "size": 1})
    assert state["battle"]["stage"] == "move"
    sizes = sorted(len(g["stack"]) for g in state["battle"]["groups"].values())
    assert sizes == [1, 1, 1, 1, 1, 1, 2]


def test_battle_22_battle_23_rl_39_rl_50_rl_53_movement():
    """RIO-BATTLE-22, RIO-BATTLE-23, RIO-RL-39, RIO-RL-50, RIO-RL-53: a single moves up to 3 cells, a
    pair 2, a trio 1, orthogonally; from outside the first step is into the cell behind the edge;
    Plaza Mayor cells may be crossed and stopped on."""
    state = fight(
        base(),
        {
            "1": ("a", [-1], "0,0-1,0"),
            "2": ("a", [-1, -1], "0,0-0,1"),
            "3": ("a", [-1, -1, -1], "7,10-8,10"),
            "4": ("d", [YELLOW], "6,4"),
        },
    )
    single = set(destinations(state, "1"))
    assert "0,0" in single and "0,2" in single and "2,0" in single and "1,2" not in single
    assert set(destinations(state, "2")) == {"0,0", "1,0", "0,1"}
    assert destinations(state, "3") == ["7,9"]
    plaza = set(destinations(state, "4"))
    assert {"7,4", "8,4", "7,5", "9,4"} <= plaza and "10,4" not in plaza  # 3 steps across the plaza


def test_battle_24_rl_40_attackers_stop_at_buildings():
    """RIO-BATTLE-24, RIO-RL-40: an attacker group may enter a building's cell only to attack it and
    stops there; a defender group may pass a building's cell."""
    state = base()
    set_cell(state, (1, 0), b="quarry", pool="quarry/carpenter")
    state = fight(state, {"1": ("a", [-1], "0,0-1,0"), "2": ("d", [YELLOW], "0,1")})
    reach = set(destinations(state, "1"))
    assert "1,0" in reach and "2,0" not in reach
    assert "2,0" in set(destinations(state, "2"))


def test_battle_29_battle_30_battle_35_ex_11_pair_against_pair():
    """RIO-BATTLE-29, RIO-BATTLE-30, RIO-BATTLE-31, RIO-BATTLE-35, RIO-EX-11 (1), RIO-BATTLE-41: natives:
    a pair meets a yellow pair, both removed, yellow 8 VP (4 + 4), attacker 0; pirates: one attacker
    survives (superiority), yellow 6."""
    for enemy, yellow_vp, survivors in (("natives", 8, 0), ("pirates", 6, 1)):
        state = fight(base(), {"1": ("a", [-1, -1], "2,1"), "2": ("d", [YELLOW, YELLOW], "2,3")}, enemy)
        supply = state["p"][YELLOW]["supply"]
        state = play(state, ATTACKER, {"type": "move", "group": "1", "to": [2, 3]})
        assert state["p"][YELLOW]["vp"] == yellow_vp and state["p"][ATTACKER]["vp"] == 10
        assert state["p"][YELLOW]["supply"] == supply + 2
        left = [len(g["stack"]) for g in state["battle"]["groups"].values() if g["side"] == "a"]
        assert left == ([survivors] if survivors else [])
        assert state["battle"]["combat"]


def test_battle_32_battle_34_rl_42_rl_45_ex_11_hut_attacked():
    """RIO-BATTLE-32, RIO-BATTLE-34, RIO-RL-42, RIO-RL-45, RIO-EX-11 (2): an attacking pair enters green's
    hut defended by 1 green person, beats him, then must destroy the hut, losing 1 attacker: green 2 VP,
    attacker 2 VP, the hut tile back in green's stock."""
    state = base()
    set_cell(state, (2, 3), b="hut", own=GREEN, pool="hut/house")
    state["p"][GREEN]["huts"] = 12
    state = fight(state, {"1": ("a", [-1, -1], "2,1"), "2": ("d", [GREEN], "2,3")})
    state = play(state, ATTACKER, {"type": "move", "group": "1", "to": [2, 3]})
    assert state["p"][GREEN]["vp"] == 2 and state["p"][ATTACKER]["vp"] == 12
    assert "2,3" not in state["city"] and state["p"][GREEN]["huts"] == 13
    assert [len(g["stack"]) for g in state["battle"]["groups"].values()] == [1]


def test_battle_33_battle_37_ex_11_single_attacker_destroys_a_building():
    """RIO-EX-11 (3), RIO-BATTLE-33, RIO-BATTLE-37, RIO-RL-45, RIO-RL-62: a single attacker enters an
    undefended minor building: he is removed (nobody scores for him), the building destroyed, the
    attacker scores 6, the tile goes back to the bank; the attacker's own hut scores 2 for him."""
    state = base()
    set_cell(state, (2, 3), b="quarry", pool="quarry/carpenter")
    set_cell(state, (4, 3), b="hut", own=ATTACKER, pool="hut/house")
    state["tiles"]["quarry/carpenter"] = 5
    state = fight(state, {"1": ("a", [-1], "2,1"), "2": ("a", [-1], "4,1")})
    state = play(state, ATTACKER, {"type": "move", "group": "1", "to": [2, 3]})
    assert state["p"][ATTACKER]["vp"] == 16 and state["tiles"]["quarry/carpenter"] == 6
    assert sum(state["p"][s]["vp"] for s in (YELLOW, GREEN)) == 0
    state = play(state, ATTACKER, {"type": "move", "group": "2", "to": [4, 3]})
    assert state["p"][ATTACKER]["vp"] == 18
    assert not state["battle"]["groups"]


def test_battle_19_ex_12_shares_round_each():
    """RIO-BATTLE-19, RIO-EX-12: red 2 people and green 1 share 4 VP as 3 and 1."""
    red, green = 1, 2
    assert _share(4, [red, red, green]) == {red: 3, green: 1}
    assert _share(2, [red, green]) == {red: 1, green: 1}


def test_battle_31_rl_43_barracks_gives_defenders_superiority():
    """RIO-BATTLE-31, RIO-RL-43: defenders fighting in a district with a barracks keep one person of an
    even fight against the natives."""
    state = base()
    set_cell(state, (0, 0), b="barracks", pool="church/barracks")
    state = fight(state, {"1": ("a", [-1], "2,1"), "2": ("d", [YELLOW], "2,2")})
    state = play(state, ATTACKER, {"type": "move", "group": "1", "to": [2, 2]})
    groups = list(state["battle"]["groups"].values())
    assert [(g["side"], g["stack"]) for g in groups] == [("d", [YELLOW])]
    assert state["p"][YELLOW]["vp"] == 2


def test_battle_36_rl_44_captain_bonus():
    """RIO-BATTLE-36, RIO-RL-44: the Captain's holder scores 1 more VP per attacker his group destroys."""
    state = base()
    state["chars"]["captain"] = {"owner": YELLOW, "from": 1500}
    state = fight(state, {"1": ("a", [-1], "2,1"), "2": ("d", [YELLOW, YELLOW], "2,2")})
    state = play(state, ATTACKER, {"type": "move", "group": "1", "to": [2, 2]})
    assert state["p"][YELLOW]["vp"] == 2 + 1


def test_battle_25_battle_26_battle_20_merging_one_colour():
    """RIO-BATTLE-25, RIO-BATTLE-26, RIO-BATTLE-20, RIO-BATTLE-18, RIO-RL-41: a group entering a group of
    its own side merges into one group of at most 3 and both lose their moves; people who fought this
    battle round or the previous one cannot merge."""
    state = fight(
        base(),
        {"1": ("a", [-1], "2,1"), "2": ("d", [YELLOW], "5,5"), "3": ("d", [YELLOW], "5,6")},
    )
    state = play(state, ATTACKER, {"type": "pass"})
    assert {"type": "move", "group": "2", "to": [5, 6]} in rule_moves(state, YELLOW)
    state = play(state, YELLOW, {"type": "move", "group": "2", "to": [5, 6]})
    groups = [g for g in state["battle"]["groups"].values() if g["side"] == "d"]
    assert [g["stack"] for g in groups] == [[YELLOW, YELLOW]] and groups[0]["moved"]
    state = fight(
        base(),
        {"1": ("a", [-1], "2,1"), "2": ("d", [YELLOW], "5,5"), "3": ("d", [YELLOW], "5,6")},
        round_=2,
    )
    state["battle"]["groups"]["3"]["fought"] = 1
    state = play(state, ATTACKER, {"type": "pass"})
    assert "5,6" not in destinations(state, "2")


def test_battle_38_rl_49_three_quiet_rounds_end_the_fight():
    """RIO-BATTLE-38, RIO-RL-49, RIO-BATTLE-39: three battle rounds in a row without combat end the
    battle; the remaining attackers leave."""
    state = fight(base(), {"1": ("a", [-1], "2,1"), "2": ("d", [YELLOW], "9,9")})
    for _ in range(3):
        state = play(state, ATTACKER, {"type": "pass"})
        if state["battle"]["stage"] == "move":
            state = play(state, YELLOW, {"type": "pass"})
    assert state["battle"]["stage"] == "withdraw"
    assert not state["battle"]["groups"]
    assert state["city"]["9,9"]["ppl"][YELLOW] == 1


def test_battle_40_rl_65_rl_51_withdrawal_and_cleanup():
    """RIO-BATTLE-40, RIO-RL-65, RIO-RL-51, RIO-WAR-3, RIO-RL-30: after the fighting each player in turn
    order withdraws people from one cell per command and passes; then people on houses and others'
    huts go home and the enemy marker retreats 4 spaces (or to the left mark)."""
    state = base()
    set_cell(state, (9, 9), b="house", own=YELLOW, pool="hut/house", ppl=[0, 0, 0])
    set_cell(state, (3, 3), ppl=[0, 0, 2])
    state["enemy"]["natives"] = 6
    state = fight(state, {"2": ("d", [YELLOW], "9,9")})
    state["battle"]["stage"] = "over"
    state = evolve(state, next_automatic(state))
    assert GAME.awaiting(state) == [ATTACKER]
    state = play(state, ATTACKER, {"type": "pass"})
    assert {"type": "withdraw", "cell": [9, 9], "count": 1} in rule_moves(state, YELLOW)
    state = play(state, YELLOW, {"type": "pass"})
    state = play(state, GREEN, {"type": "withdraw", "cell": [3, 3], "count": 1})
    state = play(state, GREEN, {"type": "pass"})
    assert state["battle"] is None and state["enemy"]["natives"] == 2
    assert state["city"]["9,9"]["ppl"][YELLOW] == 0 and state["city"]["3,3"]["ppl"][GREEN] == 1
    assert state["p"][YELLOW]["supply"] == 9


def test_war_3_rl_30_retreat_to_the_left_mark():
    """RIO-WAR-3, RIO-RL-30."""
    state = base()
    state["enemy"]["pirates"] = 2
    assert retreat_index(state, "pirates") == state.board.enemies["pirates"]["reset"]
    state["enemy"]["pirates"] = 8
    assert retreat_index(state, "pirates") == 4


def _defender_round(groups):
    """A battle round at yellow's part (the attacker has passed)."""
    state = fight(base(), {"1": ("a", [-1], "2,1"), **groups})
    return play(state, ATTACKER, {"type": "pass"})


def _stacks(state):
    return {gid: (g["stack"], g["at"]) for gid, g in state["battle"]["groups"].items() if g["side"] == "d"}


def test_rl_64_battle_19_battle_25_mixed_merge_names_a_commander_and_needs_consent():
    """RIO-RL-64, RIO-BATTLE-19, RIO-BATTLE-25, RIO-RL-69: a move onto another colour's group is a
    proposal: the mover names the commander (a pending decision), the other player consents, and the
    commander's people go on top. Both groups lose their remaining steps."""
    state = _defender_round({"2": ("d", [YELLOW], "5,5"), "3": ("d", [GREEN], "5,6")})
    state = play(state, YELLOW, {"type": "move", "group": "2", "to": [5, 6]})
    assert GAME.awaiting(state) == [YELLOW]
    assert rule_moves(state, YELLOW) == [
        {"type": "choose_commander", "commander": YELLOW},
        {"type": "choose_commander", "commander": GREEN},
    ]
    state = play(state, YELLOW, {"type": "choose_commander", "commander": GREEN})
    assert GAME.awaiting(state) == [GREEN]
    assert rule_moves(state, GREEN) == [
        {"type": "consent", "accept": True},
        {"type": "consent", "accept": False},
    ]
    state = play(state, GREEN, {"type": "consent", "accept": True})
    assert _stacks(state) == {"3": ([GREEN, YELLOW], "5,6")}
    assert state["battle"]["groups"]["3"]["moved"]
    assert GAME.awaiting(state) == [YELLOW]
    assert not [m for m in rule_moves(state, YELLOW) if m["type"] == "move"]


def test_rl_64_refused_merge_is_not_made_and_the_group_may_move_elsewhere():
    """RIO-RL-64, RIO-BATTLE-19: on a refusal the move is not made, and the group may be given
    another move (the refused one is not offered again this battle round: engine ruling)."""
    state = _defender_round({"2": ("d", [YELLOW], "5,5"), "3": ("d", [GREEN], "5,6")})
    before = _stacks(state)
    state = play(state, YELLOW, {"type": "move", "group": "2", "to": [5, 6]})
    state = play(state, YELLOW, {"type": "choose_commander", "commander": YELLOW})
    state = play(state, GREEN, {"type": "consent", "accept": False})
    assert _stacks(state) == before and not state["battle"]["groups"]["2"]["moved"]
    moves = rule_moves(state, YELLOW)
    assert {"type": "move", "group": "2", "to": [5, 6]} not in moves
    assert {"type": "move", "group": "2", "to": [4, 5]} in moves


def test_battle_27_two_pairs_regroup_into_a_three_and_a_single():
    """RIO-BATTLE-27, RIO-BATTLE-18, RIO-RL-38: two pairs of one colour meeting become a group of 3 and
    a single, both on that cell, and neither may move again this battle round."""
    state = _defender_round({"2": ("d", [YELLOW, YELLOW], "5,5"), "3": ("d", [YELLOW, YELLOW], "5,6")})
    state = play(state, YELLOW, {"type": "move", "group": "2", "to": [5, 6]})
    assert _stacks(state) == {"2": ([YELLOW], "5,6"), "3": ([YELLOW, YELLOW, YELLOW], "5,6")}
    assert all(g["moved"] for g in state["battle"]["groups"].values() if g["side"] == "d")
    assert not [m for m in rule_moves(state, YELLOW) if m["type"] == "move"]
    assert state["p"][YELLOW]["supply"] == base()["p"][YELLOW]["supply"] - 4


def test_battle_27_rl_64_mixed_pair_chooses_who_goes_across():
    """RIO-BATTLE-27, RIO-RL-64: a mixed pair's mover chooses which person goes across, then names the
    commander of the new group of 3, whose other players consent; the stack is the commander's people,
    then the moving group's, then the group already on the cell."""
    state = _defender_round({"2": ("d", [YELLOW, GREEN], "5,5"), "3": ("d", [YELLOW, YELLOW], "5,6")})
    state = play(state, YELLOW, {"type": "move", "group": "2", "to": [5, 6]})
    assert rule_moves(state, YELLOW) == [
        {"type": "choose_across", "person": 0},
        {"type": "choose_across", "person": 1},
    ]
    state = play(state, YELLOW, {"type": "choose_across", "person": 1})
    state = play(state, YELLOW, {"type": "choose_commander", "commander": GREEN})
    state = play(state, GREEN, {"type": "consent", "accept": True})
    assert _stacks(state) == {"2": ([YELLOW], "5,6"), "3": ([GREEN, YELLOW, YELLOW], "5,6")}


def test_battle_28_rl_46_rl_63_attacker_bonus_move_sacrifices_groups():
    """RIO-BATTLE-28, RIO-RL-46, RIO-RL-63, RIO-BATTLE-37: after its move a group of k may sacrifice k
    other groups of its side, anywhere (outside the city too), one at a time, then move 1 extra cell;
    nobody scores for the sacrificed; at most one bonus move per group and battle round."""
    state = fight(
        base(),
        {
            "1": ("a", [-1], "2,1"),
            "5": ("a", [-1], "0,0-1,0"),
            "6": ("a", [-1], "12,8"),
            "2": ("d", [YELLOW], "9,9"),
        },
    )
    assert {"type": "bonus", "group": "1"} not in rule_moves(state, ATTACKER)  # not before moving
    state = play(state, ATTACKER, {"type": "move", "group": "1", "to": [2, 4]})
    state = play(state, ATTACKER, {"type": "bonus", "group": "1"})
    assert rule_moves(state, ATTACKER) == [
        {"type": "sacrifice", "group": "5"},
        {"type": "sacrifice", "group": "6"},
    ]
    state = play(state, ATTACKER, {"type": "sacrifice", "group": "5"})
    assert "5" not in state["battle"]["groups"]
    steps = rule_moves(state, ATTACKER)
    assert {"type": "bonus_step", "group": "1", "to": [2, 5]} in steps and all(
        m["type"] == "bonus_step" for m in steps
    )
    state = play(state, ATTACKER, {"type": "bonus_step", "group": "1", "to": [2, 5]})
    assert state["battle"]["groups"]["1"]["at"] == "2,5"
    assert [p["vp"] for p in state["p"]] == [10, 0, 0]
    assert {"type": "bonus", "group": "1"} not in rule_moves(state, ATTACKER)


def test_rl_63_rl_46_sacrificing_another_players_group_needs_consent():
    """RIO-RL-63, RIO-RL-46: a mixed group may sacrifice groups of any of its players; another player's
    group only with his consent. Sacrificed people return to supply without VP. When a refusal
    leaves too few groups, the bonus move is lost (engine ruling)."""
    groups = {
        "2": ("d", [YELLOW, GREEN], "5,5"),
        "3": ("d", [GREEN], "12,8"),
        "4": ("d", [YELLOW], "1,8"),
    }
    for accept in (True, False):
        state = _defender_round(groups)
        state = play(state, YELLOW, {"type": "move", "group": "2", "to": [4, 5]})
        state = play(state, YELLOW, {"type": "bonus", "group": "2"})
        state = play(state, YELLOW, {"type": "sacrifice", "group": "4"})
        supply = state["p"][GREEN]["supply"]
        state = play(state, YELLOW, {"type": "sacrifice", "group": "3"})
        assert GAME.awaiting(state) == [GREEN]
        state = play(state, GREEN, {"type": "consent", "accept": accept})
        if accept:
            assert state["p"][GREEN]["supply"] == supply + 1 and state["p"][GREEN]["vp"] == 0
            state = play(state, YELLOW, {"type": "bonus_step", "group": "2", "to": [3, 5]})
            assert state["battle"]["groups"]["2"]["at"] == "3,5"
        else:
            assert "3" in state["battle"]["groups"] and state["battle"]["bonus"] is None
            assert {"type": "pass"} in rule_moves(state, YELLOW)


def _to_the_end(state):
    """Pass every battle round, withdrawal and all, until the battle is over."""
    for _ in range(40):
        if state["battle"] is None:
            return state
        seat = GAME.awaiting(state)[0]
        state = play(state, seat, {"type": "pass"})
    raise AssertionError("the battle did not end")


def test_rl_71_battle_27_city_5_regrouped_single_goes_home_after_the_battle():
    """RIO-RL-71, RIO-BATTLE-27, RIO-CITY-5, RIO-RL-51: two pairs of one colour regrouped on a cell
    without a building leave 4 people there when the fighting ends; after the withdrawal and
    RIO-RL-51 the single goes back to its owner's supply, without VP, so the cell holds 3."""
    state = _defender_round({"2": ("d", [YELLOW, YELLOW], "5,5"), "3": ("d", [YELLOW, YELLOW], "5,6")})
    state = play(state, YELLOW, {"type": "move", "group": "2", "to": [5, 6]})
    supply = state["p"][YELLOW]["supply"]
    state = _to_the_end(state)
    assert state["city"]["5,6"]["ppl"][YELLOW] == 3
    assert state["p"][YELLOW]["supply"] == supply + 1
    assert state["p"][YELLOW]["vp"] == 0


def test_rl_71_a_withdrawal_below_the_limit_leaves_the_cell_alone():
    """RIO-RL-71, RIO-BATTLE-40: when the owner takes one of the four back himself, the other three
    stay (nobody more goes home)."""
    state = _defender_round({"2": ("d", [YELLOW, YELLOW], "5,5"), "3": ("d", [YELLOW, YELLOW], "5,6")})
    state = play(state, YELLOW, {"type": "move", "group": "2", "to": [5, 6]})
    supply = state["p"][YELLOW]["supply"]
    for _ in range(40):
        if state["battle"]["stage"] == "withdraw" and GAME.awaiting(state) == [YELLOW]:
            break
        state = play(state, GAME.awaiting(state)[0], {"type": "pass"})
    state = play(state, YELLOW, {"type": "withdraw", "cell": [5, 6], "count": 1})
    state = _to_the_end(state)
    assert state["city"]["5,6"]["ppl"][YELLOW] == 3
    assert state["p"][YELLOW]["supply"] == supply + 1


def test_rl_72_rl_63_bonus_step_only_after_a_normal_step():
    """RIO-RL-72, RIO-RL-63, RIO-BATTLE-28: a group that may move has no bonus move before it has made
    a normal step in this battle round, and has one after it; a group that may not move (the units
    of a 2+2 regrouping, RIO-BATTLE-27) makes it as its only step."""
    groups = {
        "2": ("d", [YELLOW], "5,5"),
        "3": ("d", [YELLOW], "12,8"),
        "4": ("d", [YELLOW], "1,8"),
    }
    state = _defender_round(groups)
    assert not [m for m in rule_moves(state, YELLOW) if m["type"] == "bonus"]
    state = play(state, YELLOW, {"type": "move", "group": "2", "to": [4, 5]})
    assert {"type": "bonus", "group": "2"} in rule_moves(state, YELLOW)
    regrouped = _defender_round(
        {
            "2": ("d", [YELLOW, YELLOW], "5,5"),
            "3": ("d", [YELLOW, YELLOW], "5,6"),
            "4": ("d", [YELLOW], "12,8"),
            "5": ("d", [YELLOW], "1,8"),
            "6": ("d", [YELLOW], "1,9"),
        }
    )
    assert not [m for m in rule_moves(regrouped, YELLOW) if m["type"] == "bonus"]
    regrouped = play(regrouped, YELLOW, {"type": "move", "group": "2", "to": [5, 6]})
    bonuses = [m for m in rule_moves(regrouped, YELLOW) if m["type"] == "bonus"]
    assert {"type": "bonus", "group": "2"} in bonuses and {"type": "bonus", "group": "3"} in bonuses
    assert not [m for m in rule_moves(regrouped, YELLOW) if m["type"] == "move" and m["group"] in ("2", "3")]


def test_battle_28_rl_53_group_attacked_earlier_in_the_round_may_bonus_after_a_step():
    """RIO-BATTLE-28 ("any group"), RIO-RL-53, RIO-RL-72: a defender group that fought earlier in this
    battle round (it beat the attacker who stepped onto it) may still move, and after a normal step
    it may make its bonus move like any other group."""
    state = fight(
        base(),
        {
            "1": ("a", [-1], "4,5"),
            "7": ("a", [-1], "0,0-1,0"),
            "2": ("d", [YELLOW, YELLOW], "5,5"),
            "3": ("d", [YELLOW], "12,8"),
            "4": ("d", [YELLOW], "1,8"),
        },
    )
    state = play(state, ATTACKER, {"type": "move", "group": "1", "to": [5, 5]})
    assert "1" not in state["battle"]["groups"] and state["battle"]["groups"]["2"]["fought"] == 1
    state = play(state, ATTACKER, {"type": "pass"})
    assert GAME.awaiting(state) == [YELLOW]
    state = play(state, YELLOW, {"type": "move", "group": "2", "to": [5, 4]})
    assert {"type": "bonus", "group": "2"} in rule_moves(state, YELLOW)


def test_rl_40_battle_28_a_step_that_is_a_combat_ends_the_move_without_bonus():
    """RIO-RL-40, RIO-BATTLE-28: a group whose step was a combat stops there; it has no bonus step
    after it (engine ruling, docs/rio-de-la-plata-protocol.md)."""
    state = fight(
        base(),
        {
            "1": ("a", [-1, -1], "4,5"),
            "5": ("a", [-1], "0,0-1,0"),
            "6": ("a", [-1], "12,8"),
            "2": ("d", [YELLOW], "5,5"),
        },
    )
    state = play(state, ATTACKER, {"type": "move", "group": "1", "to": [5, 5]})
    assert state["battle"]["groups"]["1"]["at"] == "5,5" and "2" not in state["battle"]["groups"]
    assert {"type": "bonus", "group": "1"} not in rule_moves(state, ATTACKER)


def test_rl_71_battle_28_revision_1_logs_keep_the_rules_they_were_recorded_under():
    """RIO-RL-71, RIO-BATTLE-28 under rules revision 1 (logs recorded before issue 28): the fourth
    person stayed on the cell, and a group that fought earlier in the battle round had no bonus move."""
    state = _defender_round({"2": ("d", [YELLOW, YELLOW], "5,5"), "3": ("d", [YELLOW, YELLOW], "5,6")})
    state["config"] = dict(state["config"], revision=1)
    state = play(state, YELLOW, {"type": "move", "group": "2", "to": [5, 6]})
    assert _to_the_end(state)["city"]["5,6"]["ppl"][YELLOW] == 4
    state = fight(
        base(),
        {
            "1": ("a", [-1], "4,5"),
            "7": ("a", [-1], "0,0-1,0"),
            "2": ("d", [YELLOW, YELLOW], "5,5"),
            "3": ("d", [YELLOW], "12,8"),
            "4": ("d", [YELLOW], "1,8"),
        },
    )
    state["config"] = dict(state["config"], revision=1)
    state = play(state, ATTACKER, {"type": "move", "group": "1", "to": [5, 5]})
    state = play(state, ATTACKER, {"type": "pass"})
    state = play(state, YELLOW, {"type": "move", "group": "2", "to": [5, 4]})
    assert {"type": "bonus", "group": "2"} not in rule_moves(state, YELLOW)
