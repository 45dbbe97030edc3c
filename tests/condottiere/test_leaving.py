"""Seats that leave (issue 14): resignation (RL-X17), abort (RL-X18) and the record of a token
rotation, through the engine's ``games.base.SeatHooks``; every log stays verifiable."""

from __future__ import annotations

import pytest

from games.base import ABORTED, SEAT_TOKEN_ROTATED, CommandError, SeatHooks, fold
from tests.condottiere.scenario import GAME, Table


def _resign(table: Table, seat: int) -> list[dict]:
    events = GAME.resign(table.state, seat)
    table.state = fold(GAME, events, table.state)
    table.log += events
    return events


def test_condottiere_offers_the_seat_hooks():
    assert isinstance(GAME, SeatHooks)


def test_rl_x17_two_players_the_other_seat_wins_at_once():
    """RL-X17: with two players a resignation gives the game to the other seat, whoever is awaited."""
    table = Table([["m5", "m6"], ["m1", "m2"]])
    table.place("Torino")
    table.card(0, "m5")
    events = _resign(table, 0)  # seat 1 is awaited: any seat may resign at any decision point
    assert [e["type"] for e in events] == ["seat_resigned", "game_won"]
    assert events[0] == {"type": "seat_resigned", "v": 1, "seat": 0}
    assert events[1]["winners"] == [1] and events[1]["reason"] == "resigned"
    assert GAME.is_over(table.state) and GAME.result(table.state)["reason"] == "resigned"
    assert GAME.verify_log(table.log) is None


def test_rl_x17_more_players_most_regions_among_the_others_win_and_a_tie_shares():
    """RL-X17: with three players the others' regions decide; the resigner's regions (he may hold the
    most) never make him a winner; a tie among the others shares the victory."""
    table = Table([["m10"], ["m1"], ["m1"]])
    table.place("Torino")
    table.play_lines({0: ["m10"]}, then_pass=True)  # seat 0 takes Torino
    assert table.view()["regions"]["Torino"] == 0
    events = _resign(table, 0)
    assert events[-1]["type"] == "game_won"
    assert events[-1]["winners"] == [1, 2] and events[-1]["reason"] == "resigned"
    assert events[-1]["regions"][0] == ["Torino"]  # his regions stay where they are
    assert GAME.verify_log(table.log) is None


def test_rl_x17_in_a_points_match_the_match_ends_for_the_best_other_score():
    """RL-X17 with OPT-POINTS: the whole match ends; the other seats with the most points win it."""
    table = Table([["m5"], ["m1"]], options={"points_target": 10})
    events = _resign(table, 1)
    assert events[-1]["type"] == "match_won" and events[-1]["reason"] == "resigned"
    assert events[-1]["winners"] == [0]
    result = GAME.result(table.state)
    assert result["reason"] == "resigned" and result["winners"] == [0]
    assert GAME.verify_log(table.log) is None


def test_rl_x18_abort_before_any_battle_ended():
    """RL-X18: before the first battle ends any seat may abort: no winner, reason aborted."""
    table = Table([["m5"], ["m1"]])
    table.place("Torino")
    table.card(0, "m5")
    events = GAME.abort(table.state, 1)
    assert events == [{"type": "game_aborted", "v": 1, "seat": 1}]
    table.state = fold(GAME, events, table.state)
    table.log += events
    assert GAME.is_over(table.state) and GAME.awaiting(table.state) == []
    assert GAME.result(table.state)["winners"] == [] and GAME.result(table.state)["reason"] == ABORTED
    assert GAME.verify_log(table.log) is None


def test_rl_x18_no_abort_once_a_battle_ended():
    """RL-X18: after the first battle something has been won or lost: TOO_LATE_TO_ABORT."""
    table = Table([["m5", "m6"], ["m1", "m2"]])
    table.place("Torino")
    table.play_lines({0: ["m5"]}, then_pass=True)
    with pytest.raises(CommandError) as info:
        GAME.abort(table.state, 0)
    assert info.value.code == "TOO_LATE_TO_ABORT" and info.value.rule == "RL-X18"


def test_leaving_a_finished_game_is_refused():
    table = Table([["m5"], ["m1"]])
    _resign(table, 0)
    for action in (GAME.resign, GAME.abort):
        with pytest.raises(CommandError) as info:
            action(table.state, 1)
        assert info.value.code == "GAME_OVER"


def test_a_token_rotation_changes_nothing_in_the_game_and_verifies():
    table = Table([["m5"], ["m1"]])
    before = GAME.state_to_json(table.state)
    event = {"type": SEAT_TOKEN_ROTATED, "v": 1, "seat": 1}
    table.state = GAME.evolve(table.state, event)
    table.log.append(event)
    assert GAME.state_to_json(table.state) == before
    table.place("Torino")
    assert GAME.verify_log(table.log) is None


def test_verify_log_refuses_a_forged_resignation_outcome():
    """A log whose resignation names the resigner among the winners is caught."""
    table = Table([["m5"], ["m1"]])
    events = GAME.resign(table.state, 0)
    forged = [*table.log, events[0], {**events[1], "winners": [0]}]
    error = GAME.verify_log(forged)
    assert error is not None and error.code == "EVENT_MISMATCH" and error.index == len(table.log) + 1


def _time_out(table: Table, seat: int) -> list[dict]:
    events = GAME.timeout(table.state, seat)
    table.state = fold(GAME, events, table.state)
    table.log += events
    return events


def test_rl_x19_timeouts_take_the_default_of_each_decision():
    """RL-X19: the token holder places the token on the first region it may choose; in a battle the
    seat passes; every log verifies."""
    table = Table([["m5", "m6"], ["m1", "m2"]])
    first_region = GAME.legal_moves(table.state, table.holder)[0]
    events = _time_out(table, table.holder)
    assert events[0] == {"type": "seat_timed_out", "v": 1, "seat": 0}
    assert events[1]["type"] == "token_placed" and events[1]["region"] == first_region["region"]
    turn = table.turn
    events = _time_out(table, turn)
    assert [e["type"] for e in events[:2]] == ["seat_timed_out", "passed"] and events[1]["seat"] == turn
    assert GAME.verify_log(table.log) is None


def test_rl_x19_classic_token_holder_declines_when_it_may():
    """RL-X19 with CL-5: a classic token holder who runs out of time declines the choice."""
    table = Table([["m5"], ["m1"], ["m2"]], ruleset="classic")
    events = _time_out(table, table.holder)
    assert events[1]["type"] == "token_declined"
    assert GAME.verify_log(table.log) is None


def test_rl_x19_a_seat_that_is_not_awaited_cannot_time_out():
    table = Table([["m5"], ["m1"]])
    other = 1 - table.holder
    with pytest.raises(CommandError) as info:
        GAME.timeout(table.state, other)
    assert info.value.code == "NOT_AWAITED"


def test_rl_x19_at_a_hand_discard_the_seat_keeps_its_hand():
    """RL-X19 with END-7: a seat that runs out of time at the hand discard keeps its hand."""
    table = Table([["m10", "m1", "m2"], ["m1", "m2", "m3"]], auto_keep=False)
    table.place("Torino")
    table.play_lines({0: ["m10"]}, then_pass=True)
    table.place("Milano")
    assert table.phase == "hand_discard"
    seat = table.awaiting[0]
    events = _time_out(table, seat)
    assert events[1]["type"] == "hand_discarded" and events[1]["discard"] is False
    assert GAME.verify_log(table.log) is None
