"""Scenario tests of single rules and of the rulebook's worked examples (RIO-EX-n)."""

from __future__ import annotations

import pytest

from games.base import CommandError
from games.rio_de_la_plata import GAME
from games.rio_de_la_plata.battle.opening import attacker_count, choose_attacker
from games.rio_de_la_plata.rules import (
    ckey,
    connected_districts,
    district_values,
    ev,
    evolve,
    next_order,
    ship_payouts,
    war_enemy,
)

from .helpers import at_turn, new_game, play, set_cell


def moves(state, seat):
    return GAME.legal_moves(state, seat)


def test_setup_3_setup_4_setup_5_stocks_and_turn_order():
    """RIO-SETUP-3, RIO-SETUP-4, RIO-SETUP-5, RIO-SETUP-7: 2 stone, 2 wood, 2 silver each, 9 people,
    a random turn order from the seed, the last player gets 1 wood and 1 stone more, phase A of 1580."""
    state, log = new_game(4, seed=11)
    assert log[1]["type"] == "order_drawn" and sorted(log[1]["order"]) == [0, 1, 2, 3]
    last = state["order"][-1]
    for seat in range(4):
        p = state["p"][seat]
        extra = 1 if seat == last else 0
        assert (p["stone"], p["wood"], p["silver"], p["supply"]) == (2 + extra, 2 + extra, 2, 9)
        assert p["vp"] == 0  # RIO-RL-2
    assert state["year"] == 1580 and state["step"] == "A"
    assert GAME.awaiting(state) == [state["order"][0]]
    orders = {tuple(new_game(4, seed=s)[1][1]["order"]) for s in range(8)}
    assert len(orders) > 1


def test_setup_1_rl_1_three_to_five_players():
    """RIO-SETUP-1, RIO-RL-1."""
    for players in (2, 6):
        with pytest.raises(CommandError.__mro__[1]):
            GAME.configure({"players": players})
    for players in (3, 4, 5):
        assert GAME.configure({"players": players})["players"] == players


def test_place_1_at_most_five_people_per_round():
    """RIO-PLACE-1, RIO-ROUND-3: placements one at a time, at most 5, then end turn."""
    state, _ = new_game(3, seed=2)
    seat = GAME.awaiting(state)[0]
    for _ in range(5):
        state = play(state, seat, {"type": "place", "space": "field"})
    types = [m["type"] for m in moves(state, seat)]
    assert types == ["end_turn", "buy", "buy"] + ["offer_open"] * 2
    state = play(state, seat, {"type": "end_turn"})
    assert GAME.awaiting(state) == [state["order"][1]]


def test_city_3_first_year_only_in_start_zone():
    """RIO-CITY-3, RIO-GAP-4: in 1580 city placements are only in the start zone."""
    state, _ = new_game(3, seed=2)
    seat = GAME.awaiting(state)[0]
    cells = {tuple(m["cell"]) for m in moves(state, seat) if m.get("space") == "cell"}
    assert cells == set(state.board.start_zone)


def test_city_3_rl_4_adjacent_to_own_hut_and_on_own_hut():
    """RIO-CITY-3, RIO-RL-4, RIO-CITY-8, RIO-RL-5: a hut opens its neighbours (king adjacency,
    RIO-GAP-5) and its own cell to its owner, never to another player."""
    state, _ = new_game(3, seed=2)
    seat = GAME.awaiting(state)[0]
    other = (seat + 1) % 3
    state = state.copy()
    set_cell(state, (1, 1), b="hut", own=seat, pool="hut/house")
    cells = {tuple(m["cell"]) for m in moves(state, seat) if m.get("space") == "cell"}
    assert {(0, 0), (1, 0), (2, 2), (1, 1)} <= cells
    assert (4, 4) not in cells
    state = at_turn(state, other)
    cells = {tuple(m["cell"]) for m in moves(state, other) if m.get("space") == "cell"}
    assert (1, 1) not in cells and (0, 0) not in cells


def test_city_4_city_5_rl_3_empty_cell_and_three_per_cell():
    """RIO-CITY-4, RIO-CITY-5, RIO-CITY-6, RIO-RL-3: own people may be added up to 3; a cell with
    another player's people is not empty (only displacing is possible)."""
    state, _ = new_game(3, seed=2)
    seat = GAME.awaiting(state)[0]
    cell = list(state.board.start_zone[0])
    for _ in range(3):
        state = play(state, seat, {"type": "place", "space": "cell", "cell": cell})
    assert {"type": "place", "space": "cell", "cell": cell} not in moves(state, seat)
    state = play(state, seat, {"type": "end_turn"})
    nxt = GAME.awaiting(state)[0]
    assert {"type": "place", "space": "cell", "cell": cell} not in moves(state, nxt)


def test_city_9_ex_2_rl_6_displacing():
    """RIO-CITY-9, RIO-EX-2, RIO-RL-6: 2 green people on a cell without building; black places 4;
    the 2 green and 1 black return; 3 black remain; all 4 count towards black's 5."""
    state, _ = new_game(3, seed=2)
    green = GAME.awaiting(state)[0]
    cell = list(state.board.start_zone[0])
    state = play(state, green, {"type": "place", "space": "cell", "cell": cell})
    state = play(state, green, {"type": "place", "space": "cell", "cell": cell})
    state = play(state, green, {"type": "end_turn"})
    black = GAME.awaiting(state)[0]
    command = {"type": "place", "space": "cell", "cell": cell, "displace": True}
    assert command in moves(state, black)
    state = play(state, black, command)
    record = state["city"][ckey(cell)]
    assert record["ppl"][green] == 0 and record["ppl"][black] == 3
    assert state["p"][green]["supply"] == 9
    assert state["p"][black]["supply"] == 6 and state["p"][black]["placed"] == 4


def test_city_10_no_displacing_on_a_building():
    """RIO-CITY-10, RIO-CITY-7: people on a building cannot be displaced; a house takes nobody."""
    state, _ = new_game(3, seed=2)
    seat = GAME.awaiting(state)[0]
    other = (seat + 1) % 3
    state = state.copy()
    c = state.board.start_zone[0]
    set_cell(state, c, b="quarry", pool="quarry/carpenter", ppl=[1 if i == other else 0 for i in range(3)])
    assert not [m for m in moves(state, seat) if m.get("cell") == list(c)]
    set_cell(state, c, b="house", own=seat, pool="hut/house", ppl=[0, 0, 0])
    assert not [m for m in moves(state, seat) if m.get("cell") == list(c)]


def _phase_b(state, seat):
    """The state moved to ``seat``'s phase-B action turn (benefits received)."""
    state = at_turn(state, seat)
    state["step"] = "B"
    state["started"] = True
    return state


def test_build_3_build_1_ex_1_hut_and_quarry():
    """RIO-EX-1, RIO-BUILD-1, RIO-BUILD-3, RIO-BUILD-8, RIO-BUILD-11, RIO-ACT-3: a pair builds a hut
    for nothing, a single builds a quarry for 2 wood; the people used return."""
    state, _ = new_game(3, seed=2)
    green = 0
    state = _phase_b(state, green)
    set_cell(state, (6, 3), ppl=[2, 0, 0])
    set_cell(state, (9, 3), ppl=[1, 0, 0])
    state["p"][green]["wood"] = 2
    state["p"][green]["supply"] = 6
    build_hut = {"type": "build", "cell": [6, 3], "building": "hut"}
    build_quarry = {"type": "build", "cell": [9, 3], "building": "quarry"}
    assert build_hut in moves(state, green) and build_quarry in moves(state, green)
    state = play(state, green, build_hut)
    state = play(state, green, build_quarry)
    assert state["city"]["6,3"]["b"] == "hut" and state["city"]["6,3"]["own"] == green
    assert state["city"]["9,3"]["b"] == "quarry"
    assert state["p"][green]["wood"] == 0 and state["p"][green]["supply"] == 9
    assert state["p"][green]["huts"] == 12 and state["tiles"]["quarry/carpenter"] == 5


def test_build_2_one_building_per_cell_per_round():
    """RIO-BUILD-2, RIO-BUILD-4: no house in the round of its hut."""
    state, _ = new_game(3, seed=2)
    state = _phase_b(state, 0)
    set_cell(state, (6, 3), ppl=[3, 0, 0])
    state["p"][0].update(stone=5, wood=5, supply=6)
    state = play(state, 0, {"type": "build", "cell": [6, 3], "building": "hut"})
    assert not [m for m in moves(state, 0) if m["type"] == "build"]
    state = state.copy()
    state["year"] += 1
    assert {"type": "build", "cell": [6, 3], "building": "house"} in moves(state, 0)


def test_use_2_use_5_ex_14_market_needs_an_adjacent_house():
    """RIO-USE-1, RIO-USE-2, RIO-USE-5, RIO-EX-14: only a player with a house next to the market may
    use it (huts do not count); the person brings 1 silver and the player chooses the goods."""
    state, _ = new_game(3, seed=2)
    state = _phase_b(state, 0)
    set_cell(state, (6, 3), b="market", pool="market/company", ppl=[1, 0, 0])
    set_cell(state, (5, 3), b="hut", own=0, pool="hut/house")
    assert not [m for m in moves(state, 0) if m["type"] == "use"]
    set_cell(state, (5, 3), b="house", own=0, pool="hut/house")
    uses = [m for m in moves(state, 0) if m["type"] == "use"]
    assert len(uses) == 3
    before = state["p"][0]["silver"]
    state = play(state, 0, {"type": "use", "cell": [6, 3], "choice": 2})
    assert state["p"][0]["silver"] == before - 1 + 2


def test_res_3_ex_4_rl_16_mine_with_four_players():
    """RIO-RES-1, RIO-RES-2, RIO-RES-3, RIO-EX-4, RIO-RL-16, RIO-GAP-10: with 4 players the mine takes
    1, 1, 2, 2, 3 people in order; each space yields 1 stone."""
    state, _ = new_game(4, seed=3)
    assert state.board.track_spaces("mine", 4) == (1, 1, 2, 2, 3)
    assert state.board.track_spaces("mine", 5) == (1, 1, 1, 2, 2, 3)
    seat = GAME.awaiting(state)[0]
    state = play(state, seat, {"type": "place", "space": "mine"})
    state = play(state, seat, {"type": "place", "space": "mine"})
    state = play(state, seat, {"type": "place", "space": "mine"})
    assert state["p"][seat]["placed"] == 4
    state = _phase_b(state, seat)
    stone = state["p"][seat]["stone"]
    state = play(state, seat, {"type": "collect", "space": "mine"})
    assert state["p"][seat]["stone"] == stone + 3 and state["p"][seat]["supply"] == 9


def test_field_1_rl_68_craft_1_ex_5():
    """RIO-FIELD-1, RIO-RL-68, RIO-CRAFT-1, RIO-EX-5, RIO-RL-8: 2 people on the field give 1 silver;
    a person at the craftsmen exchanges 1 stone for 1 luxury; everybody returns at turn end."""
    state, _ = new_game(3, seed=2)
    state = _phase_b(state, 0)
    state["field"][0] = 3
    state["craft"][0] = 1
    state["p"][0]["supply"] = 5
    silver = state["p"][0]["silver"]
    state = play(state, 0, {"type": "collect", "space": "field"})
    assert state["p"][0]["silver"] == silver + 1
    state = play(state, 0, {"type": "craft", "give": "stone"})
    assert state["p"][0]["luxury"] == 1 and state["p"][0]["supply"] == 9


def test_rl_54_mandatory_yields_resolved_at_turn_end():
    """RIO-RL-54, RIO-ACT-4: unresolved mine and field are resolved when the turn ends."""
    state, _ = new_game(3, seed=2)
    state = _phase_b(state, 0)
    state["field"][0] = 2
    state["track"]["mine"][0] = 0
    state["p"][0]["supply"] = 6
    stone, silver = state["p"][0]["stone"], state["p"][0]["silver"]
    state = play(state, 0, {"type": "end_turn"})
    assert state["p"][0]["stone"] == stone + 1 and state["p"][0]["silver"] == silver + 1
    assert state["p"][0]["supply"] == 9


def test_order_2_ex_6_turn_order():
    """RIO-ORDER-1, RIO-ORDER-2, RIO-EX-6, RIO-WAR-5: white, black, red, green; green and red place 1
    each: the next order is green, red, white, black."""
    state, _ = new_game(4, seed=2)
    state = state.copy()
    white, black, red, green = 0, 1, 2, 3
    state["order"] = [white, black, red, green]
    state["otrack"] = [0, 0, 1, 1]
    assert next_order(state) == [green, red, white, black]
    state["otrack"] = [0, 0, 1, 2]
    assert next_order(state) == [green, red, white, black]
    state["otrack"] = [2, 0, 1, 0]
    assert next_order(state) == [white, red, black, green]


def test_char_3_char_4_rl_2_penalty():
    """RIO-CHAR-2, RIO-CHAR-3, RIO-CHAR-4, RIO-RL-2: a player who lacks the VP pays 3 silver and 5 VP
    (never below 0) and the character stays in the bank."""
    state, _ = new_game(3, seed=2)
    seat = GAME.awaiting(state)[0]
    state = play(state, seat, {"type": "place", "space": "character", "character": "captain"})
    assert not [m for m in moves(state, seat) if m.get("space") == "character"]
    state = _phase_b(state, seat)
    state["p"][seat]["vp"] = 3
    state["p"][seat]["vp_by"] = {"buildings": 3}
    state = play(state, seat, {"type": "claim", "character": "captain"})
    assert state["chars"]["captain"]["owner"] is None
    assert state["p"][seat]["vp"] == 0 and state["p"][seat]["silver"] == 0


def test_char_5_rl_58_benefits_from_next_year():
    """RIO-CHAR-3, RIO-CHAR-5, RIO-CHAR-8, RIO-RL-23, RIO-RL-58: a character paid in year Y gives its
    per-round benefit from phase B of Y+1, at the start of the holder's action turn."""
    state, _ = new_game(3, seed=2)
    seat = GAME.awaiting(state)[0]
    state = play(state, seat, {"type": "place", "space": "character", "character": "master_quarryman"})
    state = _phase_b(state, seat)
    state["p"][seat].update(vp=10, silver=5, vp_by={"buildings": 10})
    state = play(state, seat, {"type": "claim", "character": "master_quarryman"})
    assert state["chars"]["master_quarryman"] == {"owner": seat, "from": 1581}
    from games.rio_de_la_plata.rules import income

    assert income(state, seat) == {}
    state = state.copy()
    state["year"] = 1581
    assert income(state, seat) == {"stone": 1}  # its holder's action turn, phase B of 1581


def test_major_2_major_3_ex_3_fort():
    """RIO-MAJOR-2, RIO-MAJOR-3, RIO-MAJOR-4, RIO-MAJOR-5, RIO-MAJOR-6, RIO-MAJOR-9, RIO-EX-3: the fort
    with 5 players (5, 5, 4, 4, 4, 3): green 14, yellow 4, red 7 + 4 for completing it."""
    state, _ = new_game(5, seed=2)
    green, yellow, red = 0, 1, 2
    state = state.copy()
    state["major"]["fort"]["grids"][0] = [green, green, green, yellow, red, None]
    state["p"][red].update(stone=1, wood=1)
    state = at_turn(state, red)
    command = {"type": "place", "space": "major", "building": "fort", "grid": 0, "index": 5}
    assert command in moves(state, red)
    state = play(state, red, command)
    assert state["p"][red]["stone"] == 0 and state["p"][red]["wood"] == 0
    assert state["queue"] == [["fort", 0, red]]
    state = state.copy()
    state["step"] = "resolve"
    from games.rio_de_la_plata.rules import next_automatic

    event = next_automatic(state)
    assert event["type"] == "building_completed"
    state = evolve(state, event)
    assert [state["p"][s]["vp"] for s in (green, yellow, red)] == [14, 4, 11]
    assert state["fort"] and state["major"]["fort"]["done"]  # RIO-MAJOR-10


def test_ex_15_roads_alone_and_sections():
    """RIO-EX-15, RIO-ROAD-1, RIO-RL-11, RIO-RL-55, RIO-MAJOR-7: a 3-player road grid (2, 2) filled
    alone gives 4 VP and 3 road sections placed one at a time."""
    state, _ = new_game(3, seed=2)
    seat = 0
    state = state.copy()
    state["queue"] = [["roads", 0, seat]]
    state["major"]["roads"]["grids"][0][0] = seat
    state["major"]["roads"]["grids"][0][1] = seat
    state["p"][seat]["supply"] -= 2
    state["step"] = "resolve"
    from games.rio_de_la_plata.rules import next_automatic

    state = evolve(state, next_automatic(state))
    assert state["p"][seat]["vp"] == 4
    assert state["due"] == [{"seat": seat, "kind": "section", "what": "road", "left": 3}]
    for _ in range(3):
        edge = moves(state, seat)[0]["edge"]
        state = play(state, seat, {"type": "place_section", "edge": edge})
    assert len(state["roads"]) == 3 and state["sections"] == 57


def test_road_2_rl_56_connection_to_the_plaza():
    """RIO-ROAD-2, RIO-RL-56, RIO-GAP-3: a chain of road sections from a plaza vertex to the centre
    vertex connects the district."""
    state, _ = new_game(3, seed=2)
    state = state.copy()
    # plaza corner (7, 4) to centre of district B at (6, 2): edges (7,4)-(7,3), (7,3)-(7,2), (6,2)-(7,2)
    state["roads"] = ["7,3-7,4", "7,2-7,3", "6,2-7,2"]
    assert "B" in connected_districts(state)
    state["roads"] = ["7,3-7,4", "6,2-7,2"]
    assert "B" not in connected_districts(state)


def test_end_5_end_6_ex_13_district_value():
    """RIO-END-5, RIO-END-6, RIO-EX-13: 2 production buildings (-1), a barracks (+1) and a statue
    (+1): each house scores 3."""
    state, _ = new_game(3, seed=2)
    state = state.copy()
    set_cell(state, (0, 0), b="market", pool="market/company")
    set_cell(state, (1, 0), b="quarry", pool="quarry/carpenter")
    set_cell(state, (2, 0), b="barracks", pool="church/barracks")
    set_cell(state, (3, 0), b="statue", pool="square/statue")
    assert district_values(state)["A"] == 3
    assert district_values(state)["B"] == 2


def test_war_2_ex_8_war_check_and_attackers():
    """RIO-WAR-2, RIO-EX-8, RIO-BATTLE-6, RIO-BATTLE-7, RIO-RL-35: natives on 5, pirates on 3: 2-3
    pirates, 4-5 natives, 6+ none; 5 players with 3 defenders' people: N = 12 vs the natives (bonus
    +3 reduced by 2) and 11 vs the pirates (+1 reduced to 0)."""
    state, _ = new_game(5, seed=2)
    state = state.copy()
    state["enemy"] = {"natives": 4, "pirates": 2}
    assert [war_enemy(state, total) for total in (2, 3, 4, 5, 6, 12)] == [
        "pirates",
        "pirates",
        "natives",
        "natives",
        None,
        None,
    ]
    attacker, reset = choose_attacker(state)
    defender = next(s for s in range(5) if s != attacker)
    set_cell(state, (0, 0), ppl=[3 if s == defender else 0 for s in range(5)])
    assert attacker_count(state, "natives", attacker, reset)["attackers"] == 12
    assert attacker_count(state, "pirates", attacker, reset)["attackers"] == 11


def test_battle_1_rl_34_attacker_choice():
    """RIO-BATTLE-1, RIO-RL-34: most VP without a mark; ties to the earliest in turn order."""
    state, _ = new_game(4, seed=2)
    state = state.copy()
    state["order"] = [2, 0, 3, 1]
    for seat, vp in enumerate([5, 9, 9, 1]):
        state["p"][seat]["vp"] = vp
    assert choose_attacker(state) == (2, False)
    state["p"][2]["mark"] = True
    assert choose_attacker(state) == (1, False)
    for seat in range(4):
        state["p"][seat]["mark"] = True
    assert choose_attacker(state) == (2, True)


def test_ship_9_rl_20_payouts():
    """RIO-SHIP-9, RIO-RL-20, RIO-EX-7: per good 1 silver + 1 VP (luxury 2 + 2), and each set of 3
    identical goods 6 silver + 4 VP in addition."""
    state, _ = new_game(3, seed=2)
    state = state.copy()
    state["ship"]["hold"] = [[3, 1, 1], [0, 0, 0], [2, 0, 0]]
    assert ship_payouts(state) == [
        {"silver": 3 + 1 + 2 + 6, "vp": 3 + 1 + 2 + 4},
        {"silver": 0, "vp": 0},
        {"silver": 2, "vp": 2},
    ]


def test_rl_2_vp_never_below_zero_and_redaction_hides_the_seed():
    """RIO-RL-2 (a penalty takes at most what there is) and the seed's secrecy: game_started shown to
    a seat or a spectator carries no seed; the view has no seed either."""
    state, log = new_game(3, seed=12345)
    for viewer in (None, 0, 1):
        assert "seed" not in GAME.redact(log[0], viewer)["config"]
        assert "12345" not in str(GAME.view(state, viewer))
    assert GAME.redact(log[0], "full")["config"]["seed"] == 12345


def test_verify_log_rejects_a_tampered_dice_roll():
    """RIO-WAR-2: dice are drawn from the secret seed and recorded; a changed roll is refused."""
    from .helpers import random_game

    state, log = random_game(3, seed=4)
    i = next(i for i, e in enumerate(log) if e["type"] == "dice_rolled")
    bad = list(log)
    bad[i] = ev("dice_rolled", purpose="war", dice=[6, 6] if log[i]["dice"] != [6, 6] else [1, 1])
    error = GAME.verify_log(bad)
    assert error is not None and error.index == i
