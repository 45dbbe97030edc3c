"""Card effects and strength: STR-1..3, WIN-1, SPR-1, DRU-1, BIS-1..2, SCA-1, HER-1, COU-1, SUR-1."""

from __future__ import annotations

from collections import Counter

from games.base import SPECTATOR
from tests.condottiere.scenario import GAME, REGIONS, Table, battle_end, normalise_per_seat


def discarded(events, cause):
    found = [e for e in events if e["type"] == "cards_discarded" and e["cause"] == cause]
    assert found, f"no cards_discarded event with cause {cause}"
    # the Bishop/Scarecrow itself may or may not be listed: only the cards it hit matter here
    return sorted((d["seat"], d["card"]) for e in found for d in e["cards"] if d["card"] != cause)


def test_str_1_sum_of_mercenaries_heroines_courtesans():
    """STR-1: mercenaries' values + 10 per Heroine + 1 per Courtesan."""
    table = Table([["m3", "m5", "heroine", "courtesan", "courtesan"], ["m2"]])
    table.place("Torino")
    table.play_lines({0: ["m3", "m5", "heroine", "courtesan", "courtesan"], 1: ["m2"]})
    assert table.strengths() == [20, 2]
    assert Counter(table.line(0)) == Counter(["m3", "m5", "heroine", "courtesan", "courtesan"])


def test_str_2_winter_then_drummer_order():
    """STR-2: Winter makes a mercenary 1, then a Drummer doubles it: 10 + Drummer + Winter = 2."""
    table = Table([["m10", "drummer", "winter"], ["m4"]])
    table.place("Torino")
    table.play_lines({0: ["m10", "drummer"], 1: ["m4"]})
    assert table.strengths() == [20, 4]
    table.pass_(1)
    table.card(0, "winter")
    assert table.strengths() == [2, 1]


def test_str_2_spring_bonus_added_after_drummer_doubling():
    """STR-2: the Spring's +3 comes after doubling: 4 with Drummer and Spring = 4*2+3 = 11."""
    table = Table([["m4", "drummer", "spring"], ["m2"]])
    table.place("Torino")
    table.play_lines({0: ["m4", "drummer", "spring"], 1: ["m2"]})
    assert table.strengths() == [11, 2]


def test_str_3_spring_ties_all_get_the_bonus():
    """STR-3: highest printed strength across every line, ties included: both 5s get +3."""
    table = Table([["m5", "spring"], ["m5", "m1"], ["m2"]])
    table.place("Lucca")
    table.play_lines({0: ["m5", "spring"], 1: ["m5", "m1"], 2: ["m2"]})
    assert table.strengths() == [8, 9, 2]


def test_str_3_printed_strength_decides_not_the_value():
    """STR-3: with a Drummer a 4 is worth 8, still the 5 is the highest for Spring."""
    table = Table([["m4", "drummer"], ["m5", "spring"]])
    table.place("Lucca")
    table.play_lines({0: ["m4", "drummer"], 1: ["m5", "spring"]})
    assert table.strengths() == [8, 8]


def test_win_1_winter_discards_springs_and_hits_every_line():
    """WIN-1: Winter discards every Spring in play; every mercenary (its player's too) is 1;
    several Winters act as one (RL-1)."""
    table = Table([["m10", "spring", "m6"], ["m6", "winter", "winter"]])
    table.place("Roma")
    table.play_lines({0: ["m10", "spring"], 1: ["m6"]})
    assert table.strengths() == [13, 6]
    events = table.card(1, "winter")
    assert discarded(events, "winter") == [(0, "spring")]
    assert "spring" not in table.line(0)
    assert "winter" in table.line(1)
    assert table.strengths() == [1, 1]
    table.card(0, "m6")
    assert table.strengths() == [2, 1]
    table.card(1, "winter")
    assert table.strengths() == [2, 1]


def test_spr_1_spring_discards_winters():
    """SPR-1: Spring discards every Winter in play (two here); several Springs act as one."""
    table = Table([["m3", "winter", "spring"], ["m2", "winter", "spring"]])
    table.place("Roma")
    table.play_lines({0: ["m3", "winter"], 1: ["m2", "winter"]})
    assert table.strengths() == [1, 1]
    events = table.card(0, "spring")
    assert discarded(events, "spring") == [(0, "winter"), (1, "winter")]
    assert table.strengths() == [6, 2]
    table.card(1, "spring")
    assert table.strengths() == [6, 2]


def test_dru_1_drummer_only_its_own_line():
    """DRU-1: a Drummer doubles only its own line's mercenaries."""
    table = Table([["m5", "drummer"], ["m5"]])
    table.place("Napoli")
    table.play_lines({0: ["m5", "drummer"], 1: ["m5"]})
    assert table.strengths() == [10, 5]


def test_bis_1_bishop_discards_highest_everywhere():
    """BIS-1: every mercenary of the highest printed strength goes, in every line (a passed
    player's and the Bishop's own included); then the Bishop itself is discarded."""
    table = Table([["m6", "m2"], ["m6", "m6", "bishop", "m3"], ["m6", "m5"]])
    table.place("Spoleto")
    table.card(0, "m6")
    table.card(1, "m6")
    table.card(2, "m6")
    table.pass_(0)
    table.card(1, "m6")
    table.card(2, "m5")
    events = table.card(1, "bishop", pope=None)
    assert discarded(events, "bishop") == [(0, "m6"), (1, "m6"), (1, "m6"), (2, "m6")]
    assert table.line(0) == [] and table.line(1) == [] and table.line(2) == ["m5"]
    assert table.strengths() == [0, 0, 5]
    assert table.view()["discard_size"] == 5  # four 6s and the Bishop
    assert table.view()["pope"] is None


def test_bis_2_pope_choice_and_refusals():
    """BIS-2: the Bishop's player puts the Pope on a free region or keeps it off the board; a
    controlled region, an unknown region are refused; legal moves list exactly these choices."""
    table = Table([["m5", "bishop", "bishop"], ["m1"]])
    table.win_battle("Torino", 0, card="m5")
    table.place("Milano")
    legal = [m for m in table.legal(0) if m["type"] == "play" and m["card"] == "bishop"]
    popes = {m.get("pope") for m in legal}
    assert popes == (set(REGIONS) - {"Torino"}) | {None}
    assert table.refuse_code(0, {"type": "play", "card": "bishop", "pope": "Torino"}) == "INVALID_POPE_REGION"
    assert table.refuse_code(0, {"type": "play", "card": "bishop", "pope": "Paris"}) in (
        "INVALID_POPE_REGION",
        "UNKNOWN_REGION",
    )
    events = table.card(0, "bishop", pope="Siena")
    placed = [e for e in events if e["type"] == "pope_placed"]
    assert placed and placed[0]["seat"] == 0 and placed[0]["region"] == "Siena"
    assert table.view()["pope"] == "Siena"
    table.card(1, "m1")
    events = table.card(0, "bishop", pope=None)
    assert [e for e in events if e["type"] == "pope_placed"][0]["region"] is None
    assert table.view()["pope"] is None


def test_sca_1_scarecrow_takes_back_own_mercenary_only():
    """SCA-1: take back one mercenary of one's own line, or none; never a special card, another
    player's card or a discarded card; the Scarecrow is then discarded."""
    table = Table([["m6", "heroine", "scarecrow", "scarecrow", "m2"], ["m5"]])
    table.place("Ferrara")
    table.play_lines({0: ["m6", "heroine"], 1: ["m5"]})
    table.pass_(1)
    assert table.turn == 0
    legal = [m for m in table.legal(0) if m["type"] == "play" and m["card"] == "scarecrow"]
    assert {m.get("take_back") for m in legal} == {"m6", None}
    for bad in ("heroine", "m5", "m10", "m2"):
        cmd = {"type": "play", "card": "scarecrow", "take_back": bad}
        assert table.refuse_code(0, cmd) == "INVALID_TAKE_BACK", bad
    events = table.card(0, "scarecrow", take_back="m6")
    back = [e for e in events if e["type"] == "card_taken_back"]
    assert back and back[0]["seat"] == 0 and back[0]["card"] == "m6"
    # what went back to a hand is that player's secret (protocol: card_taken_back)
    assert GAME.redact(back[0], 1)["card"] is None
    assert GAME.redact(back[0], SPECTATOR)["card"] is None
    assert GAME.redact(back[0], 0)["card"] == "m6"
    assert table.line(0) == ["heroine"]
    assert "m6" in table.hand(0)
    assert "scarecrow" not in table.line(0)
    assert table.hand_size(0) == 8  # 10 - m6 - heroine - scarecrow + m6
    table.card(0, "scarecrow", take_back=None)
    assert table.line(0) == ["heroine"]
    assert table.hand_size(0) == 7
    assert table.view()["discard_size"] == 2


def test_her_1_heroine_unaffected_by_everything():
    """HER-1: Heroine is 10 under Winter, Drummer, Spring and survives a Bishop."""
    table = Table([["heroine", "drummer", "spring", "winter", "bishop"], ["m1"]])
    table.place("Bologna")
    table.play_lines({0: ["heroine", "drummer"], 1: ["m1"]})
    table.pass_(1)
    assert table.strengths() == [10, 1]
    table.card(0, "spring")
    assert table.strengths() == [10, 4]
    table.card(0, "winter")
    assert table.strengths() == [10, 1]
    table.card(0, "bishop", pope=None)
    assert "heroine" in table.line(0)
    assert table.strengths() == [10, 0]


def test_cou_1_courtesan_unaffected_by_everything():
    """COU-1: a Courtesan is 1 with a Drummer, a Winter or a Spring in play."""
    table = Table([["courtesan", "drummer", "winter", "spring"], ["m3"]])
    table.place("Bologna")
    table.play_lines({0: ["courtesan", "drummer"], 1: ["m3"]})
    table.pass_(1)
    assert table.strengths() == [1, 3]
    table.card(0, "spring")
    assert table.strengths() == [1, 6]
    table.card(0, "winter")
    assert table.strengths() == [1, 1]


def test_sur_1_surrender_region_to_strongest_line_now():
    """SUR-1: the battle ends at once; the region goes to the strongest line at that moment, even
    to another player than the one who surrendered; seasons/Drummers stayed in line until then."""
    table = Table([["m2", "surrender"], ["m6", "drummer"], ["m4", "winter"]])
    table.place("Parma")
    table.play_lines({0: ["m2", "m1"], 1: ["m6", "drummer"], 2: ["m4"]})
    assert table.turn == 2
    table.pass_(2)
    assert "drummer" in table.line(1)
    events = table.card(0, "surrender")
    end = battle_end(events)
    assert end["cause"] == "surrender"
    assert normalise_per_seat(end["strengths"], 3) == [3, 12, 4]
    assert end["winner"] == 1
    assert table.owner("Parma") == 1


def test_sur_1_surrender_tie_gives_nobody_the_region():
    """SUR-1 / END-2: surrender with the top strengths tied: no winner."""
    table = Table([["m5", "surrender"], ["m5"]])
    table.place("Parma")
    table.play_lines({0: ["m5"], 1: ["m5"]})
    events = table.card(0, "surrender")
    assert battle_end(events)["winner"] is None
    assert table.owner("Parma") is None


def test_seasons_visible_to_every_viewer():
    """WIN-1 / BAT-8: the effect of a Winter shows in every viewer's strengths."""
    table = Table([["m10", "winter"], ["m6"]])
    table.place("Roma")
    table.play_lines({0: ["m10"], 1: ["m6"]})
    table.card(0, "winter")
    for viewer in (0, 1, SPECTATOR):
        assert [p["strength"] for p in GAME.view(table.state, viewer)["players"]] == [1, 1]
