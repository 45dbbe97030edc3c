"""The classic edition (96 cards): CL-1..7 (and RL-9)."""

from __future__ import annotations

from collections import Counter

import pytest

from games.base import FULL, ConfigError, fold
from tests.condottiere.scenario import (
    DECK_CLASSIC,
    GAME,
    MERCENARIES,
    REGIONS,
    Table,
    battle_end,
    build_deck,
    conquer,
    largest_connected,
    make_config,
    normalise_per_seat,
    three_regions_then_round_end,
)

CLASSIC = "classic"
# all 17 regions, nobody with 3 adjacent (4 players)
CLASSIC_SOLE = [
    ["Siena", "Lucca", "Mantova", "Roma", "Urbino"],
    ["Bologna", "Venezia", "Firenze", "Genova"],
    ["Modena", "Ferrara", "Spoleto", "Torino"],
    ["Ancona", "Parma", "Milano", "Napoli"],
]
CLASSIC_TIE = [
    ["Modena", "Torino", "Napoli", "Venezia", "Lucca"],
    ["Siena", "Parma", "Genova", "Ferrara", "Urbino"],
    ["Ancona", "Spoleto", "Bologna", "Mantova"],
    ["Milano", "Roma", "Firenze"],
]


@pytest.mark.parametrize("assignment", [CLASSIC_SOLE, CLASSIC_TIE])
def test_cl_2_assignments_have_no_adjacent_win(assignment):
    """CL-2 (test data check): the scripted conquests never reach 3 adjacent."""
    assert sorted(r for rs in assignment for r in rs) == sorted(REGIONS)
    assert all(largest_connected(rs) <= 2 for rs in assignment)


def test_cl_1_classic_deck_of_96():
    """CL-1: 96 cards: 1 x15; 2,3,4,5,6,10 x8; Winter 3, Drummer 6, Scarecrow 15, Heroine 3,
    Surrender 3, Bishop 3; no Spring, no Courtesan, no Pope."""
    state = fold(GAME, GAME.start(make_config(3, ruleset=CLASSIC, seed=4, first=None)))
    view = GAME.view(state, FULL)
    cards = Counter(view["deck"])
    for player in view["players"]:
        cards.update(player["hand"])
    assert cards == Counter(DECK_CLASSIC) and sum(cards.values()) == 96
    assert view["deck_size"] == 96 - 30
    assert view.get("pope") is None
    with pytest.raises(ConfigError) as info:
        GAME.configure({"players": 3, "ruleset": CLASSIC, "seed": 1, "deck_order": build_deck([], players=3)})
    assert info.value.code == "INVALID_DECK_ORDER"


def test_cl_2_only_adjacent_regions_win():
    """CL-2: 4 players: five scattered regions do not win; three adjacent do."""
    table = Table([], players=4, ruleset=CLASSIC)
    for region in ("Torino", "Venezia", "Lucca", "Siena", "Napoli"):
        table.win_battle(region, 0)
    assert not GAME.is_over(table.state)
    table.win_battle("Ancona", 0)  # Ancona borders Napoli: only 2 adjacent
    assert not GAME.is_over(table.state)
    table.win_battle("Spoleto", 0)  # Napoli-Ancona-Spoleto
    result = GAME.result(table.state)
    assert result["winners"] == [0] and result["reason"] == "adjacent"


def test_cl_2_two_players_four_adjacent():
    """CL-2: with 2 players, 4 adjacent."""
    table = Table([], players=2, ruleset=CLASSIC)
    for region in ("Roma", "Siena", "Firenze"):
        table.win_battle(region, 1)
    assert not GAME.is_over(table.state)
    table.win_battle("Napoli", 1)
    assert GAME.result(table.state)["reason"] == "adjacent"


def test_cl_2_all_conquered_most_regions_wins():
    """CL-2: every region conquered without an adjacent win: most regions wins."""
    table = Table([], players=4, ruleset=CLASSIC)
    conquer(table, CLASSIC_SOLE)
    result = GAME.result(table.state)
    assert result["winners"] == [0] and result["reason"] == "most_regions"


def test_cl_2_final_battle_ten_plus_two_per_region_and_no_winner_on_tie():
    """CL-2: a tie on most regions: final battle, each tied player dealt 10 + 2 per region; if it
    has no winner, the game ends without a winner."""
    table = Table([], players=4, ruleset=CLASSIC)
    conquer(table, CLASSIC_TIE, last_winner=1)
    started = table.last("final_battle_started")
    assert sorted(started["seats"]) == [0, 1] and started["first"] == 1
    view = table.view()
    assert [p["hand_size"] for p in view["players"]] == [20, 20, 0, 0]
    assert view["deck_size"] == 96 - 40
    table.pass_(1)
    table.pass_(0)
    result = GAME.result(table.state)
    assert result["winners"] == [] and result["reason"] == "no_winner"
    assert table.last("game_won")["winners"] == []


def test_cl_3_bishop_ends_battle_without_victor():
    """CL-3 / CL-4: a Bishop ends the battle at once, no victor, every played card discarded;
    the token goes to the left neighbour of the holder; no Pope."""
    table = Table([["m10", "bishop"], ["m2"], ["m3"]], ruleset=CLASSIC)
    table.place("Lucca")
    table.card(0, "m10")
    table.card(1, "m2")
    table.card(2, "m3")
    legal = [m for m in table.legal(0) if m["type"] == "play" and m["card"] == "bishop"]
    assert legal == [{"type": "play", "card": "bishop"}]
    events = table.card(0, "bishop")
    end = battle_end(events)
    assert end["winner"] is None and end["cause"] == "bishop"
    assert table.owner("Lucca") is None
    assert not [e for e in events if e["type"] == "pope_placed"]
    passed = table.last("token_passed")
    assert passed["seat"] == 1 and passed["cause"] == "left_neighbour"
    table.place("Roma")
    view = table.view()
    assert all(p["line"] == [] for p in view["players"])
    assert view["discard_size"] == 4
    assert table.total_cards() == 96


def test_cl_4_victor_takes_token_else_left_neighbour():
    """CL-4: the victor takes the token; a tie sends it to the holder's left neighbour."""
    table = Table([], players=3, ruleset=CLASSIC, first=1)
    table.win_battle("Roma", 0)
    assert table.holder == 0 and table.last("token_passed")["cause"] == "winner"
    table.tie_battle("Siena")
    assert table.holder == 1


def test_cl_5_decline_passes_the_choice_left():
    """CL-5: the holder may decline; the left neighbour then chooses or declines; not in 2006."""
    table = Table([], players=3, ruleset=CLASSIC, first=2)
    assert {"type": "decline_token"} in table.legal(2)
    events = table.do(2, {"type": "decline_token"})
    declined = [e for e in events if e["type"] == "token_declined"][0]
    assert declined["seat"] == 2 and declined["to"] == 0
    assert table.awaiting == [0]
    assert table.refuse_code(2, {"type": "place_token", "region": "Roma"}) == "NOT_YOUR_TURN"
    table.place("Roma", seat=0)
    assert table.turn == 0

    modern = Table([], players=3)
    assert {"type": "decline_token"} not in modern.legal(0)
    assert modern.refuse_code(0, {"type": "decline_token"}) == "CANNOT_DECLINE"


def test_rl_9_after_everyone_declined_the_next_must_choose():
    """RL-9: when every player has declined in turn since the last battle, the next must choose."""
    table = Table([], players=3, ruleset=CLASSIC, first=0)
    for seat in (0, 1, 2):
        assert table.spectator()["declines"] == seat
        table.do(seat, {"type": "decline_token"})
    assert table.awaiting == [0]
    assert table.spectator()["declines"] == 3
    assert {"type": "decline_token"} not in table.legal(0)
    assert table.refuse_code(0, {"type": "decline_token"}) == "CANNOT_DECLINE"
    table.place("Napoli", seat=0)
    assert table.phase == "battle"


def test_cl_6_round_end_cards_discarded_deal_ten_plus_two_per_region():
    """CL-6 / EX-7: classic round end: the last holder's cards are discarded (no keeping), all 96
    shuffled, 10 + 2 per region: three regions -> 16 cards."""
    table = three_regions_then_round_end(CLASSIC)
    table.place("Roma")
    assert table.phase == "battle"
    assert not table.events_of("cards_kept") or table.last("cards_kept")["kept"] == []
    assert table.last("deck_shuffled")["reason"] == "round"
    assert len(table.last("deck_shuffled")["cards"]) == 96
    assert table.hand_size(0) == 16
    assert table.hand_size(1) == 12
    assert table.total_cards() == 96


def test_ex_7_dealing_2006_thirteen_cards():
    """EX-7 / RND-3: 2006: no cards in hand and three regions: 13 cards."""
    table = three_regions_then_round_end("2006")
    table.place("Roma")
    assert table.phase == "keep_cards"
    table.do(0, {"type": "keep_cards", "cards": []})
    assert table.hand_size(0) == 13
    assert table.hand_size(1) == 11
    assert table.total_cards() == 110


def capture_classic() -> Table:
    """Seat 1 owns Torino; seat 2 holds the token (classic, capturing)."""
    table = Table(
        [["surrender", "bishop", "m2"], ["m6"], ["m1", "m1", "m1", "surrender", "bishop"]],
        players=3,
        ruleset=CLASSIC,
        options={"capturing": True},
    )
    table.win_battle("Torino", 1, card="m6")
    table.tie_battle("Roma")
    assert table.holder == 2
    table.place("Torino")
    assert table.view()["battle"]["defender"] == 1
    return table


def test_cl_7_capturing_defender_keeps_city_and_token_when_nobody_wins():
    """CL-7: capturing (classic): nobody wins: the defender keeps the city and takes the token."""
    table = capture_classic()
    table.pass_(2)
    table.pass_(0)
    table.pass_(1)
    assert table.owner("Torino") == 1
    assert table.holder == 1


def test_cl_7_capturing_defender_wins_keeps_city_and_token():
    """CL-7: the defender wins: he keeps the city and receives the token."""
    table = capture_classic()
    table.card(2, "m1")
    table.pass_(0)
    table.card(1, next(c for c in table.hand(1) if c in MERCENARIES and c != "m1"))
    table.pass_(2)
    table.pass_(1)
    assert table.last("battle_ended")["winner"] == 1
    assert table.owner("Torino") == 1
    assert table.holder == 1


def test_cl_7_capturing_surrender_before_defender_played():
    """CL-7: a Surrender before the defender has played: the city falls to the strongest line."""
    table = capture_classic()
    table.card(2, "m1")
    table.card(0, "m2")
    table.pass_(1)  # not final (defender)
    events = table.card(2, "surrender")
    end = battle_end(events)
    assert end["cause"] == "surrender" and end["winner"] == 0
    assert table.owner("Torino") == 0
    assert table.last("region_won")["from"] == 1


def test_cl_7_capturing_bishop_city_stays():
    """CL-7 / CL-3: a Bishop in a capture battle: no victor, the city stays with its owner."""
    table = capture_classic()
    table.card(2, "m1")
    table.card(0, "m2")
    table.pass_(1)
    events = table.card(2, "bishop")
    assert battle_end(events)["winner"] is None
    assert table.owner("Torino") == 1


def test_cl_7_bigger_kingdoms_and_points():
    """CL-7: bigger kingdoms (4 adjacent with 4 players) and playing for points (first to reach
    the target at the end of a game wins the match)."""
    table = Table([], players=4, ruleset=CLASSIC, options={"bigger_kingdoms": True, "points_target": 4})
    for region in ("Roma", "Siena", "Napoli"):
        table.win_battle(region, 2)
    assert not GAME.is_over(table.state)
    table.win_battle("Spoleto", 2)
    assert table.last("game_won")["reason"] == "adjacent"
    match = table.last("match_won")
    assert match["winners"] == [2]
    assert normalise_per_seat(match["scores"], 4)[2] >= 4
    assert GAME.is_over(table.state)


def test_cl_6_classic_hand_discard_then_round_end():
    """CL-6 / END-7: classic hands without mercenaries may be discarded; if that leaves one player
    holding cards the round ends: his cards are discarded too and everyone is dealt 10 + 2 per
    region."""
    table = Table([["m5"], ["scarecrow"] * 10], ruleset=CLASSIC)
    table.win_battle("Torino", 0, card="m5")
    table.place("Milano")
    assert table.phase == "hand_discard" and table.awaiting == [1]
    table.do(1, {"type": "discard_hand", "discard": True})
    assert table.last("round_ended")["holder"] == 0
    assert table.phase == "battle"
    assert [table.hand_size(s) for s in range(2)] == [12, 10]
    assert table.total_cards() == 96
