"""Concluding a battle (2006 edition): END-1..7."""

from __future__ import annotations

from games.base import SPECTATOR
from tests.condottiere.scenario import GAME, REGIONS, Table, battle_end, normalise_per_seat


def test_end_1_single_strongest_line_wins_the_region():
    """END-1: the single strongest line wins and its player's marker goes on the region."""
    table = Table([["m5"], ["m6"], ["m4"]])
    table.place("Mantova")
    table.play_lines({0: ["m5"], 1: ["m6"], 2: ["m4"]}, then_pass=True)
    end = table.last("battle_ended")
    assert end["winner"] == 1 and end["region"] == "Mantova"
    won = table.last("region_won")
    assert (won["seat"], won["region"], won["from"]) == (1, "Mantova", None)
    assert table.owner("Mantova") == 1
    assert table.view(SPECTATOR)["players"][1]["regions"] == ["Mantova"]


def test_end_2_tie_for_highest_means_nobody_wins():
    """END-2: two lines tied for the highest strength: no winner, no marker (lower lines too)."""
    table = Table([["m5"], ["m2", "m3"], ["m4"]])
    table.place("Mantova")
    table.play_lines({0: ["m5"], 1: ["m2", "m3"], 2: ["m4"]}, then_pass=True)
    end = table.last("battle_ended")
    assert normalise_per_seat(end["strengths"], 3) == [5, 5, 4]
    assert end["winner"] is None
    assert table.owner("Mantova") is None
    assert not table.events_of("region_won")


def test_end_2_nobody_played_zero_tie():
    """END-2: nobody played: a 0-0 tie, no winner."""
    table = Table([], players=2)
    events = table.tie_battle("Genova")
    end = battle_end(events)
    assert end["winner"] is None
    assert normalise_per_seat(end["strengths"], 2) == [0, 0]
    assert all(owner is None for owner in table.view()["regions"].values())


def test_end_3_most_courtesans_takes_the_token():
    """END-3: the single player with most Courtesans takes the token, not the winner."""
    table = Table([["m1"], ["courtesan", "courtesan"], ["courtesan", "m10"]])
    table.place("Torino")
    table.play_lines({0: ["m1"], 1: ["courtesan", "courtesan"], 2: ["courtesan", "m10"]}, then_pass=True)
    assert table.last("battle_ended")["winner"] == 2
    passed = table.last("token_passed")
    assert passed["seat"] == 1 and passed["cause"] == "courtesans"
    assert table.holder == 1
    assert table.awaiting == [1]


def test_end_3_courtesan_tie_token_to_the_winner():
    """END-3: Courtesans tied: the winner takes the token."""
    table = Table([["courtesan", "m3"], ["courtesan"], ["m2"]])
    table.place("Torino")
    table.play_lines({0: ["courtesan", "m3"], 1: ["courtesan"], 2: ["m2"]}, then_pass=True)
    assert table.last("battle_ended")["winner"] == 0
    passed = table.last("token_passed")
    assert passed["seat"] == 0 and passed["cause"] == "winner"


def test_end_3_no_winner_no_courtesan_left_neighbour():
    """END-3: no Courtesan, no winner: the left neighbour of the previous holder."""
    table = Table([], players=4, first=3)
    table.tie_battle("Torino")
    passed = table.last("token_passed")
    assert passed["seat"] == 0 and passed["cause"] == "left_neighbour"
    assert table.holder == 0


def test_end_4_victory_checked_before_choosing_a_new_battle():
    """END-4: a winning region ends the game at once: no new token placement is asked."""
    table = Table([], players=4)
    table.win_battle("Napoli", 2)
    table.win_battle("Roma", 2)
    events = table.win_battle("Spoleto", 2)
    kinds = [e["type"] for e in events]
    assert "game_won" in kinds
    assert kinds.index("region_won") < kinds.index("game_won")
    assert table.phase == "over"
    assert GAME.awaiting(table.state) == []
    assert table.view()["winners"] == [2]
    assert "token_placed" not in kinds[kinds.index("region_won") :]


def test_end_5_region_fought_over_can_be_chosen_again_if_nobody_won():
    """END-5: after a tie the same region may be chosen again; won regions may not."""
    table = Table([], players=3)
    table.tie_battle("Firenze")
    holder = table.holder
    regions = {m["region"] for m in table.legal(holder)}
    assert "Firenze" in regions and len(regions) == 17
    table.place("Firenze")
    assert table.view()["battle"]["region"] == "Firenze"


def test_end_5_holder_without_cards_still_chooses():
    """END-5 / RND-4: a holder with an empty hand still places the token."""
    table = Table([["m1"] * 10, ["m2"], ["m3"]])
    table.place("Torino")
    table.card(0, "m1")
    table.pass_(1)
    table.pass_(2)
    for _ in range(9):
        table.card(0, "m1")
    assert table.owner("Torino") == 0
    assert table.hand_size(0) == 0
    assert table.awaiting == [0]
    assert table.phase == "place_token"
    assert len(table.legal(0)) == 16
    table.place("Milano")
    assert table.view()["battle"]["region"] == "Milano"


def test_end_6_battle_lines_are_discarded():
    """END-6: every card of every line goes to the discard pile after the battle."""
    table = Table([["m5", "drummer"], ["m6", "heroine"]])
    table.place("Lucca")
    table.play_lines({0: ["m5", "drummer"], 1: ["m6", "heroine"]}, then_pass=True)
    table.place(next(r for r in REGIONS if r != "Lucca"))
    discarded = table.events_of("battle_lines_discarded")
    assert len(discarded) == 1
    assert sorted((d["seat"], d["card"]) for d in discarded[0]["cards"]) == [
        (0, "drummer"),
        (0, "m5"),
        (1, "heroine"),
        (1, "m6"),
    ]
    view = table.view()
    assert all(p["line"] == [] for p in view["players"])
    assert view["discard_size"] == 4
    assert table.strengths() == [0, 0]
    assert table.total_cards() == 110


def test_end_7_hand_discard_for_hands_without_mercenaries():
    """END-7 / RL-3 / RL-12: after the new region is chosen, every seat holding cards answers (any
    order); only a hand with no mercenary may be discarded, a discard with one is refused."""
    specials_1 = ["courtesan"] * 5 + ["scarecrow"] * 5
    specials_2 = ["scarecrow"] * 5 + ["drummer"] * 5
    table = Table([["m5"], specials_1, specials_2], auto_keep=False)
    table.win_battle("Torino", 0, card="m5")
    assert table.phase == "place_token", "the new region is chosen before the hand discard"
    events = table.place("Genova")
    offered = [e for e in events if e["type"] == "hand_discard_offered"]
    assert offered and offered[0]["seats"] == [0, 1, 2]
    assert table.phase == "hand_discard"
    assert sorted(table.awaiting) == [0, 1, 2]
    assert sorted(table.spectator()["hand_discard"]) == [0, 1, 2]
    assert table.legal(0) == [{"type": "discard_hand", "discard": False}]
    assert table.refuse_code(0, {"type": "discard_hand", "discard": True}) == "NOT_ELIGIBLE"
    assert table.refuse(0, {"type": "discard_hand", "discard": True}).rule == "END-7"
    assert sorted(map(str, table.legal(2))) == sorted(
        map(str, [{"type": "discard_hand", "discard": True}, {"type": "discard_hand", "discard": False}])
    )
    table.do(2, {"type": "discard_hand", "discard": True})
    assert sorted(table.awaiting) == [0, 1]
    assert table.refuse_code(2, {"type": "discard_hand", "discard": False}) == "NOT_YOUR_TURN"
    table.do(1, {"type": "discard_hand", "discard": False})
    table.do(0, {"type": "discard_hand", "discard": False})
    answers = {e["seat"]: e for e in table.events_of("hand_discarded")}
    assert answers[2]["discard"] is True and sorted(answers[2]["cards"]) == sorted(specials_2)
    assert answers[1]["discard"] is False and answers[0]["discard"] is False
    assert table.hand_size(2) == 0 and table.hand_size(1) == 10
    assert table.phase == "battle" and table.turn == 0
    assert table.total_cards() == 110


def test_rl_12_a_seat_with_no_cards_is_not_asked():
    """RL-12: a player with no cards is not asked (and is told it is not his turn)."""
    table = Table([["m5"], ["scarecrow"] * 10, ["m1"] * 10], auto_keep=False)
    table.win_battle("Torino", 0, card="m5")
    table.place("Genova")
    table.do(1, {"type": "discard_hand", "discard": True})
    table.do(0, {"type": "discard_hand", "discard": False})
    table.do(2, {"type": "discard_hand", "discard": False})
    table.pass_all()  # a 0-0 tie: nobody's hand changes, the next region is chosen
    events = table.place("Milano")
    offered = [e for e in events if e["type"] == "hand_discard_offered"]
    assert offered and offered[0]["seats"] == [0, 2]
    assert table.hand_size(1) == 0 and 1 not in table.awaiting
    assert table.refuse_code(1, {"type": "discard_hand", "discard": False}) == "NOT_YOUR_TURN"


def _discard_step_table(seat_1_hand: list[str]) -> Table:
    hands = [
        ["m5", "m1", "m1", "m1", "m2", "m2", "m2", "m3", "m3", "m3"],
        seat_1_hand,
        ["m4", "m4", "m4", "m6", "m6", "m6", "drummer", "drummer", "bishop", "winter"],
    ]
    table = Table(hands, auto_keep=False, fill_hands=False)
    table.win_battle("Torino", 0, card="m5")
    table.place("Genova")
    return table


def _seen_by(table: Table, viewer) -> tuple:
    events = [GAME.redact(e, viewer) for e in table.log]
    return GAME.view(table.state, viewer), events


def test_rl_12_whether_a_seat_may_discard_is_hidden_from_the_others():
    """RL-12, END-7: two games that differ only in whether seat 1 holds a mercenary look the same
    to everybody else at the hand discard (views, awaited seats, events), before and after seat 1
    keeps its hand: a keep looks the same whether it was a choice or not."""
    eligible = _discard_step_table(["courtesan"] * 5 + ["scarecrow"] * 5)
    not_eligible = _discard_step_table(["courtesan"] * 5 + ["scarecrow"] * 4 + ["m10"])
    assert eligible.legal(1) != not_eligible.legal(1)  # seat 1 itself knows the difference
    for table in (eligible, not_eligible):
        assert sorted(table.awaiting) == [0, 1, 2]
    for viewer in (0, 2, SPECTATOR):
        assert _seen_by(eligible, viewer) == _seen_by(not_eligible, viewer)
    for table in (eligible, not_eligible):
        table.do(1, {"type": "discard_hand", "discard": False})
    for viewer in (0, 2, SPECTATOR):
        assert _seen_by(eligible, viewer) == _seen_by(not_eligible, viewer)


def test_rl_11_ten_battles_without_a_card_end_the_game_stalled():
    """RL-11: when 10 battles in a row end with no card played, the game ends at once with no
    winner (reason stalled); a battle with a card played starts the count again."""
    table = Table([], players=3)
    for _ in range(5):
        table.tie_battle("Torino")
    table.win_battle("Torino", table.holder)  # a card is played: the count starts again
    for _ in range(9):
        table.tie_battle("Milano")
    assert not table.events_of("game_won") and table.phase == "place_token"
    events = table.tie_battle("Milano")
    assert [e["type"] for e in events][-2:] == ["battle_ended", "game_won"]
    won = table.last("game_won")
    assert won["winners"] == [] and won["reason"] == "stalled"
    assert GAME.is_over(table.state)
    assert GAME.result(table.state)["reason"] == "stalled"
    assert GAME.verify_log(table.log) is None


def test_rl_11_a_stalled_game_ends_a_points_match_without_scoring():
    """RL-11, OPT-POINTS-1: in a points match the stalled game scores nothing and the match ends
    with it, without a winner."""
    table = Table([], players=2, options={"points_target": 20})
    table.win_battle("Torino", 0)
    for _ in range(10):
        table.tie_battle("Milano")
    assert [e["type"] for e in table.log[-3:]] == ["battle_ended", "game_won", "match_won"]
    assert not table.events_of("game_scored")
    match = table.last("match_won")
    assert match["winners"] == [] and match["scores"] == [0, 0] and match["reason"] == "stalled"
    result = GAME.result(table.state)
    assert result["reason"] == "stalled" and result["winners"] == []
    assert GAME.verify_log(table.log) is None


def test_rl_11_snapshots_written_before_the_stall_count_still_load():
    """RL-11: a snapshot stored before the stall counters existed loads as "no idle battle yet"."""
    table = Table([], players=3)
    table.tie_battle("Torino")
    data = GAME.state_to_json(table.state)
    assert data["idle_battles"] == 1
    del data["idle_battles"], data["card_played"]
    old = GAME.state_from_json(data)
    assert old.idle_battles == 0 and old.card_played is False
    assert GAME.view(old, SPECTATOR) == GAME.view(table.state, SPECTATOR)


def test_rl_11_rl_12_a_game_of_rules_revision_1_never_stalls_and_asks_only_the_eligible():
    """RL-11, RL-12, END-7 under rules revision 1 (logs recorded before RL-11 and RL-12, see
    docs/rulings.md): ten battles without a card do not end the game, and the hand discard is offered
    only to the seats holding no Mercenary."""
    hands = [
        ["m5", "m1", "m1", "m1", "m2", "m2", "m2", "m3", "m3", "m3"],
        ["courtesan"] * 5 + ["scarecrow"] * 5,
        ["m4", "m4", "m4", "m6", "m6", "m6", "drummer", "drummer", "bishop", "winter"],
    ]
    table = Table(hands, fill_hands=False)
    table.state.config = dict(table.state.config, revision=1)
    for _ in range(11):
        table.tie_battle("Milano")
    assert not table.events_of("game_won") and table.phase == "place_token"
    offers = table.events_of("hand_discard_offered")
    assert offers and all(offer["seats"] == [1] for offer in offers)
    newest = Table(hands, fill_hands=False)  # the same game under today's rules
    for _ in range(11):
        if newest.events_of("hand_discard_offered"):
            break
        newest.tie_battle("Milano")
    assert newest.events_of("hand_discard_offered")[0]["seats"] == [0, 1, 2]
