"""The rules' worked examples as test vectors: EX-1..12."""

from __future__ import annotations

from games.base import SPECTATOR
from tests.condottiere.scenario import (
    GAME,
    Table,
    battle_end,
    normalise_per_seat,
    three_regions_then_round_end,
)


def test_ex_1_winter():
    """EX-1: Mercenaries 10, 10, 5, 4 are 29; with a Winter in play, 4."""
    table = Table([["m10", "m10", "m5", "m4", "winter"], ["m1"]])
    table.place("Torino")
    table.play_lines({0: ["m10", "m10", "m5", "m4"], 1: ["m1"]})
    assert table.strengths()[0] == 29
    table.card(0, "winter")
    assert table.strengths()[0] == 4


def test_ex_2_spring_two_players():
    """EX-2: A has 2, 5, 5; B has 1, 4, a Heroine and a Spring: A = 18, B = 15."""
    table = Table([["m2", "m5", "m5"], ["m1", "m4", "heroine", "spring"]])
    table.place("Torino")
    table.play_lines({0: ["m2", "m5", "m5"], 1: ["m1", "m4", "heroine", "spring"]})
    assert table.strengths() == [18, 15]
    events = table.pass_all()
    assert normalise_per_seat(battle_end(events)["strengths"], 2) == [18, 15]
    assert battle_end(events)["winner"] == 0


def test_ex_3_bishop():
    """EX-3: A has 6, 3, 1, 1; B has 6, 1, 1 and plays a Bishop: both 6s go, A = 5, B = 2; B then
    places the Pope or keeps it off the board."""
    table = Table([["m6", "m3", "m1", "m1"], ["m6", "m1", "m1", "bishop"]])
    table.place("Torino")
    table.play_lines({0: ["m6", "m3", "m1", "m1"], 1: ["m6", "m1", "m1"]})
    assert table.strengths() == [11, 8]
    assert table.turn == 1
    choices = {m.get("pope") for m in table.legal(1) if m.get("card") == "bishop"}
    assert None in choices and "Roma" in choices
    events = table.card(1, "bishop", pope="Roma")
    assert table.strengths() == [5, 2]
    assert sorted(table.line(0)) == ["m1", "m1", "m3"] and table.line(1) == ["m1", "m1"]
    assert [e["region"] for e in events if e["type"] == "pope_placed"] == ["Roma"]


def test_ex_4_drummer():
    """EX-4: three mercenaries worth 21 with a Drummer are 42; with a Winter also in play, 6."""
    table = Table([["m10", "m6", "m5", "drummer"], ["winter"]])
    table.place("Torino")
    table.play_lines({0: ["m10", "m6", "m5"], 1: []})
    assert table.strengths()[0] == 21
    table.card(0, "drummer")
    assert table.strengths()[0] == 42
    table2 = Table([["m10", "m6", "m5", "drummer"], ["winter"]])
    table2.place("Torino")
    table2.play_lines({0: ["m10", "m6", "m5", "drummer"], 1: ["winter"]})
    assert table2.strengths()[0] == 6


def test_ex_5_drummer_and_spring():
    """EX-5: Mercenaries 2 and 4 with a Drummer, a Spring in play, 4 the highest: 15."""
    table = Table([["m2", "m4", "drummer"], ["spring", "m3"]])
    table.place("Torino")
    table.play_lines({0: ["m2", "m4", "drummer"], 1: ["m3", "spring"]})
    assert table.strengths() == [15, 3]


def test_ex_6_hidden_cards_and_bishop():
    """EX-6: A has 6, 6 face up and 10 face down; B has 5, 1, 1 and plays a Bishop: both 6s are
    discarded, A's hidden 10 stays."""
    table = Table([["m6", "m6", "m10"], ["m5", "m1", "m1", "bishop"]], options={"hidden_cards": True})
    table.place("Torino")
    table.play_lines({0: ["m6", "m6", "m10"], 1: ["m5", "m1", "m1"]})
    table.pass_(0)
    line_a = table.view(1)["players"][0]["line"]
    assert line_a == [
        {"card": "m6", "face_down": False},
        {"card": "m6", "face_down": False},
        {"card": None, "face_down": True},
    ]
    table.card(1, "bishop", pope=None)
    assert table.line(0) == ["m10"]
    assert table.view(0)["players"][0]["line"] == [{"card": "m10", "face_down": True}]
    assert table.view(SPECTATOR)["players"][0]["strength"] == 0
    assert sorted(table.line(1)) == ["m1", "m1", "m5"]
    events = table.pass_all()
    assert normalise_per_seat(battle_end(events)["strengths"], 2) == [10, 7]


def test_ex_7_dealing_thirteen_and_sixteen():
    """EX-7: 0 cards in hand and 3 regions: 13 cards (2006), 16 cards (classic)."""
    modern = three_regions_then_round_end("2006")
    modern.place("Roma")
    modern.do(0, {"type": "keep_cards", "cards": []})
    assert modern.hand_size(0) == 13
    classic = three_regions_then_round_end("classic")
    classic.place("Roma")
    assert classic.hand_size(0) == 16


def test_ex_8_draw_after_battle_draws_two():
    """EX-8: draw after battle: 9 cards in hand and 1 region: draws 2."""
    table = Table([], players=2, options={"draw_after_battle": True})
    table.tie_battle("Torino")
    holder = table.holder
    assert table.hand_size(holder) == 10
    table.win_battle("Milano", holder)
    last = [e for e in table.log if e["type"] == "cards_drawn" and e["seat"] == holder][-1]
    assert len(last["cards"]) == 2
    assert table.hand_size(holder) == 11


def test_ex_9_classic_winter():
    """EX-9: classic: Mercenaries 10, 10, 5, 4, 4, 1, 1, 1 are 36; with a Winter, 8."""
    cards = ["m10", "m10", "m5", "m4", "m4", "m1", "m1", "m1"]
    table = Table([cards + ["winter"], ["m2"]], ruleset="classic")
    table.place("Torino")
    table.play_lines({0: cards, 1: []})
    assert table.strengths()[0] == 36
    table.card(0, "winter")
    assert table.strengths()[0] == 8


def test_ex_10_drummers_do_not_stack():
    """EX-10 / DRU-1: Mercenary 3 with two Drummers is 6."""
    table = Table([["m3", "drummer", "drummer"], ["m1"]])
    table.place("Torino")
    table.play_lines({0: ["m3", "drummer", "drummer"], 1: []})
    assert table.strengths()[0] == 6


def test_ex_11_courtesan_takes_token_from_winner():
    """EX-11: A plays a 10 and wins; B holds the only Courtesan: A places his marker, B takes the
    token and chooses the next region."""
    table = Table([["m10"], ["courtesan"]])
    table.place("Torino")
    table.play_lines({0: ["m10"], 1: ["courtesan"]}, then_pass=True)
    assert table.owner("Torino") == 0
    assert table.holder == 1 and table.awaiting == [1]
    table.place("Roma", seat=1)
    assert table.turn == 1


def test_ex_12_courtesan_tie_and_strength_tie_left_neighbour():
    """EX-12: Courtesans tie and strengths tie: the token goes to the previous holder's left
    neighbour."""
    table = Table([["courtesan"], [], [], ["courtesan"]], first=1)
    table.place("Torino")
    table.play_lines({3: ["courtesan"], 0: ["courtesan"]}, then_pass=True)
    end = table.last("battle_ended")
    assert normalise_per_seat(end["strengths"], 4) == [1, 0, 0, 1] and end["winner"] is None
    passed = table.last("token_passed")
    assert passed["seat"] == 2 and passed["cause"] == "left_neighbour"
    assert GAME.view(table.state, SPECTATOR)["condottiere"] == 2
