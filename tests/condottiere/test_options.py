"""Optional rules: OPT-DRAW-1..3, OPT-POINTS-1..2, OPT-BIG-1, OPT-CAP-1..4, OPT-HID-1..5."""

from __future__ import annotations

from games.base import SPECTATOR
from tests.condottiere.scenario import GAME, MERCENARIES, PRINTED, Table, battle_end, normalise_per_seat

DRAW = {"draw_after_battle": True}
CAP = {"capturing": True}
HID = {"hidden_cards": True}


# -- draw after battle ----------------------------------------------------------------------------


def test_opt_draw_1_seven_cards_draw_before_next_region_no_hand_discard():
    """OPT-DRAW-1: 7 cards dealt; conclusion order: compare, draw, choose, discard lines; no
    END-7 hand discard even for a hand without mercenaries; no rounds."""
    table = Table([["m5"], ["scarecrow"] * 7], options=DRAW)
    assert [table.hand_size(s) for s in (0, 1)] == [7, 7]
    assert table.view()["deck_size"] == 110 - 14
    table.win_battle("Torino", 0, card="m5")
    kinds = [e["type"] for e in table.log]
    ended = kinds.index("battle_ended")
    drawn = [i for i, k in enumerate(kinds) if k == "cards_drawn"]
    assert drawn and all(i > ended for i in drawn)
    assert table.phase == "place_token"
    table.place("Roma")
    kinds = [e["type"] for e in table.log]
    assert max(drawn) < kinds.index("token_placed", ended)
    assert kinds.index("token_placed", ended) < kinds.index("battle_lines_discarded")
    assert "hand_discard_offered" not in kinds and "round_ended" not in kinds
    # seat 0: 6 cards, limit 11 -> draws 3; seat 1: 7 cards, limit 10 -> draws 3
    assert [table.hand_size(s) for s in (0, 1)] == [9, 10]
    assert table.phase == "battle"
    assert table.total_cards() == 110


def test_opt_draw_2_draw_three_capped_by_hand_limit():
    """OPT-DRAW-2 / EX-8: 9 cards and 1 region (limit 11): draws 2; 10 cards and no region:
    draws none."""
    table = Table([], players=2, options=DRAW)
    table.tie_battle("Torino")
    assert [table.hand_size(s) for s in (0, 1)] == [10, 10]
    holder = table.holder
    table.win_battle("Milano", holder)
    other = 1 - holder
    assert table.hand_size(holder) == 11
    assert table.hand_size(other) == 10
    draws = [e for e in table.log if e["type"] == "cards_drawn"]
    assert sum(len(e["cards"]) for e in draws if e["seat"] == holder) == 3 + 2


def test_opt_draw_3_nobody_holds_cards_each_draws_ten():
    """OPT-DRAW-3: when no player holds a card, each draws 10 instead of 3."""
    table = Table([["m10"] * 7, ["m1"] * 7], options=DRAW)
    table.place("Siena")
    for _ in range(7):
        table.card(0, "m10")
        table.card(1, "m1")
    assert table.owner("Siena") == 0
    assert [table.hand_size(s) for s in (0, 1)] == [10, 10]
    draws = [e for e in table.log if e["type"] == "cards_drawn"]
    assert sorted(len(e["cards"]) for e in draws) == [10, 10]


# -- points ---------------------------------------------------------------------------------------


def test_opt_points_1_scores_and_next_game():
    """OPT-POINTS-1 / RL-8: 1 point per region, +5 for an adjacent win; a new game follows with
    the left neighbour of the previous first Condottiere."""
    table = Table([], players=4, options={"points_target": 20})
    assert table.view()["match"]["target"] == 20
    assert table.view()["match"]["game_number"] == 1
    table.win_battle("Torino", 1)
    for region in ("Roma", "Siena", "Napoli"):
        table.win_battle(region, 0)
    won = table.last("game_won")
    assert won["winners"] == [0] and won["reason"] == "adjacent"
    scored = table.last("game_scored")
    assert normalise_per_seat(scored["gained"], 4) == [8, 1, 0, 0]
    assert normalise_per_seat(scored["scores"], 4) == [8, 1, 0, 0]
    assert not table.events_of("match_won")
    assert not GAME.is_over(table.state)
    view = table.view()
    assert view["match"]["game_number"] == 2
    assert normalise_per_seat(view["match"]["scores"], 4) == [8, 1, 0, 0]
    assert all(owner is None for owner in view["regions"].values())
    assert table.holder == 1
    assert table.last("first_condottiere_chosen")["seat"] == 1
    assert [p["hand_size"] for p in view["players"]] == [10] * 4
    assert table.total_cards() == 110
    started = table.last("game_started")
    assert started["game_number"] == 2


def test_opt_points_1_total_win_scores_no_bonus():
    """OPT-POINTS-1: a win by total regions scores the regions only."""
    table = Table([], players=4, options={"points_target": 30})
    for region in ("Torino", "Venezia", "Lucca", "Siena", "Napoli"):
        table.win_battle(region, 2)
    assert table.last("game_won")["reason"] == "total"
    assert normalise_per_seat(table.last("game_scored")["gained"], 4) == [0, 0, 5, 0]


def test_opt_points_2_reaching_the_target_wins_the_match():
    """OPT-POINTS-2: after a game in which someone reaches the target, most points wins."""
    table = Table([], players=4, options={"points_target": 8})
    table.win_battle("Torino", 3)
    for region in ("Roma", "Siena", "Napoli"):
        table.win_battle(region, 0)
    match = table.last("match_won")
    assert match["winners"] == [0]
    assert normalise_per_seat(match["scores"], 4) == [8, 0, 0, 1]
    assert GAME.is_over(table.state)
    assert GAME.result(table.state)["winners"] == [0]


def test_opt_points_2_tie_at_the_target_final_battle():
    """OPT-POINTS-2 / VIC-4: two players tied at the top after the target is reached fight a
    final battle; its winner wins the match."""
    table = Table([], players=4, options={"points_target": 6}, seed=2)  # seed: enough mercenaries
    table.win_battle("Genova", 1)
    for region in ("Torino", "Venezia", "Lucca", "Siena", "Napoli"):
        table.win_battle(region, 0)
    assert normalise_per_seat(table.last("game_scored")["scores"], 4) == [5, 1, 0, 0]
    assert table.holder == 1  # RL-8
    table.win_battle("Genova", 0)
    for region in ("Torino", "Venezia", "Lucca", "Siena", "Napoli"):
        table.win_battle(region, 1)
    assert normalise_per_seat(table.last("game_scored")["scores"], 4) == [6, 6, 0, 0]
    started = table.last("final_battle_started")
    assert sorted(started["seats"]) == [0, 1] and started["first"] == 1
    assert not GAME.is_over(table.state)
    card = max((c for c in table.hand(1) if c in MERCENARIES), key=PRINTED.get)
    table.card(1, card)
    table.pass_(0)
    table.pass_(1)
    assert table.last("match_won")["winners"] == [1]
    assert GAME.result(table.state)["winners"] == [1]


# -- bigger kingdoms ------------------------------------------------------------------------------


def test_opt_big_1_four_players_need_four_adjacent_total_unchanged():
    """OPT-BIG-1: 4 players: 3 adjacent do not win, 4 do; 5 in total still wins."""
    table = Table([], players=4, options={"bigger_kingdoms": True})
    for region in ("Torino", "Milano", "Venezia"):
        table.win_battle(region, 0)
    assert not GAME.is_over(table.state)
    table.win_battle("Mantova", 0)
    assert GAME.result(table.state)["reason"] == "adjacent"

    table = Table([], players=4, options={"bigger_kingdoms": True})
    for region in ("Torino", "Venezia", "Lucca", "Siena", "Napoli"):
        table.win_battle(region, 1)
    result = GAME.result(table.state)
    assert result["winners"] == [1] and result["reason"] == "total"


def test_opt_big_1_two_players_need_five_adjacent():
    """OPT-BIG-1: 2 players: 4 adjacent do not win, 5 do."""
    table = Table([], players=2, options={"bigger_kingdoms": True})
    for region in ("Torino", "Milano", "Venezia", "Mantova"):
        table.win_battle(region, 1)
    assert not GAME.is_over(table.state)
    table.win_battle("Ferrara", 1)
    assert GAME.result(table.state)["reason"] == "adjacent"


# -- capturing ------------------------------------------------------------------------------------


def capture_setup() -> Table:
    """Seat 1 owns Torino; after a tie at Roma seat 2 holds the token."""
    table = Table([["bishop", "courtesan"], [], ["m1"] * 5], players=3, options=CAP)
    table.win_battle("Torino", 1)
    assert table.holder == 1
    assert table.refuse_code(1, {"type": "place_token", "region": "Torino"}) == "REGION_NOT_ALLOWED"
    table.tie_battle("Roma")
    assert table.holder == 2
    return table


def test_opt_cap_1_token_on_another_players_region():
    """OPT-CAP-1: the token may go on another player's region; that player defends."""
    table = capture_setup()
    assert {"type": "place_token", "region": "Torino"} in table.legal(2)
    events = table.place("Torino")
    placed = [e for e in events if e["type"] == "token_placed"][0]
    assert placed["defender"] == 1
    assert table.view()["battle"]["defender"] == 1


def test_opt_cap_2_defender_passes_without_losing_his_turn():
    """OPT-CAP-2 / RL-4: the defender's passes are not final until he has played (or everyone
    else has passed); he can play after all others passed; then normal passing applies."""
    table = capture_setup()
    table.place("Torino")
    table.card(2, "m1")
    table.card(0, "m1")
    events = table.pass_(1)
    passed = [e for e in events if e["type"] == "passed"][0]
    assert passed["seat"] == 1 and passed["final"] is False
    assert table.view()["players"][1]["passed"] is False
    table.card(2, "m1")
    table.pass_(0)
    table.pass_(1)
    table.pass_(2)
    # everyone else passed: the defender may still play
    assert table.turn == 1
    table.card(1, next(c for c in table.hand(1) if c in MERCENARIES and PRINTED[c] >= 3))
    assert table.turn == 1
    events = table.pass_(1)
    assert [e for e in events if e["type"] == "passed"][0]["final"] is True
    end = battle_end(events)
    assert end["winner"] == 1
    assert table.owner("Torino") == 1


def test_rl_4_defender_final_pass_when_everyone_else_passed():
    """RL-4: once every other player has passed, the defender's next pass is final even if he
    has played nothing."""
    table = capture_setup()
    table.place("Torino")
    table.card(2, "m1")
    table.pass_(0)
    assert [e for e in table.pass_(1) if e["type"] == "passed"][0]["final"] is False
    table.pass_(2)
    assert table.turn == 1
    events = table.pass_(1)
    assert [e for e in events if e["type"] == "passed"][0]["final"] is True
    end = battle_end(events)
    assert end["winner"] == 2
    won = table.last("region_won")
    assert (won["seat"], won["region"], won["from"]) == (2, "Torino", 1)


def test_opt_cap_3_no_winner_defender_keeps_region_and_token():
    """OPT-CAP-3: a battle without winner leaves the region to the defender, who takes the token."""
    table = capture_setup()
    table.place("Torino")
    table.pass_(2)
    table.pass_(0)
    events = table.pass_(1)  # final: everyone else passed (RL-4)
    assert battle_end(events)["winner"] is None
    assert table.owner("Torino") == 1
    passed = table.last("token_passed")
    assert passed["seat"] == 1 and passed["cause"] == "defender"
    assert table.holder == 1


def test_opt_cap_3_winner_replaces_the_defenders_marker():
    """OPT-CAP-3 / PIECE-3: another player's win replaces the defender's marker."""
    table = capture_setup()
    table.place("Torino")
    table.card(2, "m1")
    table.card(0, "m1")
    table.pass_(1)
    table.card(2, "m1")
    table.pass_(0)
    table.pass_(1)
    table.pass_(2)
    table.pass_(1)
    won = table.last("region_won")
    assert (won["seat"], won["region"], won["from"]) == (2, "Torino", 1)
    assert table.owner("Torino") == 2
    assert table.view()["players"][1]["regions"] == []
    assert table.view()["players"][2]["regions"] == ["Torino"]


def test_opt_cap_4_pope_on_any_region_with_capturing():
    """OPT-CAP-4: with capturing the Bishop's Pope may go on a controlled region too, and the
    token can then not be placed there."""
    table = capture_setup()
    table.place("Milano")
    table.pass_(2)
    legal = {m.get("pope") for m in table.legal(0) if m["type"] == "play" and m["card"] == "bishop"}
    assert "Torino" in legal and None in legal and "Roma" in legal
    table.card(0, "bishop", pope="Torino")
    assert table.view()["pope"] == "Torino"
    table.pass_all()
    assert table.holder == 0
    assert table.refuse_code(0, {"type": "place_token", "region": "Torino"}) == "REGION_NOT_ALLOWED"
    assert "Torino" not in {m["region"] for m in table.legal(0)}


def test_rl_5_courtesans_beat_the_defender_for_the_token():
    """RL-5: with capturing, the single player with most Courtesans takes the token even when
    the defender keeps his region."""
    table = capture_setup()
    table.place("Torino")
    table.card(2, "m1")
    table.card(0, "courtesan")
    table.pass_(1)
    table.pass_(2)
    table.pass_(0)
    events = table.pass_(1)
    end = battle_end(events)
    assert normalise_per_seat(end["strengths"], 3) == [1, 0, 1]
    assert end["winner"] is None
    assert table.owner("Torino") == 1
    passed = table.last("token_passed")
    assert passed["seat"] == 0 and passed["cause"] == "courtesans"


# -- hidden cards ---------------------------------------------------------------------------------


def test_opt_hid_1_opt_hid_4_face_down_cards_and_shown_strength():
    """OPT-HID-1, OPT-HID-4: mercenaries, Drummer, Heroine, Courtesan go face down; seasons and
    others face up; others see "a face-down card"; shown strength counts face-up cards only; the
    owner sees his card and his true strength."""
    table = Table([["m5", "winter", "heroine"], ["m6", "spring"]], options=HID)
    table.place("Torino")
    events = table.card(0, "m5")
    played = [e for e in events if e["type"] == "card_played"][0]
    assert played["face_down"] is True and played["card"] == "m5"
    assert GAME.redact(played, 1)["card"] is None
    assert GAME.redact(played, SPECTATOR)["card"] is None
    assert GAME.redact(played, 0)["card"] == "m5"
    assert GAME.view(table.state, 1)["players"][0]["line"] == [{"card": None, "face_down": True}]
    assert GAME.view(table.state, SPECTATOR)["players"][0]["line"] == [{"card": None, "face_down": True}]
    own = GAME.view(table.state, 0)["players"][0]
    assert own["line"] == [{"card": "m5", "face_down": True}]
    assert own["strength"] == 0 and own["true_strength"] == 5
    assert (
        "true_strength" not in GAME.view(table.state, 1)["players"][0]
        or GAME.view(table.state, 1)["players"][0]["true_strength"] is None
    )
    assert table.strengths(1) == [0, 0]
    events = table.card(1, "spring")
    assert [e for e in events if e["type"] == "card_played"][0]["face_down"] is False
    assert table.line(1, SPECTATOR) == ["spring"]


def test_opt_hid_4_views_of_one_state_in_a_row_show_each_seat_only_its_own_cards():
    """OPT-HID-4: the views of one state are computed one viewer after the other (a move's pushes to
    every stream), sharing what all of them see; each seat still sees its own face-down card and
    hand and nobody else's, whatever the order, and a spectator asked last sees none."""
    table = Table([["m5", "winter"], ["m6", "spring"], ["m2", "m3"]], options=HID)
    table.place("Torino")
    table.card(0, "m5")
    table.card(1, "m6")
    state = table.state
    for order in ([0, 1, 2, SPECTATOR, 0], [SPECTATOR, 2, 1, 0, 1]):
        for viewer in order:
            view = GAME.view(state, viewer)
            lines = [player["line"] for player in view["players"]]
            for seat, card in ((0, "m5"), (1, "m6")):
                expected = card if viewer == seat else None
                assert lines[seat] == [{"card": expected, "face_down": True}], (order, viewer, seat)
            assert [("true_strength" in p) for p in view["players"]] == [viewer == s for s in range(3)]
            assert view.get("hand") == (None if viewer == SPECTATOR else list(state.hands[viewer]))


def test_opt_hid_4_a_state_changed_in_place_after_its_view_gets_its_own_view():
    """OPT-HID-4: what the views of a state share is keyed by the state's content: a copy changed in
    place after its first view (a bot's trial, say) shows its new line to every viewer."""
    table = Table([["m5", "m4"], ["m6", "spring"]], options={})
    table.place("Torino")
    trial = table.state.copy()
    assert GAME.view(trial, 1)["players"][0]["line"] == []
    trial.lines = (("m5",), *trial.lines[1:])
    for viewer in (1, SPECTATOR, 0):
        assert GAME.view(trial, viewer)["players"][0]["line"] == [{"card": "m5", "face_down": False}]
        assert GAME.view(trial, viewer)["players"][0]["strength"] == 5


def test_opt_hid_2_next_card_reveals_pass_may_reveal():
    """OPT-HID-2: playing the next card turns the face-down one up; a pass may reveal or not."""
    table = Table([["m5", "m3"], ["m6", "m2"], ["m4"]], options=HID)
    table.place("Torino")
    table.card(0, "m5")
    table.card(1, "m6")
    table.card(2, "m4")
    events = table.card(0, "m3")
    revealed = [e for e in events if e["type"] == "cards_revealed"]
    assert revealed and revealed[0]["seat"] == 0 and revealed[0]["cards"] == ["m5"]
    assert revealed[0]["cause"] == "next_card"
    assert GAME.view(table.state, 1)["players"][0]["line"] == [
        {"card": "m5", "face_down": False},
        {"card": None, "face_down": True},
    ]
    assert table.strengths(2) == [5, 0, 0]
    events = table.pass_(1, reveal=True)
    revealed = [e for e in events if e["type"] == "cards_revealed"]
    assert revealed and revealed[0]["cards"] == ["m6"] and revealed[0]["cause"] == "pass"
    assert table.strengths(SPECTATOR) == [5, 6, 0]
    events = table.pass_(2)
    assert not [e for e in events if e["type"] == "cards_revealed"]
    assert GAME.view(table.state, 0)["players"][2]["line"] == [{"card": None, "face_down": True}]


def test_opt_hid_3_all_revealed_before_comparing():
    """OPT-HID-3: at the battle's end every face-down card is revealed and counted."""
    table = Table([["m5"], ["m6"]], options=HID)
    table.place("Torino")
    table.card(0, "m5")
    table.card(1, "m6")
    table.pass_(0)
    events = table.pass_(1)
    revealed = [e for e in events if e["type"] == "cards_revealed"]
    assert sorted((e["seat"], tuple(e["cards"])) for e in revealed) == [(0, ("m5",)), (1, ("m6",))]
    assert all(e["cause"] == "battle_end" for e in revealed)
    kinds = [e["type"] for e in events]
    assert max(i for i, k in enumerate(kinds) if k == "cards_revealed") < kinds.index("battle_ended")
    end = battle_end(events)
    assert normalise_per_seat(end["strengths"], 2) == [5, 6] and end["winner"] == 1


def test_opt_hid_5_scarecrow_cannot_take_back_face_down():
    """OPT-HID-5 / RL-6: the card face down when the Scarecrow is played cannot be taken back;
    a face-up one can."""
    table = Table([["m5", "m3", "scarecrow"], ["m2"]], options=HID)
    table.place("Torino")
    table.card(0, "m5")
    table.pass_(1)
    table.card(0, "m3")  # m5 turned up, m3 face down
    legal = {m.get("take_back") for m in table.legal(0) if m["type"] == "play" and m["card"] == "scarecrow"}
    assert legal == {"m5", None}
    assert (
        table.refuse_code(0, {"type": "play", "card": "scarecrow", "take_back": "m3"}) == "INVALID_TAKE_BACK"
    )
    table.card(0, "scarecrow", take_back="m5")
    assert "m5" in table.hand(0)
    # the scarecrow's play turned the m3 face up afterwards
    assert GAME.view(table.state, 1)["players"][0]["line"] == [{"card": "m3", "face_down": False}]


def test_rl_6_bishop_ignores_its_own_players_face_down_mercenary():
    """RL-6 / OPT-HID-5: a new card's effect resolves before its player's face-down card turns
    up: the Bishop's player's face-down 10 survives, the face-up 10 elsewhere does not."""
    table = Table([["m1", "m10", "bishop"], ["m10", "m1"]], options=HID)
    table.place("Torino")
    table.card(0, "m1")
    table.card(1, "m10")
    table.card(0, "m10")  # m1 turns up, m10 face down
    table.card(1, "m1")  # seat 1's m10 turns up
    events = table.card(0, "bishop", pope=None)
    kinds = [e["type"] for e in events]
    gone = sorted(
        (d["seat"], d["card"])
        for e in events
        if e["type"] == "cards_discarded" and e["cause"] == "bishop"
        for d in e["cards"]
        if d["card"] != "bishop"
    )
    assert gone == [(1, "m10")]
    revealed = [e for e in events if e["type"] == "cards_revealed"]
    assert revealed and revealed[0]["cards"] == ["m10"] and revealed[0]["seat"] == 0
    assert kinds.index("cards_discarded") < kinds.index("cards_revealed")
    assert table.line(0, SPECTATOR) == ["m1", "m10"]
    assert table.strengths(SPECTATOR) == [11, 0]


def test_opt_hid_3_surrender_reveals_and_counts_face_down_cards():
    """OPT-HID-3 / SUR-1: a Surrender ends the battle; face-down cards are revealed and counted
    before the strongest line is found."""
    table = Table([["m2", "surrender"], ["m10"]], options=HID)
    table.place("Torino")
    table.card(0, "m2")
    table.card(1, "m10")
    assert table.strengths(SPECTATOR) == [0, 0]
    events = table.card(0, "surrender")  # turns seat 0's m2 up; seat 1's m10 is still down
    end = battle_end(events)
    assert end["cause"] == "surrender"
    assert normalise_per_seat(end["strengths"], 2) == [2, 10]
    assert end["winner"] == 1 and table.owner("Torino") == 1
    revealed = [(e["seat"], e["cards"]) for e in events if e["type"] == "cards_revealed"]
    assert (1, ["m10"]) in revealed


def test_opt_points_1_each_game_starts_afresh():
    """OPT-POINTS-1 / PIECE-2: a new game of a match starts with an empty board and the Pope off
    it; the scores carry over."""
    table = Table([["bishop"]], players=4, options={"points_target": 30})
    table.place("Firenze")
    table.card(0, "bishop", pope="Milano")
    table.play_lines({0: ["m1"]}, then_pass=True)
    assert table.view()["pope"] == "Milano"
    for region in ("Siena", "Roma"):
        table.win_battle(region, 0)
    assert table.last("game_won")["reason"] == "adjacent"
    view = table.view()
    assert view["match"]["game_number"] == 2
    assert view["pope"] is None
    assert all(owner is None for owner in view["regions"].values())
    assert normalise_per_seat(view["match"]["scores"], 4) == [8, 0, 0, 0]
    assert "Milano" in {m["region"] for m in table.legal(table.holder)}
