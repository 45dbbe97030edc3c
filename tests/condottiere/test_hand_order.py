"""Views show hands in the order a player sorts them (issue 15): Mercenaries by strength, m1 to m10,
then the special cards; the state keeps its own order (by code), so stored snapshots do not change."""

from __future__ import annotations

import random

import pytest

from games import get_game
from games.base import FULL, fold
from games.condottiere.board import CARD_NAMES, MERCENARY, card_order, in_card_order

GAME = get_game("condottiere")


def test_card_order_is_by_kind_then_strength():
    ordered = sorted(CARD_NAMES, key=card_order)
    mercenaries = [c for c in ordered if c in MERCENARY]
    assert ordered[: len(mercenaries)] == mercenaries  # every Mercenary before every special card
    assert [MERCENARY[c] for c in mercenaries] == sorted(MERCENARY.values())
    assert mercenaries.index("m2") < mercenaries.index("m10")


def test_in_card_order_sorts_as_card_order_says_even_codes_outside_the_card_list():
    """Views sort hands through a table of every card's key: the same order as ``card_order``, and a
    code the table lacks is still placed where ``card_order`` puts it (after the special cards)."""
    rng = random.Random(7)
    codes = [*CARD_NAMES, "not-a-card"]
    for _ in range(200):
        hand = rng.choices(codes, k=rng.randrange(0, 14))
        assert in_card_order(hand) == sorted(hand, key=card_order)
    assert in_card_order(["not-a-card", "m1", "heroine"])[-1] == "not-a-card"


@pytest.mark.parametrize("seed", range(6))
def test_seat_and_full_views_list_hands_in_card_order(seed):
    state = fold(GAME, GAME.start(GAME.configure({"players": 3, "seed": seed})))
    for seat in range(3):
        hand = GAME.view(state, seat)["hand"]
        assert hand == sorted(hand, key=card_order)
        assert sorted(hand) == sorted(state.hands[seat])
    full = GAME.view(state, FULL)
    for player in full["players"]:
        assert player["hand"] == sorted(player["hand"], key=card_order)


def test_a_hand_with_m10_and_m2_lists_m2_first():
    for seed in range(200):
        state = fold(GAME, GAME.start(GAME.configure({"players": 2, "seed": seed})))
        hand = GAME.view(state, 0)["hand"]
        if "m10" in hand and "m2" in hand:
            assert hand.index("m2") < hand.index("m10")
            assert state.hands[0].index("m10") < state.hands[0].index("m2")  # the state's code order
            return
    pytest.fail("no deal with both m2 and m10 in 200 seeds")
