"""Trades between players and purchases from the bank as free commands (RIO-TRADE-1, RIO-TRADE-2,
RIO-RL-27, RIO-RL-22)."""

from __future__ import annotations

import pytest

from games.base import CommandError, fold
from games.rio_de_la_plata import GAME
from games.rio_de_la_plata.rules import active

from .helpers import new_game, play


def _seats(state):
    first, second, third = state["order"]
    return first, second, third


def _offer(state, log, proposer, partner, give=(), get=()):
    state = play(state, proposer, {"type": "offer_open", "to": partner}, log)
    for item in give:
        state = play(state, proposer, {"type": "offer_add", "side": "give", "item": item}, log)
    for item in get:
        state = play(state, proposer, {"type": "offer_add", "side": "get", "item": item}, log)
    return play(state, proposer, {"type": "offer_send"}, log)


def test_trade_1_rl_27_offer_written_one_item_at_a_time_then_accepted():
    """RIO-TRADE-1, RIO-RL-27: the offer names exactly what each side gives; the other player
    accepts, and both sides give it at once. The offer adds the recipient's answer to the pending
    decisions without taking the turn away from the awaited player."""
    state, log = new_game(3, seed=5)
    a, b, _ = _seats(state)
    before = [dict(p) for p in state["p"]]
    state = _offer(state, log, a, b, give=["silver", "silver"], get=["stone"])
    assert state["offer"] == {"from": a, "to": b, "give": {"silver": 2}, "get": {"stone": 1}, "sent": True}
    assert GAME.awaiting(state) == [b, a]
    state = play(state, b, {"type": "offer_accept"}, log)
    assert state["offer"] is None and GAME.awaiting(state) == [a]
    assert (
        state["p"][a]["silver"] == before[a]["silver"] - 2
        and state["p"][a]["stone"] == before[a]["stone"] + 1
    )
    assert (
        state["p"][b]["silver"] == before[b]["silver"] + 2
        and state["p"][b]["stone"] == before[b]["stone"] - 1
    )
    assert fold(GAME, log) == state and GAME.verify_log(log) is None


def test_trade_1_declined_offer_changes_no_stock():
    """RIO-TRADE-1, RIO-RL-27: the other player may refuse; nothing changes hands."""
    state, log = new_game(3, seed=5)
    a, b, _ = _seats(state)
    stocks = [dict(p) for p in state["p"]]
    state = _offer(state, log, a, b, give=["wood"], get=["silver"])
    state = play(state, b, {"type": "offer_decline"}, log)
    assert state["offer"] is None and state["p"] == stocks


def test_rl_27_offer_lapses_when_any_other_command_is_applied():
    """RIO-RL-27: an offer lapses when any other command is applied (here the awaited player's
    placement, and another player's purchase); it can then no longer be accepted."""
    state, log = new_game(3, seed=5)
    a, b, c = _seats(state)
    sent = _offer(state, log, a, b, give=["wood"], get=["silver"])
    after = play(sent, a, {"type": "place", "space": "field"})
    assert after["offer"] is None
    with pytest.raises(CommandError) as err:
        GAME.decide(after, b, {"type": "offer_accept"})
    assert err.value.code in ("ILLEGAL_MOVE", "NOT_YOUR_TURN")
    bought = play(sent, c, {"type": "buy", "good": "stone"})
    assert bought["offer"] is None and GAME.awaiting(bought) == [a]


def test_rl_27_any_player_buys_or_trades_while_anyone_is_awaited():
    """RIO-RL-27, RIO-TRADE-2: purchases and trades are free commands; a seat nobody waits for may
    issue them, and they do not change whose decision is pending. Other commands stay refused."""
    state, log = new_game(3, seed=5)
    a, _, c = _seats(state)
    assert GAME.awaiting(state) == [a]
    types = {m["type"] for m in GAME.legal_moves(state, c)}
    assert types == {"buy", "offer_open"}
    state = play(state, c, {"type": "buy", "good": "wood"}, log)
    assert state["p"][c]["buys"] == 1 and GAME.awaiting(state) == [a]
    with pytest.raises(CommandError) as err:
        GAME.decide(state, c, {"type": "place", "space": "field"})
    assert err.value.code == "NOT_YOUR_TURN"
    state = _offer(state, log, c, a, give=["wood"])  # a gift is a trade too: any terms both accept
    state = play(state, a, {"type": "offer_accept"}, log)
    assert GAME.verify_log(log) is None


def test_rl_27_an_offer_names_only_what_each_side_holds():
    """RIO-RL-27: an offer can name only what each side holds; the list of additions is bounded by
    the stocks, so it stays short."""
    state, log = new_game(3, seed=5)
    a, b, _ = _seats(state)
    state = play(state, a, {"type": "offer_open", "to": b}, log)
    for _ in range(state["p"][b]["stone"]):
        state = play(state, a, {"type": "offer_add", "side": "get", "item": "stone"}, log)
    adds = [m for m in GAME.legal_moves(state, a) if m["type"] == "offer_add"]
    assert {"type": "offer_add", "side": "get", "item": "stone"} not in adds
    assert {"type": "offer_add", "side": "give", "item": "luxury"} not in adds  # he holds none
    with pytest.raises(CommandError):
        GAME.decide(state, a, {"type": "offer_add", "side": "get", "item": "stone"})
    with pytest.raises(CommandError):
        GAME.decide(state, a, {"type": "offer_add", "side": "give", "item": "architect"})


def test_rl_22_char_6_traded_character_needs_no_vp_and_works_from_next_round():
    """RIO-CHAR-6, RIO-RL-22: a character can be traded; it needs no VP check, and its benefits
    apply from phase B of the round after the trade."""
    state, log = new_game(3, seed=5)
    a, b, _ = _seats(state)
    state = state.copy()
    state["chars"]["merchant"] = {"owner": b, "from": state["year"]}
    assert state["p"][a]["vp"] < 25
    state = _offer(state, None, a, b, give=["silver"], get=["merchant"])
    state = play(state, b, {"type": "offer_accept"})
    assert state["chars"]["merchant"] == {"owner": a, "from": state["year"] + 1}
    assert not active(state, "merchant", a)
    later = state.copy()
    later["year"] += 1
    assert not active(later, "merchant", a)  # phase A of the next round (RIO-CHAR-5)
    later["step"] = "B"
    assert active(later, "merchant", a)


def test_rl_27_a_server_record_keeps_an_open_offer_and_the_log_verifies():
    """RIO-RL-27 lapses an offer when a command is applied. A token rotation or a hand-over to a bot
    is the server's record, not a player's command (games/base.py): the offer stays open, nothing of
    the game changes, and the log with it still verifies."""
    state, log = new_game(3, seed=5)
    a, b, _ = _seats(state)
    state = _offer(state, log, a, b, give=["silver"], get=["stone"])
    for record in (
        {"type": "seat_token_rotated", "v": 1, "seat": b},
        {"type": "seat_handed_to_bot", "v": 1, "seat": a, "level": "random"},
    ):
        after = GAME.evolve(state, record)
        assert after == state and after["offer"] is not None
        log.append(record)
        state = after
    state = play(state, b, {"type": "offer_accept"}, log)
    assert state["offer"] is None
    assert GAME.verify_log(log) is None
    assert fold(GAME, log) == state


def test_a_server_record_naming_no_seat_fails_verification():
    state, log = new_game(3, seed=5)
    for bad in (
        {"type": "seat_token_rotated", "v": 1, "seat": 3},
        {"type": "seat_token_rotated", "v": 1, "seat": True},
        {"type": "seat_handed_to_bot", "v": 1, "seat": 0},
    ):
        error = GAME.verify_log([*log, bad])
        assert error is not None and error.code == "MALFORMED_EVENT" and error.index == len(log)
