"""Winning (2006 edition): VIC-1..4 (and END-5's "no region left")."""

from __future__ import annotations

import pytest

from tests.condottiere.scenario import (
    GAME,
    MERCENARIES,
    PRINTED,
    REGIONS,
    Table,
    conquer,
    largest_connected,
)

SCATTERED_6 = ["Torino", "Venezia", "Lucca", "Siena", "Napoli", "Urbino"]

# Every region conquered, nobody reaching 5 in total or 3 adjacent (checked below).
SOLE_LEADER = [
    ["Modena", "Torino", "Urbino", "Napoli"],
    ["Firenze", "Ferrara", "Parma"],
    ["Spoleto", "Milano", "Mantova"],
    ["Venezia", "Lucca", "Siena"],
    ["Roma", "Ancona"],
    ["Bologna", "Genova"],
]
TWO_LEADERS = [
    ["Venezia", "Ancona", "Genova", "Napoli"],
    ["Firenze", "Milano", "Lucca", "Ferrara"],
    ["Siena", "Roma", "Parma"],
    ["Modena", "Bologna"],
    ["Mantova", "Torino"],
    ["Spoleto", "Urbino"],
]


@pytest.mark.parametrize("assignment", [SOLE_LEADER, TWO_LEADERS])
def test_assignments_reach_no_victory_threshold(assignment):
    """VIC-1 / MAP-2 (test data check): the scripted conquests never reach 5 total or 3 adjacent."""
    assert sorted(r for regions in assignment for r in regions) == sorted(REGIONS)
    for regions in assignment:
        assert len(regions) <= 4 and largest_connected(regions) <= 2


def test_vic_1_five_regions_in_total_win_with_four_players():
    """VIC-1: 4 players: five scattered regions win (reason total); four do not."""
    table = Table([], players=4)
    for region in SCATTERED_6[:4]:
        table.win_battle(region, 3)
    assert not GAME.is_over(table.state)
    table.win_battle(SCATTERED_6[4], 3)
    result = GAME.result(table.state)
    assert result["winners"] == [3] and result["reason"] == "total"
    won = table.last("game_won")
    assert won["winners"] == [3] and won["reason"] == "total"


def test_vic_1_three_adjacent_win_with_six_players():
    """VIC-1: 6 players: three adjacent regions win (reason adjacent)."""
    table = Table([], players=6)
    table.win_battle("Siena", 4)
    table.win_battle("Torino", 1)
    table.win_battle("Roma", 4)
    assert not GAME.is_over(table.state)
    table.win_battle("Napoli", 4)
    result = GAME.result(table.state)
    assert result == {**result, "winners": [4], "reason": "adjacent"}


def test_vic_2_two_players_need_four_adjacent():
    """VIC-2: with 2 players three adjacent do not win, four do."""
    table = Table([], players=2)
    for region in ("Torino", "Milano", "Venezia"):
        table.win_battle(region, 1)
    assert not GAME.is_over(table.state)
    table.win_battle("Mantova", 1)
    result = GAME.result(table.state)
    assert result["winners"] == [1] and result["reason"] == "adjacent"


def test_vic_2_three_players_need_six_in_total():
    """VIC-2: with 3 players five scattered regions do not win, six do."""
    table = Table([], players=3)
    for region in SCATTERED_6[:5]:
        table.win_battle(region, 0)
    assert not GAME.is_over(table.state)
    table.win_battle(SCATTERED_6[5], 0)
    result = GAME.result(table.state)
    assert result["winners"] == [0] and result["reason"] == "total"


def test_vic_3_no_region_left_most_regions_wins():
    """VIC-3 / END-5: every region controlled, nobody at a threshold: most regions wins."""
    table = Table([], players=6)
    conquer(table, SOLE_LEADER)
    assert GAME.is_over(table.state)
    result = GAME.result(table.state)
    assert result["winners"] == [0] and result["reason"] == "most_regions"
    assert table.last("game_won")["reason"] == "most_regions"
    assert not table.events_of("final_battle_started")


def test_vic_3_only_free_region_has_the_pope():
    """VIC-3 / PIECE-2: sixteen regions controlled and the Pope on the seventeenth: game over."""
    hands = [["bishop"]]
    table = Table(hands, players=6)
    # seat 0 opens the first battle with a Bishop putting the Pope on Roma, then wins Modena
    table.place("Modena")
    table.card(0, "bishop", pope="Roma")
    table.play_lines({0: ["m1"]}, then_pass=True)
    assert table.owner("Modena") == 0
    assignment = [regions[:] for regions in SOLE_LEADER]
    assignment[0].remove("Modena")
    conquer(table, assignment, skip="Roma")
    assert GAME.is_over(table.state)
    assert table.owner("Roma") is None
    result = GAME.result(table.state)
    assert result["winners"] == [0] and result["reason"] == "most_regions"


def best_mercenary(hand):
    mercs = [c for c in hand if c in MERCENARIES]
    return max(mercs, key=PRINTED.get) if mercs else None


def test_vic_4_tie_broken_by_a_final_battle():
    """VIC-4: two players tied on most regions fight a final battle: hands discarded, all 110
    cards shuffled, each tied player dealt 10 + 1 per region, the holder (a tied player) first,
    no region; its winner wins."""
    table = Table([], players=6)
    conquer(table, TWO_LEADERS, last_winner=1)
    started = table.last("final_battle_started")
    assert sorted(started["seats"]) == [0, 1]
    assert started["first"] == 1
    shuffled = table.last("deck_shuffled")
    assert shuffled["reason"] == "final_battle" and len(shuffled["cards"]) == 110
    view = table.view()
    assert [p["hand_size"] for p in view["players"]] == [14, 14, 0, 0, 0, 0]
    assert view["deck_size"] == 110 - 28
    assert view["battle"]["final"] is True and view["battle"]["region"] is None
    assert table.turn == 1
    card = best_mercenary(table.hand(1))
    assert card, "seed gave seat 1 no mercenary; change the seed"
    table.card(1, card)
    table.pass_(0)
    table.pass_(1)
    end = table.last("battle_ended")
    assert end["region"] is None and end["winner"] == 1
    result = GAME.result(table.state)
    assert result["winners"] == [1] and result["reason"] == "final_battle"
    assert table.regions_of(1) == sorted(TWO_LEADERS[1])


def test_vic_4_final_battle_tie_shares_the_victory():
    """VIC-4: the final battle ends tied: the tied players share the victory; first player is the
    tied player nearest to the holder's left when the holder is not tied."""
    table = Table([], players=6)
    conquer(table, TWO_LEADERS, last_winner=4)
    assert table.holder == 4
    started = table.last("final_battle_started")
    assert started["first"] == 0  # 5 is not tied, then 0
    assert table.turn == 0
    table.pass_(0)
    table.pass_(1)
    result = GAME.result(table.state)
    assert sorted(result["winners"]) == [0, 1] and result["reason"] == "final_battle"
    assert table.total_cards() == 110
