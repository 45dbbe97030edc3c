"""Rulings where the books are silent: RL-1..10 (RL-4, RL-5, RL-6 with the options, RL-9 with
the classic edition; they are restated here where a second angle helps)."""

from __future__ import annotations

import random

from games.base import FULL, fold
from tests.condottiere.scenario import GAME, Table, battle_end, make_config
from tests.condottiere.test_properties import play_random_game


def test_rl_1_second_winter_or_spring_adds_nothing():
    """RL-1: a Winter while a Winter is in play, a Spring while a Spring is in play: no change."""
    table = Table([["m6", "winter", "winter", "m3"], ["m4", "spring", "spring"]])
    table.place("Torino")
    table.play_lines({0: ["m6", "winter"], 1: ["m4"]})
    assert table.strengths() == [1, 1]
    table.pass_(1)
    table.card(0, "winter")
    assert table.strengths() == [1, 1]
    assert table.line(0).count("winter") == 2

    table = Table([["m6"], ["m4", "spring", "spring"]])
    table.place("Torino")
    table.play_lines({0: ["m6"], 1: ["m4", "spring"]})
    assert table.strengths() == [9, 4]
    table.pass_(0) if table.turn == 0 else None
    table.card(1, "spring")
    assert table.strengths() == [9, 4]


def test_rl_2_pope_on_the_battle_region():
    """RL-2: the Bishop may put the Pope on the region being fought over: the battle goes on, and
    that region cannot be chosen afterwards."""
    table = Table([["bishop"], ["m2"]])
    table.place("Firenze")
    events = table.card(0, "bishop", pope="Firenze")
    assert not [e for e in events if e["type"] == "battle_ended"]
    assert table.phase == "battle" and table.view()["pope"] == "Firenze"
    table.pass_(1)
    table.pass_(0)
    assert battle_end(table.log)["winner"] is None
    holder = table.holder
    assert table.refuse_code(holder, {"type": "place_token", "region": "Firenze"}) == "REGION_NOT_ALLOWED"


def test_rl_2_pope_on_battle_region_winner_still_takes_it():
    """RL-2: the battle under the Pope goes on to its end and its winner takes the region."""
    table = Table([["bishop", "m3"], ["m2"]])
    table.place("Firenze")
    table.card(0, "bishop", pope="Firenze")
    table.play_lines({0: ["m3"], 1: ["m2"]}, then_pass=True)
    assert table.owner("Firenze") == 0


def test_rl_3_hand_discards_after_the_new_region_in_any_order():
    """RL-3: hand discards come after the new region is chosen; any order; the battle starts
    when all have answered."""
    specials = ["scarecrow"] * 10
    table = Table([["m5"], specials[:], ["courtesan"] * 10])
    table.win_battle("Torino", 0, card="m5")
    assert not table.events_of("hand_discard_offered")
    table.place("Milano")
    assert table.phase == "hand_discard" and table.turn is None
    assert sorted(table.awaiting) == [1, 2]
    table.do(1, {"type": "discard_hand", "discard": False})
    assert table.phase == "hand_discard" and table.awaiting == [2]
    table.do(2, {"type": "discard_hand", "discard": True})
    assert table.phase == "battle" and table.turn == 0
    assert table.view()["battle"]["region"] == "Milano"


def test_rl_7_drawing_is_automatic_from_the_token_holder():
    """RL-7: with draw after battle, everyone draws automatically, seat order from the holder."""
    top = ["m10", "m10", "m10", "m6", "m6", "m6", "m5", "m5", "m5"]
    table = Table([["m4"], ["m3"], ["m2"]], options={"draw_after_battle": True}, deck_next=top)
    table.win_battle("Roma", 2, card="m2")
    draws = table.events_of("cards_drawn")
    assert [e["seat"] for e in draws] == [2, 0, 1]
    assert sorted(draws[0]["cards"]) == ["m10", "m10", "m10"]
    assert sorted(draws[1]["cards"]) == ["m6", "m6", "m6"]
    assert table.phase == "place_token" and table.awaiting == [2]


def test_rl_7_discard_pile_reshuffled_when_the_deck_runs_out():
    """RL-7: when the deck runs out during the draw, the discard pile becomes a new (recorded)
    deck and the draw goes on; card counts stay whole (also checked at every step by the runner)."""
    for seed in range(20):
        config = make_config(4, options={"draw_after_battle": True, "capturing": True}, seed=seed, first=None)
        log, _ = play_random_game(config, random.Random(seed), checks=True)
        marks = [i for i, e in enumerate(log) if e["type"] == "deck_shuffled" and e["reason"] == "reshuffle"]
        if marks:
            break
    else:
        raise AssertionError("no random draw-after-battle game ran out of cards in 20 seeds")
    index = marks[0]
    before = GAME.view(fold(GAME, log[:index]), FULL)
    after = GAME.view(fold(GAME, log[: index + 1]), FULL)
    assert before["deck_size"] == 0
    assert len(log[index]["cards"]) == before["discard_size"] > 0
    assert after["deck_size"] == before["discard_size"] and after["discard_size"] == 0
    assert sorted(after["deck"]) == sorted(log[index]["cards"])
    assert log[index - 1]["type"] == "cards_drawn" or log[index + 1]["type"] == "cards_drawn"
    assert log[index + 1]["type"] == "cards_drawn"


def test_rl_8_next_game_of_a_match_starts_left_of_previous_first():
    """RL-8: playing for points: game 2 starts with the left neighbour of game 1's first."""
    table = Table([], players=3, first=2, options={"points_target": 50})
    for region in ("Roma", "Siena", "Napoli", "Spoleto"):
        table.win_battle(region, 1)
    assert table.last("game_won")["winners"] == [1]
    assert table.last("first_condottiere_chosen")["seat"] == 0
    assert table.holder == 0 and table.awaiting == [0]


def test_rl_10_seed_reproducible_and_deals_recorded():
    """RL-10: the same configuration gives the same genesis; different seeds differ; the shuffle
    and deals are in the log, so folding the log needs no randomness."""
    config = make_config(4, seed=1234, first=None)
    events = GAME.start(config)
    assert events == GAME.start(config)
    other = GAME.start(make_config(4, seed=1235, first=None))
    deck = [e for e in events if e["type"] == "deck_shuffled"][0]
    assert deck["reason"] == "start" and len(deck["cards"]) == 110
    assert deck["cards"] != [e for e in other if e["type"] == "deck_shuffled"][0]["cards"]
    dealt = [e for e in events if e["type"] == "cards_dealt"]
    assert [e["seat"] for e in dealt] == [0, 1, 2, 3]
    for e in dealt:
        assert e["cards"] == deck["cards"][10 * e["seat"] : 10 * e["seat"] + 10] or sorted(
            e["cards"]
        ) == sorted(deck["cards"][10 * e["seat"] : 10 * e["seat"] + 10])
    state = fold(GAME, events)
    view = GAME.view(state, FULL)
    for e in dealt:
        assert sorted(view["players"][e["seat"]]["hand"]) == sorted(e["cards"])
    assert GAME.verify_log(events) is None


def test_rl_10_deck_order_replaces_the_first_shuffle():
    """RL-10: a configured deck order is the recorded first deck."""
    table = Table([["m10"] * 3], players=2)
    shuffled = table.events_of("deck_shuffled")[0]
    assert shuffled["cards"] == table.deck_order
