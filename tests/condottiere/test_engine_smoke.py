"""Engine smoke tests (ENGINE engineer): random legal games of every ruleset and many option
combinations finish, keep every card accounted for (CARD-1, CARD-2, CL-1), fold to the live state,
survive a JSON snapshot, verify (RL-10) and never show a seat another seat's hand (OPT-HID-4).
The exhaustive rule-by-rule tests live in the other files of this folder."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from games import get_game
from games.base import FULL, SPECTATOR, fold

GAME = get_game("condottiere")

CONFIGS = [
    ("2006", {}),
    ("classic", {}),
    ("2006", {"draw_after_battle": True}),
    ("2006", {"hidden_cards": True}),
    ("2006", {"capturing": True}),
    ("2006", {"bigger_kingdoms": True}),
    ("2006", {"points_target": 8}),
    ("classic", {"capturing": True, "bigger_kingdoms": True}),
    ("classic", {"points_target": 8}),
    ("2006", {"draw_after_battle": True, "hidden_cards": True, "capturing": True,
              "bigger_kingdoms": True, "points_target": 8}),
]


def _all_cards(state):
    data = GAME.state_to_json(state)
    cards = list(data["deck"]) + list(data["discard"])
    for group in ("hands", "lines", "down"):
        for cards_of_seat in data[group]:
            cards += cards_of_seat
    return Counter(cards)


def random_game(ruleset, options, players, seed, check_every_move=False):
    rng = random.Random(seed)
    config = GAME.configure({"ruleset": ruleset, "players": players, "seed": seed,
                             "options": options})
    deck = Counter(GAME.start(config)[2]["cards"])  # the first deck_shuffled holds every card
    log = GAME.start(config)
    state = fold(GAME, log)
    moves = 0
    while not GAME.is_over(state):
        seat = rng.choice(GAME.awaiting(state))
        legal = GAME.legal_moves(state, seat)
        assert legal, "an awaited seat always has a legal move"
        events = GAME.decide(state, seat, rng.choice(legal))
        state = fold(GAME, events, state)
        log += events
        moves += 1
        assert moves < 20_000, "the game does not end"
        if check_every_move:
            assert _all_cards(state) == deck
    return log, state, deck


@pytest.mark.parametrize("ruleset,options", CONFIGS)
@pytest.mark.parametrize("players", [2, 4, 6])
def test_random_games_finish_fold_and_verify(ruleset, options, players):
    """SET-1, RL-10, CARD-1, CL-1: random legal games end; cards are all accounted for; the fold
    of the log (also through JSON) equals the live state; verify_log accepts the log."""
    for seed in range(3):
        log, state, deck = random_game(ruleset, options, players, seed + 100 * players,
                                       check_every_move=(seed == 0))
        assert GAME.is_over(state)
        result = GAME.result(state)
        assert result is not None and isinstance(result["winners"], list)
        assert _all_cards(state) == deck
        wire = json.loads(json.dumps(log))
        assert fold(GAME, wire) == state
        snapshot = json.loads(json.dumps(GAME.state_to_json(state)))
        assert GAME.state_from_json(snapshot) == state
        assert GAME.verify_log(wire) is None


def test_snapshot_midgame_resumes_identically():
    """RL-10: a JSON snapshot taken in the middle of a game decides exactly like the live state."""
    log, _, _ = random_game("2006", {"hidden_cards": True, "capturing": True}, 4, 5)
    state = None
    for i, event in enumerate(log):
        state = GAME.evolve(state, event)
        if i % 7 == 0 and GAME.awaiting(state):
            copy = GAME.state_from_json(json.loads(json.dumps(GAME.state_to_json(state))))
            assert copy == state
            seat = GAME.awaiting(state)[0]
            for command in GAME.legal_moves(state, seat)[:3]:
                assert GAME.decide(copy, seat, command) == GAME.decide(state, seat, command)


def test_verify_log_finds_tampering():
    """RL-10, BAT-3: a log whose dealt cards or moves were altered is refused at the right event."""
    log, _, _ = random_game("2006", {}, 3, 11)
    assert GAME.verify_log(log) is None
    dealt = next(i for i, e in enumerate(log) if e["type"] == "cards_dealt")
    forged = json.loads(json.dumps(log))
    forged[dealt]["cards"][0] = "heroine" if forged[dealt]["cards"][0] != "heroine" else "m1"
    error = GAME.verify_log(forged)
    assert error is not None and error.index == dealt
    played = next(i for i, e in enumerate(log) if e["type"] == "card_played")
    forged = json.loads(json.dumps(log))
    hand = Counter(GAME.view(fold(GAME, log[:played]), FULL)["players"][log[played]["seat"]]["hand"])
    forged[played]["card"] = next(c for c in ("heroine", "m10", "surrender", "m1") if not hand[c])
    error = GAME.verify_log(forged)
    assert error is not None and error.index == played and error.code == "CARD_NOT_IN_HAND"
    error = GAME.verify_log(log[:-1])  # game_won is automatic: it must be there
    assert error is not None and error.code == "INCOMPLETE_LOG"
    error = GAME.verify_log(log + [log[-1]])
    assert error is not None and error.index == len(log)


def test_views_and_events_hide_other_hands():
    """OPT-HID-4, OPT-HID-1: no seat view, spectator view or redacted event carries another seat's
    hand or face-down card."""
    log, _, _ = random_game("2006", {"hidden_cards": True, "draw_after_battle": True}, 3, 21)
    state = None
    for event in log:
        before = state
        state = GAME.evolve(state, event)
        for viewer in (0, 1, 2, SPECTATOR):
            seen = GAME.redact(event, viewer)
            if event["type"] in ("cards_dealt", "cards_drawn") and event["seat"] != viewer:
                assert seen["cards"] is None and seen["count"] == len(event["cards"])
            if event["type"] == "deck_shuffled":
                assert seen["cards"] is None
            if event["type"] == "card_played" and event["face_down"] and event["seat"] != viewer:
                assert seen["card"] is None
                assert "face-down" in GAME.annotate(before, seen, state)
        if GAME.is_over(state):
            break
        for viewer in (0, 1, 2, SPECTATOR):
            view = GAME.view(state, viewer)
            text = json.dumps(view)
            assert '"deck"' not in text
            for player in view["players"]:
                if player["seat"] != viewer:
                    assert "hand" not in player and "true_strength" not in player
                    assert all(c["card"] is None for c in player["line"] if c["face_down"])


def test_legal_moves_are_all_accepted():
    """BAT-3, SCA-1, BIS-2, END-7, RND-2, CL-5: every legal move of every awaited seat is accepted
    by decide, along whole random games."""
    for ruleset, options in (("2006", {"hidden_cards": True, "capturing": True}), ("classic", {})):
        log, _, _ = random_game(ruleset, options, 3, 31)
        state = None
        for event in log:
            state = GAME.evolve(state, event)
            for seat in GAME.awaiting(state):
                for command in GAME.legal_moves(state, seat):
                    GAME.decide(state, seat, command)
