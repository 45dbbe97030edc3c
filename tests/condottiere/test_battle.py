"""A battle: BAT-1..8 and the refusals of the battle phase."""

from __future__ import annotations

from games.base import FULL, SPECTATOR
from tests.condottiere.scenario import GAME, Table, battle_end, normalise_per_seat


def test_bat_1_token_only_on_free_regions_without_pope():
    """BAT-1: not on a controlled region, not on the Pope's region, not on an unknown one."""
    table = Table([["bishop", "m5"], ["m1"]])
    table.place("Genova")
    table.card(0, "bishop", pope="Napoli")
    table.play_lines({0: ["m5"]}, then_pass=True)
    assert table.owner("Genova") == 0
    holder = table.holder
    legal_regions = {m["region"] for m in table.legal(holder) if m["type"] == "place_token"}
    assert "Genova" not in legal_regions and "Napoli" not in legal_regions
    assert len(legal_regions) == 15
    assert table.refuse_code(holder, {"type": "place_token", "region": "Genova"}) == "REGION_NOT_ALLOWED"
    assert table.refuse_code(holder, {"type": "place_token", "region": "Napoli"}) == "REGION_NOT_ALLOWED"
    assert table.refuse_code(holder, {"type": "place_token", "region": "Paris"}) == "UNKNOWN_REGION"
    assert table.refuse_code(holder, {"type": "place_token", "region": "torino"}) == "UNKNOWN_REGION"
    assert table.refuse_code(holder, {"type": "place_token"}) == "INVALID_COMMAND"
    assert table.refuse_code(holder, {"type": "place_token", "region": 3}) == "INVALID_COMMAND"
    assert table.refuse_code(holder, {"type": "place_token", "region": "Roma", "x": 1}) == "INVALID_COMMAND"
    table.place("Torino")
    assert table.view()["battle"]["region"] == "Torino"


def test_bat_2_placer_first_then_clockwise():
    """BAT-2: the placer plays first, then clockwise (seat + 1 mod n)."""
    table = Table([["m1"] * 3, ["m2"] * 3, ["m3"] * 3, ["m4"] * 3], first=2)
    table.place("Lucca")
    order = []
    for _ in range(6):
        seat = table.turn
        order.append(seat)
        table.card(seat, table.hand(seat)[0])
    assert order == [2, 3, 0, 1, 2, 3]


def test_bat_3_play_face_up_or_pass_and_refusals():
    """BAT-3: on his turn a player plays one card from hand face up or passes; any card may be
    first (here a Winter); others may not act; cards not in hand are refused."""
    table = Table([["winter", "m5"], ["m2", "m3"], ["m4"]])
    table.place("Ancona")
    assert table.refuse_code(1, {"type": "play", "card": "m2"}) == "NOT_YOUR_TURN"
    assert table.refuse_code(1, {"type": "pass"}) == "NOT_YOUR_TURN"
    assert table.refuse_code(0, {"type": "play", "card": "m10"}) == "CARD_NOT_IN_HAND"
    assert table.refuse_code(0, {"type": "play", "card": "dragon"}) == "INVALID_COMMAND"
    assert table.refuse_code(0, {"type": "play"}) == "INVALID_COMMAND"
    assert table.refuse_code(0, {"type": "fly"}) == "UNKNOWN_COMMAND"
    assert table.refuse_code(0, {"type": "place_token", "region": "Roma"}) in (
        "INVALID_COMMAND",
        "NOT_YOUR_TURN",
        "UNKNOWN_COMMAND",
    )
    legal = table.legal(0)
    assert {"type": "pass"} in legal
    assert {m["card"] for m in legal if m["type"] == "play"} == set(table.hand(0))
    events = table.card(0, "winter")
    played = [e for e in events if e["type"] == "card_played"]
    assert played and played[0]["seat"] == 0 and played[0]["card"] == "winter"
    assert played[0]["face_down"] is False
    assert table.line(0, SPECTATOR) == ["winter"]
    assert table.hand_size(0) == 9
    assert "winter" not in table.hand(0)
    table.pass_(1)
    assert table.turn == 2


def test_bat_4_pass_is_final_but_line_counts():
    """BAT-4: a passed player is skipped; his line still counts and can win."""
    table = Table([["m10", "m1"], ["m2", "m3"]])
    table.place("Siena")
    table.card(0, "m10")
    table.card(1, "m2")
    table.pass_(0)
    assert table.view()["players"][0]["passed"] is True
    assert table.turn == 1
    table.card(1, "m3")
    assert table.turn == 1, "the passed seat is skipped"
    assert table.refuse_code(0, {"type": "play", "card": "m1"}) == "ALREADY_PASSED"
    events = table.pass_(1)
    end = battle_end(events)
    assert normalise_per_seat(end["strengths"], 2) == [10, 5]
    assert end["winner"] == 0
    assert table.owner("Siena") == 0


def test_bat_5_no_cards_means_automatic_pass():
    """BAT-5: a player without cards is passed by the engine, and the log says so."""
    table = Table([["m1"] * 10, ["m2"] * 8])
    table.place("Torino")
    table.card(0, "m1")
    table.pass_(1)
    for _ in range(8):
        table.card(0, "m1")
    assert table.turn == 0 and table.hand_size(0) == 1
    events = table.card(0, "m1")
    auto = [e for e in events if e["type"] == "passed"]
    assert auto and auto[0]["seat"] == 0 and auto[0]["auto"] is True
    assert battle_end(events)["winner"] == 0
    manual = [e for e in table.log if e["type"] == "passed" and e["seat"] == 1]
    assert manual[0]["auto"] is False


def test_bat_6_last_player_plays_on_alone():
    """BAT-6: once everyone else passed, the remaining player plays card after card."""
    table = Table([["m1", "m2", "m3", "m4"], ["m5"], ["m6"]])
    table.place("Urbino")
    table.card(0, "m1")
    table.pass_(1)
    table.pass_(2)
    for card in ("m2", "m3", "m4"):
        assert table.turn == 0 and table.phase == "battle"
        table.card(0, card)
    assert table.strengths() == [10, 0, 0]
    events = table.pass_(0)
    assert battle_end(events)["winner"] == 0


def test_bat_7_battle_ends_when_all_passed():
    """BAT-7: the battle ends when every player has passed, not before."""
    table = Table([["m1"], ["m2"], ["m3"]])
    table.place("Roma")
    table.pass_(0)
    table.pass_(1)
    assert table.phase == "battle"
    events = table.pass_(2)
    end = battle_end(events)
    assert end["cause"] == "all_passed" and end["region"] == "Roma"


def test_bat_7_surrender_ends_at_once():
    """BAT-7 / SUR-1: a Surrender ends the battle at once, even with players still in."""
    table = Table([["m10", "surrender"], ["m6"], ["m3"]])
    table.place("Firenze")
    table.card(0, "m10")
    table.card(1, "m6")
    table.card(2, "m3")
    events = table.card(0, "surrender")
    end = battle_end(events)
    assert end["cause"] == "surrender" and end["winner"] == 0
    assert table.owner("Firenze") == 0
    assert not [e for e in events if e["type"] == "passed"]


def test_bat_8_every_view_shows_line_strengths():
    """BAT-8: every viewer (seats, spectator, FULL) sees every battle line's strength."""
    table = Table([["m10", "m4"], ["m6", "m2"], ["m3"]])
    table.place("Modena")
    table.play_lines({0: ["m10", "m4"], 1: ["m6"], 2: ["m3"]})
    for viewer in (0, 1, 2, SPECTATOR, FULL):
        assert table.strengths(viewer) == [14, 6, 3], viewer


def test_refused_command_after_game_over_is_game_over():
    """VIC-1 / refusals: once the game is over every command is refused with GAME_OVER."""
    table = Table([], players=4)
    for region in ("Roma", "Siena", "Firenze"):
        table.win_battle(region, 0)
    assert GAME.is_over(table.state)
    assert GAME.awaiting(table.state) == []
    for seat in range(4):
        assert table.legal(seat) == []
        assert table.refuse_code(seat, {"type": "pass"}) == "GAME_OVER"


def test_bat_8_annotations_announce_strengths():
    """BAT-8 (issue 2, item 6): the sentence for a played card and for a battle's end gives the
    strengths; the one for a won region names region and seat."""
    table = Table([["m10", "winter"], ["m6"], ["m4"]])
    table.place("Milano")
    state = table.state
    events = table.play_lines({0: ["m10"], 1: ["m6"], 2: ["m4"]}, then_pass=True)
    sentences = []
    for event in events:
        after = GAME.evolve(state, event)
        sentences.append((event["type"], GAME.annotate(state, event, after)))
        state = after
    played = [text for kind, text in sentences if kind == "card_played"]
    assert "Seat 0: 10, Seat 1: 6, Seat 2: 4" in played[-1]  # by seat, not by position (issue 30)
    ended = [text for kind, text in sentences if kind == "battle_ended"][0]
    assert "Milano" in ended and "Seat 0: 10, Seat 1: 6, Seat 2: 4" in ended
    won = [text for kind, text in sentences if kind == "region_won"][0]
    assert "Milano" in won and "0" in won
