"""Rounds and dealing (2006 edition): RND-1..4."""

from __future__ import annotations

from tests.condottiere.scenario import GAME, Table


def empty_seat_0_winning_torino(players: int = 2) -> Table:
    """Seat 0 plays all ten cards alone in the first battle and wins Torino with his last card;
    the other seats keep their ten cards."""
    table = Table([["m1"] * 10] + [["m2"]] * (players - 1))
    table.place("Torino")
    table.card(0, "m1")
    for seat in range(1, players):
        table.pass_(seat)
    for _ in range(9):
        table.card(0, "m1")
    assert table.owner("Torino") == 0
    return table


def test_rnd_1_rnd_2_round_ends_when_one_player_holds_cards():
    """RND-1, RND-2: after END-7 only seat 1 holds cards: the round ends and he keeps at most two
    of his choice; refusals: more than two cards, cards he does not hold, another seat."""
    table = empty_seat_0_winning_torino()
    table.place("Milano")  # END-5 before the round ends
    assert table.phase == "keep_cards"
    assert table.awaiting == [1]
    ended = table.last("round_ended")
    assert ended["holder"] == 1
    hand = table.hand(1)
    assert table.refuse_code(1, {"type": "keep_cards", "cards": hand[:3]}) == "TOO_MANY_CARDS"
    assert table.refuse_code(1, {"type": "keep_cards", "cards": ["m10"]}) == "CARD_NOT_IN_HAND"
    assert table.refuse_code(1, {"type": "keep_cards", "cards": ["m2", "m2", "m2"]}) in (
        "TOO_MANY_CARDS",
        "CARD_NOT_IN_HAND",
    )
    assert table.refuse_code(0, {"type": "keep_cards", "cards": []}) == "NOT_YOUR_TURN"
    legal = table.legal(1)
    assert {"type": "keep_cards", "cards": []} in legal
    assert all(len(m["cards"]) <= 2 for m in legal)
    kept = ["m2", hand[-1]]
    table.do(1, {"type": "keep_cards", "cards": kept})
    event = table.last("cards_kept")
    assert event["seat"] == 1 and sorted(event["kept"]) == sorted(kept)
    assert len(event["discarded"]) == 8
    # RND-3: seat 1 is dealt up to 10 (0 regions); seat 0 10 + 1 region
    assert table.hand_size(1) == 10
    assert table.hand_size(0) == 11
    for card in kept:
        assert card in table.hand(1)
    assert table.total_cards() == 110


def test_rnd_3_everything_reshuffled_and_dealt_up_to_ten_plus_regions():
    """RND-3: discard pile and deck are shuffled together (recorded); each player is dealt to 10
    then +1 per region; the new battle continues at the already chosen region."""
    table = empty_seat_0_winning_torino(players=3)
    # two players still hold cards: the round goes on
    table.place("Milano")
    assert table.phase == "battle"
    assert not table.events_of("round_ended")
    # seat 0 is passed automatically (no cards, RND-4); seats 1 and 2 empty seat 1's hand
    assert table.turn == 1
    for _ in range(10):
        table.card(1, table.hand(1)[0])
        if table.turn == 2:
            table.pass_(2)
    # seat 1 won Milano with his last card; only seat 2 holds cards after the next choice
    assert table.owner("Milano") == 1
    table.place("Roma")
    table.do(2, {"type": "keep_cards", "cards": []})
    shuffled = table.last("deck_shuffled")
    assert shuffled["reason"] == "round"
    view = table.view()
    assert [p["hand_size"] for p in view["players"]] == [11, 11, 10]
    assert view["discard_size"] == 0
    assert view["deck_size"] == 110 - 32
    assert len(shuffled["cards"]) == 110
    assert table.view()["battle"]["region"] == "Roma"
    assert table.phase == "battle"


def test_rnd_4_winner_with_no_cards_takes_token_then_can_only_pass():
    """RND-4 / BAT-5: the winner who played his last card takes the token and chooses; in that
    battle he is passed automatically."""
    table = empty_seat_0_winning_torino(players=3)
    assert table.holder == 0
    assert table.last("token_passed")["seat"] == 0
    events = table.place("Venezia")
    auto = [e for e in events if e["type"] == "passed" and e["seat"] == 0]
    assert auto and auto[0]["auto"] is True
    assert table.turn == 1
    assert table.legal(0) == []
    assert not GAME.is_over(table.state)


def test_rnd_1_hand_discards_can_end_the_round():
    """RND-1 / END-7: the round-end check comes after the hand discards: when the discards
    leave a single player with cards, the round ends and he keeps at most two."""
    table = Table([["m5"], ["scarecrow"] * 10, ["courtesan"] * 10])
    table.win_battle("Torino", 0, card="m5")
    table.place("Milano")
    assert table.phase == "hand_discard"
    table.do(2, {"type": "discard_hand", "discard": True})
    assert not table.events_of("round_ended")
    table.do(1, {"type": "discard_hand", "discard": True})
    assert table.last("round_ended")["holder"] == 0
    assert table.phase == "keep_cards" and table.awaiting == [0]
    table.do(0, {"type": "keep_cards", "cards": ["m1", "m1"]})
    # RND-3: seat 0 kept two, is dealt up to 10, +1 for Torino
    assert [table.hand_size(s) for s in range(3)] == [11, 10, 10]
    assert table.phase == "battle" and table.view()["battle"]["region"] == "Milano"
    assert table.total_cards() == 110


def test_rnd_1_nobody_holds_cards_round_ends_without_keeping():
    """RND-1 / RND-3: both players play out their hands: nobody holds cards, nobody keeps any,
    everyone is dealt 10 (+1 per region)."""
    table = Table([["m10"] * 8 + ["m6"] * 2, ["m1"] * 10])
    table.place("Bologna")
    for _ in range(10):
        table.card(0, table.hand(0)[0])
        table.card(1, "m1")
    assert table.owner("Bologna") == 0
    table.place("Roma")
    assert table.last("round_ended")["holder"] is None
    assert not table.events_of("cards_kept")
    assert table.phase == "battle"
    assert [table.hand_size(s) for s in range(2)] == [11, 10]
    assert table.view()["deck_size"] == 110 - 21
