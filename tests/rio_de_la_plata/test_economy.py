"""Rules of buildings, ship, characters, trade, round structure and final scoring, on constructed
positions."""

from __future__ import annotations

from games.rio_de_la_plata import GAME
from games.rio_de_la_plata.rules import (
    district_values,
    ev,
    evolve,
    final_scoring,
    next_automatic,
    surround_count,
    tile_sites,
    winners,
)

from .helpers import at_turn, new_game, play, random_game, rule_moves, set_cell


def moves(state, seat):
    """The seat's moves for the pending decision (free commands, RIO-RL-27, left out)."""
    return rule_moves(state, seat)


def phase_b(state, seat):
    state = at_turn(state, seat)
    state["step"] = "B"
    state["started"] = True
    return state


def auto(state):
    event = next_automatic(state)
    assert event is not None
    return evolve(state, event), event


def test_comp_2_to_comp_7_setup_2_setup_6_components_from_the_board():
    """RIO-COMP-2, RIO-COMP-3, RIO-COMP-4, RIO-COMP-5, RIO-COMP-6, RIO-COMP-7, RIO-SETUP-2, RIO-SETUP-6:
    10 discs (9 people), 13 hut/house tiles, 17 purple discs, 60 sections, the tile pools, 2 six-sided
    dice; the round marker on 1580, enemies on their start spaces, the ship not in play."""
    state, _ = new_game(5, seed=1)
    board = state.board
    assert (board.discs, board.people, board.hut_tiles, board.purple, board.sections) == (10, 9, 13, 17, 60)
    assert board.tile_pools == {
        "square/statue": 3,
        "square/garden": 3,
        "church/barracks": 3,
        "market/company": 3,
        "quarry/carpenter": 6,
    }
    assert board.dice == (2, 6)
    assert state["tiles"] == board.tile_pools and state["sections"] == 60
    assert state["year"] == 1580 and state["enemy"] == {"natives": 0, "pirates": 0}
    assert not state["ship"]["in_play"] and all(p["huts"] == 13 for p in state["p"])


def test_city_1_city_2_plaza_never_takes_people_or_buildings():
    """RIO-CITY-1, RIO-CITY-2: the Plaza Mayor's cells are never offered for placement."""
    state, _ = new_game(3, seed=1)
    plaza = {list(c) == m.get("cell") for c in state.board.plaza for m in moves(state, state["order"][0])}
    assert True not in plaza
    assert len(state.board.districts) == 8


def test_place_2_rl_7_people_stay_between_rounds():
    """RIO-PLACE-2, RIO-RL-7, RIO-ACT-3: a city person that did not act stays on its cell into the next
    round and does not count towards the next round's 5."""
    state, _ = new_game(3, seed=1)
    seat = state["order"][0]
    state = play(state, seat, {"type": "place", "space": "cell", "cell": [6, 3]})
    state = state.copy()
    state["step"], state["turn"] = "round_end", 0
    state, _ = auto(state)
    assert state["city"]["6,3"]["ppl"][seat] == 1 and state["p"][seat]["placed"] == 0


def test_place_4_major_3_cost_paid_at_once():
    """RIO-PLACE-4, RIO-MAJOR-3, RIO-MAJOR-2: a palace space costs 1 stone and 1 wood, paid on
    placement; the port 1 stone or 1 wood; roads nothing; without the goods no placement is offered."""
    state, _ = new_game(3, seed=1)
    seat = state["order"][0]
    state = state.copy()
    state["p"][seat].update(stone=1, wood=0)
    majors = {(m["building"], m.get("pay")) for m in moves(state, seat) if m.get("space") == "major"}
    assert ("palace", None) not in majors and ("port", "stone") in majors and ("port", "wood") not in majors
    assert ("roads", None) in majors
    state["p"][seat].update(stone=1, wood=1)
    state = play(
        state, seat, {"type": "place", "space": "major", "building": "palace", "grid": 0, "index": 0}
    )
    assert state["p"][seat]["stone"] == 0 and state["p"][seat]["wood"] == 0


def test_major_1_spaces_by_player_count():
    """RIO-MAJOR-1, RIO-GAP-6: orange spaces exist with 4-5 players, green ones with 5 only."""
    for players, count in ((3, 4), (4, 5), (5, 6)):
        state, _ = new_game(players, seed=1)
        seat = state["order"][0]
        spaces = [m for m in moves(state, seat) if m.get("building") == "palace"]
        assert len(spaces) == count


def test_act_1_rl_9_major_10_resolution_order_and_closed_grids():
    """RIO-ACT-1, RIO-RL-9, RIO-MAJOR-10, RIO-SHIP-1, RIO-MAJOR-9: completed grids resolve at the start of
    phase B in completion order; a resolved port puts the ship in play and its grid closes."""
    state, _ = new_game(3, seed=1)
    state = state.copy()
    state["queue"] = [["port", 0, 1], ["fort", 0, 2]]
    state["major"]["port"]["grids"][0] = [1, 1, None, None]
    state["major"]["fort"]["grids"][0] = [2, 2, 2, 2, None, None]
    state["p"][1]["supply"] -= 2
    state["p"][2]["supply"] -= 4
    state["step"] = "resolve"
    state, event = auto(state)
    assert event["building"] == "port" and state["ship"]["in_play"]
    assert state["p"][1]["vp"] == 3 + 3 + 2
    state, event = auto(state)
    assert event["building"] == "fort" and state["fort"] and state["p"][2]["vp"] == 18 + 4
    assert state["major"]["port"]["done"] and state["major"]["fort"]["done"]
    seat = state["order"][0]
    state["step"] = "A"
    assert not [m for m in moves(state, seat) if m.get("building") in ("port", "fort")]


def test_major_8_rl_10_rl_57_palace_site():
    """RIO-MAJOR-8, RIO-RL-10, RIO-RL-57, RIO-GAP-7: the palace goes on a cell next to the Plaza Mayor
    without a building; when all hold one, a building is replaced (never the cathedral) and the
    people there go home."""
    state, _ = new_game(3, seed=1)
    state = state.copy()
    assert len(tile_sites(state, "palace")) == 12
    for c in state.board.plaza_adjacent:
        set_cell(state, c, b="quarry", pool="quarry/carpenter")
    set_cell(state, state.board.plaza_adjacent[0], b="cathedral")
    set_cell(state, state.board.plaza_adjacent[1], b="quarry", pool="quarry/carpenter", ppl=[1, 0, 0])
    state["p"][0]["supply"] -= 1
    assert len(tile_sites(state, "palace")) == 11
    state["due"] = [{"seat": 0, "kind": "tile", "building": "palace"}]
    cell = list(state.board.plaza_adjacent[1])
    state = play(state, 0, {"type": "place_tile", "cell": cell})
    assert state["city"][f"{cell[0]},{cell[1]}"]["b"] == "palace" and state["p"][0]["supply"] == 9


def test_wall_2_rl_11_walls_completed():
    """RIO-WALL-2, RIO-RL-11, RIO-MAJOR-7, RIO-MAJOR-11: the completer places 3 wall sections on free
    outer edges, one at a time."""
    state, _ = new_game(3, seed=1)
    state = state.copy()
    state["queue"] = [["walls", 0, 2]]
    state["major"]["walls"]["grids"][0] = [2, 2, None, None]
    state["p"][2]["supply"] -= 2
    state["step"] = "resolve"
    state, _ = auto(state)
    assert state["due"][0] == {"seat": 2, "kind": "section", "what": "wall", "left": 3}
    edges = [m["edge"] for m in moves(state, 2)]
    assert len(edges) == len(state.board.wall_slots)
    for edge in edges[:3]:
        state = play(state, 2, {"type": "place_section", "edge": edge})
    assert state["walls"] == edges[:3] and not state["due"]
    assert state["major"]["walls"]["grids"][0] == [None] * 4 and not state["major"]["walls"]["done"]


def test_build_5_build_6_rl_13_upgrades_need_their_base():
    """RIO-BUILD-5, RIO-BUILD-6, RIO-RL-13: a company only on a market; a statue only on a square lying
    on a square/statue tile, a garden only on a square/garden tile."""
    state, _ = new_game(3, seed=1)
    state = phase_b(state, 0)
    state["p"][0].update(stone=9, wood=9)
    set_cell(state, (0, 0), b="market", pool="market/company", ppl=[1, 0, 0])
    set_cell(state, (3, 0), b="square", pool="square/statue", ppl=[1, 0, 0])
    set_cell(state, (0, 3), b="square", pool="square/garden", ppl=[1, 0, 0])
    builds = {(tuple(m["cell"]), m["building"]) for m in moves(state, 0) if m["type"] == "build"}
    assert builds == {((0, 0), "company"), ((3, 0), "statue"), ((0, 3), "garden")}


def test_build_7_rl_12_square_needs_five_around():
    """RIO-BUILD-7, RIO-RL-12: a square needs at least 5 adjacent minor buildings (squares excepted) or
    walls on the cell's sides."""
    state, _ = new_game(3, seed=1)
    state = phase_b(state, 0)
    state["p"][0].update(stone=9, wood=9)
    set_cell(state, (0, 1), ppl=[1, 0, 0])
    set_cell(state, (1, 0), b="quarry", pool="quarry/carpenter")
    set_cell(state, (1, 1), b="hut", own=1, pool="hut/house")
    set_cell(state, (1, 2), b="square", pool="square/statue")
    set_cell(state, (0, 2), b="market", pool="market/company")
    assert surround_count(state, "0,1") == 3
    assert not [m for m in moves(state, 0) if m.get("building") == "square"]
    state["walls"] = ["0,1-0,2"]
    set_cell(state, (0, 0), b="church", pool="church/barracks")
    assert surround_count(state, "0,1") == 5
    pools = {m["pool"] for m in moves(state, 0) if m.get("building") == "square"}
    assert pools == {"square/statue", "square/garden"}


def test_build_9_build_10_rl_15_noble_limits_and_vp():
    """RIO-BUILD-9, RIO-BUILD-10, RIO-RL-15, RIO-RL-14, RIO-BUILD-13: one church per district; a church
    gives its builder VP when built, a quarry none."""
    state, _ = new_game(3, seed=1)
    state = phase_b(state, 0)
    state["p"][0].update(stone=9, wood=9)
    set_cell(state, (0, 0), ppl=[1, 0, 0])
    set_cell(state, (0, 5), ppl=[1, 0, 0])
    set_cell(state, (1, 5), b="church", pool="church/barracks")
    on_a = {m["building"] for m in moves(state, 0) if m.get("cell") == [0, 0]}
    on_e = {m["building"] for m in moves(state, 0) if m.get("cell") == [0, 5]}
    assert "church" in on_a and "church" not in on_e and "barracks" in on_e
    state = play(state, 0, {"type": "build", "cell": [0, 0], "building": "church"})
    assert state["p"][0]["vp"] == state.board.minors["church"].vp > 0
    state = play(state, 0, {"type": "build", "cell": [0, 5], "building": "quarry"})
    assert state["p"][0]["vp"] == state.board.minors["church"].vp


def test_build_12_tiles_limit_building():
    """RIO-BUILD-12: without a free tile of its pool a building cannot be built (nor a hut without an
    own hut/house tile)."""
    state, _ = new_game(3, seed=1)
    state = phase_b(state, 0)
    state["p"][0].update(stone=9, wood=9, huts=0)
    state["tiles"]["quarry/carpenter"] = 0
    set_cell(state, (0, 0), ppl=[2, 0, 0])
    built = {m["building"] for m in moves(state, 0) if m["type"] == "build"}
    assert "quarry" not in built and "carpenter" not in built and "hut" not in built and "market" in built


def test_use_3_use_4_use_6_rl_28_rl_59_road_3_uses():
    """RIO-USE-3, RIO-USE-4, RIO-USE-6, RIO-RL-28, RIO-RL-59, RIO-ROAD-3: a quarry is used once a round,
    twice in a road-connected district (by the same player too); a house cannot be used; a person who
    cannot pay stays."""
    state, _ = new_game(3, seed=1)
    state = phase_b(state, 0)
    set_cell(state, (6, 2), b="quarry", pool="quarry/carpenter", ppl=[2, 0, 0])
    set_cell(state, (5, 2), b="house", own=0, pool="hut/house", ppl=[0, 0, 0])
    state["p"][0]["stone"] = 0
    assert not [m for m in moves(state, 0) if m["type"] == "use"]  # cannot pay: the people stay
    state["p"][0]["stone"] = 5
    state = play(state, 0, {"type": "use", "cell": [6, 2], "choice": 0})
    assert state["p"][0]["stone"] == 5 - 1 + 3
    assert not [m for m in moves(state, 0) if m["type"] == "use"]
    state["roads"] = ["7,3-7,4", "7,2-7,3", "6,2-7,2"]
    assert [m for m in moves(state, 0) if m["type"] == "use"]
    state = play(state, 0, {"type": "use", "cell": [6, 2], "choice": 0})
    assert not [m for m in moves(state, 0) if m["type"] == "use"]


def test_ship_2_ship_3_ship_5_ship_8_rl_60_loading_and_full_hold():
    """RIO-SHIP-2, RIO-SHIP-3, RIO-SHIP-4, RIO-SHIP-5, RIO-SHIP-8, RIO-RL-60, RIO-RL-18, RIO-SHIP-7: the
    hold takes 7 goods per player; each dock person loads up to 3; a full hold sails at once (a
    launch is refunded) and returns two years later; nothing is loaded at sea."""
    state, _ = new_game(3, seed=1)
    seat = state["order"][0]
    assert not [m for m in moves(state, seat) if m.get("space") == "dock"]
    state = state.copy()
    state["ship"]["in_play"] = True
    assert {"type": "place", "space": "dock"} in moves(state, seat)
    state = phase_b(state, 0)
    state["dock"][0] = 2
    state["p"][0].update(stone=9, supply=7)
    state["ship"]["hold"][1] = [10, 5, 0]
    state["ship"]["launch"] = 1
    state["ship"]["fee"] = 2
    state["p"][1]["silver"] = 0
    for _ in range(6):
        state = play(state, 0, {"type": "load", "good": "stone"})
        if state["ship"]["at_sea"]:
            break
    assert state["ship"]["at_sea"] and state["ship"]["full"] and state["ship"]["back"] == 1582
    assert sum(map(sum, state["ship"]["hold"])) == 21 and state["p"][1]["silver"] == 2
    assert not [m for m in moves(state, 0) if m["type"] == "load"]


def test_ship_6_rl_19_place_5_act_5_launch():
    """RIO-SHIP-6, RIO-RL-19, RIO-PLACE-5, RIO-ACT-5, RIO-RL-60: a launch is ordered in phase A for 2
    silver (1 to the Shipowner); the ship sails at the end of phase B; an empty ship does not sail and
    the fee comes back."""
    state, _ = new_game(3, seed=1)
    seat = state["order"][0]
    owner = state["order"][1]
    state = state.copy()
    state["ship"]["in_play"] = True
    state["chars"]["shipowner"] = {"owner": owner, "from": 1500}
    state["p"][seat]["silver"] = 2
    state = play(state, seat, {"type": "launch"})
    assert state["p"][seat]["silver"] == 0 and state["p"][owner]["silver"] == 3
    assert {"type": "launch"} not in moves(state, seat)
    empty = state.copy()
    empty["step"] = "B_end"
    empty, event = auto(empty)
    assert event["type"] == "launch_refunded" and empty["p"][seat]["silver"] == 2
    assert empty["p"][owner]["silver"] == 2
    state["step"] = "B_end"
    state["ship"]["hold"][seat] = [1, 0, 0]
    state, event = auto(state)
    assert event == ev("ship_sailed", full=False) and state["ship"]["back"] == 1582


def test_ship_9_ship_10_rl_21_rl_61_return_and_shipowner():
    """RIO-SHIP-9, RIO-SHIP-10, RIO-RL-21, RIO-RL-61: on its return the goods are paid; the Shipowner
    gets 1 silver, and 3 VP for a full voyage."""
    state, _ = new_game(3, seed=1)
    state = state.copy()
    state["ship"].update(in_play=True, at_sea=True, back=1580, full=True)
    state["ship"]["hold"][0] = [3, 0, 0]
    state["chars"]["shipowner"] = {"owner": 2, "from": 1500}
    silver = state["p"][0]["silver"]
    state["step"] = "B_end"
    state, event = auto(state)
    assert event["type"] == "ship_returned"
    assert state["p"][0]["silver"] == silver + 3 + 6 and state["p"][0]["vp"] == 3 + 4
    assert state["p"][2]["vp"] == 3 and not state["ship"]["at_sea"]
    assert state["ship"]["hold"] == [[0, 0, 0]] * 3


def test_trade_2_trade_3_rl_27_purchases():
    """RIO-TRADE-2, RIO-TRADE-3, RIO-RL-27, RIO-TRADE-4: purchases cost 1, 2, 3... silver per player
    per round; only stone and wood; money is a count of silver."""
    state, _ = new_game(3, seed=1)
    seat = state["order"][0]
    state = state.copy()
    state["p"][seat]["silver"] = 10
    buys = [m for m in GAME.legal_moves(state, seat) if m["type"] == "buy"]
    assert buys == [{"type": "buy", "good": "stone"}, {"type": "buy", "good": "wood"}]
    for _ in range(3):
        state = play(state, seat, {"type": "buy", "good": "stone"})
    assert state["p"][seat]["silver"] == 10 - 1 - 2 - 3
    state["step"], state["turn"] = "round_end", 0
    state, _ = auto(state)
    assert state["p"][seat]["buys"] == 0


def test_order_3_round_2_war_6_rl_31_round_end():
    """RIO-ORDER-3, RIO-ROUND-2, RIO-WAR-6, RIO-WAR-7, RIO-RL-31, RIO-WAR-1, RIO-GAP-14: at the round's
    end the people on the turn-order track go home, the year advances and the marks move the enemy
    markers, which stop at the end of their tracks."""
    state, _ = new_game(3, seed=1)
    state = state.copy()
    state["otrack"] = [2, 0, 0]
    state["p"][0]["supply"] = 7
    state["enemy"]["pirates"] = len(state.board.enemies["pirates"]["track"]) - 1
    state["step"] = "round_end"
    state, event = auto(state)
    assert event["year"] == 1581 and state["p"][0]["supply"] == 9 and state["otrack"] == [0, 0, 0]
    assert state["enemy"]["pirates"] == len(state.board.enemies["pirates"]["track"]) - 1
    state["step"] = "round_end"
    state, _ = auto(state)
    assert state["year"] == 1582 and state["enemy"]["natives"] == 1


def test_war_8_rl_32_end_after_the_last_war_check():
    """RIO-WAR-8, RIO-RL-32, RIO-END-1: in 1599 the war check is played and then the game ends."""
    state, _ = new_game(3, seed=1)
    state = state.copy()
    state["year"] = 1599
    state["step"] = "roll"
    state = evolve(state, ev("dice_rolled", purpose="war", dice=[6, 6]))
    state, event = auto(state)
    assert event["type"] == "game_ended" and GAME.is_over(state)


def test_end_3_end_4_end_2_rl_24_rl_25_rl_26_rl_66_final_scoring():
    """RIO-END-2, RIO-END-3, RIO-END-4, RIO-RL-24, RIO-RL-25, RIO-RL-26, RIO-RL-66, RIO-RL-29, RIO-CHAR-7:
    money 1 VP per 3 silver; characters' end VP (Road builder per connected district, Protector per
    walled district, Architect per standing major building, Bishop per church and the cathedral)."""
    state, _ = new_game(3, seed=1)
    state = state.copy()
    state["p"][0]["silver"] = 8
    state["roads"] = ["7,3-7,4", "7,2-7,3", "6,2-7,2"]
    state["chars"]["road_builder"] = {"owner": 0, "from": 1600}
    state["chars"]["architect"] = {"owner": 1, "from": 1600}
    state["chars"]["bishop"] = {"owner": 2, "from": 1600}
    state["chars"]["protector"] = {"owner": 2, "from": 1600}
    state["fort"] = True
    set_cell(state, (6, 3), b="cathedral")
    set_cell(state, (0, 0), b="church", pool="church/barracks")
    edges = [k for k, c in state.board.edge_cell.items() if state.board.district[c] == "A"]
    state["walls"] = [f"{a[0]},{a[1]}-{b[0]},{b[1]}" for a, b in edges]
    scoring = final_scoring(state)
    assert scoring[0]["money"] == 2 and scoring[0]["characters"] == 2
    assert scoring[1]["characters"] == 7 * 2
    assert scoring[2]["characters"] == 4 + 4 + 3


def test_end_7_rl_47_tie_breaks():
    """RIO-END-7, RIO-RL-47: most VP, then money, luxury, stone and wood; still tied: shared."""
    state, _ = new_game(3, seed=1)
    state = state.copy()
    for p in state["p"]:
        p.update(vp=10, silver=3, luxury=0, stone=1, wood=1)
    assert winners(state) == [0, 1, 2]
    state["p"][2]["luxury"] = 1
    assert winners(state) == [2]
    state["p"][0]["silver"] = 4
    assert winners(state) == [0]


def test_end_6_road_connected_bonus():
    """RIO-END-6, RIO-ROAD-2: a road-connected district gets +1."""
    state, _ = new_game(3, seed=1)
    state = state.copy()
    assert district_values(state)["B"] == 2
    state["roads"] = ["7,3-7,4", "7,2-7,3", "6,2-7,2"]
    assert district_values(state)["B"] == 3


def test_char_1_char_6_rl_22_characters_held_once():
    """RIO-CHAR-1, RIO-CHAR-6, RIO-RL-22: a character in a player's hands cannot be placed on again; a
    player keeps his characters to the end."""
    state, _ = new_game(3, seed=1)
    seat = state["order"][0]
    state = state.copy()
    state["chars"]["merchant"] = {"owner": 2, "from": 1500}
    names = {m["character"] for m in moves(state, seat) if m.get("space") == "character"}
    assert "merchant" not in names and len(names) == 11


def test_rl_17_field_has_no_capacity():
    """RIO-RL-17, RIO-PLACE-3: the field, the craftsmen and the order track take any number."""
    state, _ = new_game(3, seed=1)
    seat = state["order"][0]
    for _ in range(5):
        state = play(state, seat, {"type": "place", "space": "field"})
    assert state["field"][seat] == 5


def test_act_2_merchant_income_is_a_choice():
    """RIO-ACT-2, RIO-CHAR-8, RIO-RL-23: the Merchant's resource is chosen at the start of the holder's
    action turn; the fixed incomes come with the turn."""
    state, _ = new_game(3, seed=1)
    state = at_turn(state, 0)
    state["chars"]["merchant"] = {"owner": 0, "from": 1500}
    state["chars"]["master_craftsman"] = {"owner": 0, "from": 1500}
    state["step"], state["started"] = "B", False
    state, event = auto(state)
    assert event["income"] == {"luxury": 1} and state["p"][0]["luxury"] == 1
    assert moves(state, 0) == [{"type": "choose_resource", "good": g} for g in ("stone", "wood", "luxury")]
    state = play(state, 0, {"type": "choose_resource", "good": "wood"})
    assert state["p"][0]["wood"] == 3


def test_rl_33_money_unlimited_and_a_complete_game_scores():
    """RIO-RL-33, RIO-END-2: money is never capped; a complete game's VP add up by source."""
    state, _ = random_game(3, seed=8)
    for p in state["p"]:
        assert sum(p["vp_by"].values()) == p["vp"]


def test_rl_48_fort_and_port_stand_off_the_grid():
    """RIO-RL-48, RIO-GAP-9: the fort and the port are not city cells, so no attacker can reach them."""
    state, _ = new_game(3, seed=1)
    state = state.copy()
    state["queue"] = [["fort", 0, 1]]
    state["step"] = "resolve"
    state, _ = auto(state)
    assert state["fort"]
    assert all(c["b"] not in ("fort", "port") for c in state["city"].values())
