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
    (
        "2006",
        {
            "draw_after_battle": True,
            "hidden_cards": True,
            "capturing": True,
            "bigger_kingdoms": True,
            "points_target": 8,
        },
    ),
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
    config = GAME.configure({"ruleset": ruleset, "players": players, "seed": seed, "options": options})
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
        log, state, deck = random_game(
            ruleset, options, players, seed + 100 * players, check_every_move=(seed == 0)
        )
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


def test_seed_and_deck_order_stay_secret_until_the_end():
    """RL-10, OPT-HID-4: every shuffle derives from the seed and a deck order reveals every hand:
    neither reaches a seat or a spectator (views, redacted game_started); FULL shows both."""
    seed = 987_654_321_012_345
    config = GAME.configure({"players": 3, "seed": seed})
    ordered = GAME.configure({"players": 3, "seed": seed, "deck_order": GAME.start(config)[2]["cards"]})
    for cfg in (config, ordered):
        log = GAME.start(cfg)
        state = fold(GAME, log)
        for viewer in (0, 1, 2, SPECTATOR):
            text = json.dumps([GAME.view(state, viewer), [GAME.redact(e, viewer) for e in log]])
            assert str(seed) not in text
            assert '"deck_order": null' in text
        assert GAME.view(state, FULL)["config"]["seed"] == seed
        assert GAME.redact(log[0], FULL)["config"] == cfg


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


# -- the engine's own rulings (docs/rulings.md, RL-X...) -------------------------------------------
from games.condottiere.board import DECK_COUNTS  # noqa: E402

_STRENGTH = {"m1": 1, "m2": 2, "m3": 3, "m4": 4, "m5": 5, "m6": 6, "m10": 10, "heroine": 10, "courtesan": 1}
_FILL = (
    "m1",
    "m2",
    "m3",
    "m4",
    "m5",
    "m6",
    "m10",
    "heroine",
    "courtesan",
    "drummer",
    "surrender",
    "scarecrow",
    "bishop",
    "winter",
    "spring",
)


class Scene:
    """A game with exact starting hands (deck_order: seat s gets cards[10*s:10*s+10])."""

    def __init__(self, hands, ruleset="2006", options=None, first=0, seed=1):
        pool = Counter(DECK_COUNTS[ruleset])
        for hand in hands:
            pool -= Counter(hand)
        spare = [c for c in _FILL for _ in range(pool[c])]
        deal = 7 if (options or {}).get("draw_after_battle") else 10
        deck = []
        for hand in hands:
            deck += list(hand) + [spare.pop(0) for _ in range(deal - len(hand))]
        self.deck = deck + spare
        self.config = GAME.configure(
            {
                "ruleset": ruleset,
                "players": len(hands),
                "seed": seed,
                "first_condottiere": first,
                "options": options or {},
                "deck_order": self.deck,
            }
        )
        self.log = GAME.start(self.config)
        self.state = fold(GAME, self.log)

    def do(self, seat, command):
        events = GAME.decide(self.state, seat, command)
        self.state = fold(GAME, events, self.state)
        self.log += events
        # RL-12: answer *keep* where it is a seat's only legal answer, as clients may
        keep = {"type": "discard_hand", "discard": False}
        while self.view()["phase"] == "hand_discard":
            forced = [s for s in GAME.awaiting(self.state) if GAME.legal_moves(self.state, s) == [keep]]
            if not forced:
                break
            more = GAME.decide(self.state, forced[0], keep)
            self.state = fold(GAME, more, self.state)
            self.log += more
            events += more
        return events

    def view(self, viewer=FULL):
        return GAME.view(self.state, viewer)

    def place(self, region):
        return self.do(self.view()["condottiere"], {"type": "place_token", "region": region})

    def win(self, region, winner):
        """The holder chooses ``region``; ``winner`` plays his highest mercenary, others pass."""
        events = self.place(region)
        events += self.answer()
        played = False
        while self.view()["phase"] == "battle" and "battle_ended" not in self.types(events):
            seat = self.view()["turn"]
            if seat == winner and not played:
                hand = self.view(seat)["hand"]
                card = max((c for c in hand if c in _STRENGTH), key=_STRENGTH.get)
                events += self.do(seat, {"type": "play", "card": card})
                played = True
            else:
                events += self.do(seat, {"type": "pass"})
        return events

    def answer(self):
        events = []
        while self.view()["phase"] in ("hand_discard", "keep_cards"):
            seat = GAME.awaiting(self.state)[0]
            if self.view()["phase"] == "hand_discard":
                events += self.do(seat, {"type": "discard_hand", "discard": False})
            else:
                events += self.do(seat, {"type": "keep_cards", "cards": []})
        return events

    def types(self, events):
        return [e["type"] for e in events]


def test_rl_x20_no_decision_can_be_taken_back():
    """RL-X20: at every decision of whole random games (hidden cards and capture, and classic) an
    ``undo`` from any seat is refused with NOTHING_TO_UNDO and is never a legal move (so no bot or
    search ever sends one)."""
    from games.base import CommandError

    for ruleset, options in (("2006", {"hidden_cards": True, "capturing": True}), ("classic", {})):
        log, _, _ = random_game(ruleset, options, 3, 41)
        state = None
        for event in log:
            state = GAME.evolve(state, event)
            for seat in GAME.awaiting(state):
                assert all(move["type"] != "undo" for move in GAME.legal_moves(state, seat))
                with pytest.raises(CommandError) as err:
                    GAME.decide(state, seat, {"type": "undo"})
                assert err.value.code == "NOTHING_TO_UNDO"


def test_rl_x3_both_thresholds_count_as_adjacent_and_earn_the_bonus():
    """RL-X3, VIC-1, OPT-POINTS-1: five regions of which three adjacent: reason adjacent, +5."""
    scene = Scene([["m10"] * 8, [], [], []], options={"points_target": 100})
    for region in ("Siena", "Napoli", "Torino", "Milano"):
        scene.win(region, 0)
    assert not any(e["type"] == "game_won" for e in scene.log)
    events = scene.win("Venezia", 0)  # Torino-Milano-Venezia: 3 adjacent, and 5 in total
    won = next(e for e in events if e["type"] == "game_won")
    assert won["winners"] == [0] and won["reason"] == "adjacent"
    scored = next(e for e in events if e["type"] == "game_scored")
    assert scored["gained"] == [10, 0, 0, 0]


def test_rl_x6_reveal_comes_before_the_pass():
    """RL-X6, OPT-HID-2: a pass that reveals records the reveal first, then the pass."""
    scene = Scene([["m5"], []], options={"hidden_cards": True})
    scene.place("Torino")
    scene.do(0, {"type": "play", "card": "m5"})
    scene.do(1, {"type": "pass"})
    assert {"type": "pass", "reveal": True} in GAME.legal_moves(scene.state, 0)
    events = scene.do(0, {"type": "pass", "reveal": True})
    assert scene.types(events)[:2] == ["cards_revealed", "passed"]
    assert events[0]["cause"] == "pass" and events[0]["cards"] == ["m5"]


def test_rl_x5_shown_strength_ignores_face_down_cards():
    """RL-X5, OPT-HID-4, DRU-1: a face-down Drummer doubles nothing in the shown strength; the
    owner's true_strength counts it."""
    scene = Scene([["m5", "drummer"], []], options={"hidden_cards": True})
    scene.place("Torino")
    scene.do(0, {"type": "play", "card": "m5"})
    scene.do(1, {"type": "pass"})
    scene.do(0, {"type": "play", "card": "drummer"})  # turns the m5 face up (OPT-HID-2)
    spectator = GAME.view(scene.state, SPECTATOR)["players"][0]
    own = GAME.view(scene.state, 0)["players"][0]
    assert spectator["strength"] == 5 and "true_strength" not in spectator
    assert own["strength"] == 5 and own["true_strength"] == 10


def _round_end_scene(ruleset):
    # Seat 0 holds no mercenary; seat 1 spends 8 of his 10 mercenaries winning Torino.
    specials = ["courtesan"] * 10 if ruleset == "2006" else ["scarecrow"] * 10
    scene = Scene([specials, ["m1"] * 10], ruleset=ruleset)
    scene.place("Torino")
    scene.do(0, {"type": "pass"})
    for _ in range(8):
        scene.do(1, {"type": "play", "card": "m1"})
    scene.do(1, {"type": "pass"})
    assert scene.view()["regions"]["Torino"] == 1
    scene.place("Milano")  # END-7 follows the choice (RL-3): seat 0 may discard
    assert scene.view()["phase"] == "hand_discard" and GAME.awaiting(scene.state) == [0]
    return scene


def test_rl_x10_last_holder_with_two_cards_is_still_asked():
    """RL-X10, RND-1, RND-2: the only player holding cards (two) chooses what to keep."""
    scene = _round_end_scene("2006")
    events = scene.do(0, {"type": "discard_hand", "discard": True})
    assert events[-1]["type"] == "round_ended" and events[-1]["holder"] == 1
    assert scene.view()["phase"] == "keep_cards" and GAME.awaiting(scene.state) == [1]
    events = scene.do(1, {"type": "keep_cards", "cards": ["m1"]})
    assert events[0]["kept"] == ["m1"] and events[0]["discarded"] == ["m1"]
    hands = [p["hand_size"] for p in scene.view()["players"]]
    assert hands == [10, 11]  # RND-3: up to 10, plus one for Torino


def test_rl_x11_classic_last_holder_discards_automatically():
    """RL-X11, CL-6: classic: the last holder's cards are discarded by the engine, recorded."""
    scene = _round_end_scene("classic")
    events = scene.do(0, {"type": "discard_hand", "discard": True})
    kinds = scene.types(events)
    at = kinds.index("round_ended")
    auto = events[at + 1]
    assert auto["type"] == "hand_discarded" and auto["auto"] is True and auto["seat"] == 1
    assert auto["cards"] == ["m1", "m1"]
    assert [p["hand_size"] for p in scene.view()["players"]] == [10, 12]  # 10 + 2 per region


def test_rl_x12_no_hand_discard_before_the_first_battle():
    """RL-X12, END-7: a hand without mercenary at the start is not offered a discard."""
    scene = Scene([["courtesan"] * 10, []])
    events = scene.place("Torino")
    assert scene.types(events) == ["token_placed"]
    assert scene.view()["phase"] == "battle"


def test_rl_x13_bishop_without_mercenaries_and_pope_on_the_same_region():
    """RL-X13, BIS-1, BIS-2: no mercenary in play: only the Bishop is discarded; the Pope may be
    placed again where it lies."""
    scene = Scene([["bishop", "bishop", "heroine"], []])
    scene.place("Torino")
    events = scene.do(0, {"type": "play", "card": "bishop", "pope": "Roma"})
    assert events[1]["cards"] == [{"seat": 0, "card": "bishop"}]
    assert events[2] == {"type": "pope_placed", "v": 1, "seat": 0, "region": "Roma"}
    scene.do(1, {"type": "pass"})
    assert {"type": "play", "card": "bishop", "pope": "Roma"} in GAME.legal_moves(scene.state, 0)
    scene.do(0, {"type": "play", "card": "bishop", "pope": "Roma"})
    assert scene.view()["pope"] == "Roma"


def test_rl_x15_defender_without_cards_passes_freely_until_rl_4():
    """RL-X15, OPT-CAP-2, RL-4, BAT-5: a defender with no cards is passed automatically, freely
    while others still play, finally once everyone else has passed."""
    scene = Scene([[], ["m1"] * 10, ["m10"]], options={"capturing": True})
    scene.place("Torino")
    scene.do(0, {"type": "pass"})
    for _ in range(10):
        scene.do(1, {"type": "play", "card": "m1"})
        if scene.view()["turn"] == 2:
            scene.do(2, {"type": "pass"})
    assert scene.view()["regions"]["Torino"] == 1
    scene.place("Milano")  # seat 1 (the winner) chooses; he has no cards left
    scene.answer()
    assert scene.log[-1]["type"] == "passed" and scene.log[-1]["auto"] is True
    scene.do(2, {"type": "play", "card": "m10"})
    scene.do(0, {"type": "pass"})
    scene.do(2, {"type": "pass"})
    assert scene.view()["regions"]["Milano"] == 2 and scene.view()["condottiere"] == 2
    scene.place("Torino")  # seat 1 defends Torino with no cards
    assert scene.view()["battle"]["defender"] == 1
    scene.do(2, {"type": "play", "card": "m1" if "m1" in scene.view(2)["hand"] else scene.view(2)["hand"][0]})
    events = scene.do(0, {"type": "pass"})
    free = [e for e in events if e["type"] == "passed" and e["seat"] == 1]
    assert free and free[0]["auto"] is True and free[0]["final"] is False
    events = scene.do(2, {"type": "pass"})
    final = [e for e in events if e["type"] == "passed" and e["seat"] == 1]
    assert final and final[0]["final"] is True
    assert any(e["type"] == "battle_ended" for e in events)


def test_rl_x4_classic_capture_bishop_gives_the_token_to_the_defender():
    """RL-X4, CL-3, CL-7: a Bishop in a classic capture battle: no victor, the defender keeps the
    city and receives the token."""
    scene = Scene([[], ["m6"], ["bishop"]], ruleset="classic", options={"capturing": True})
    scene.win("Torino", 1)
    assert scene.view()["condottiere"] == 1
    scene.do(1, {"type": "decline_token"})
    assert scene.view()["condottiere"] == 2
    scene.place("Torino")
    scene.answer()
    events = scene.do(2, {"type": "play", "card": "bishop"})
    ended = next(e for e in events if e["type"] == "battle_ended")
    assert ended["winner"] is None and ended["cause"] == "bishop"
    token = next(e for e in events if e["type"] == "token_passed")
    assert token["seat"] == 1 and token["cause"] == "defender"
    assert scene.view()["regions"]["Torino"] == 1


def test_rl_x7_later_games_of_a_match_are_shuffled_and_start_left_of_the_first():
    """RL-X7, RL-8: game 2 of a points match gets a fresh shuffle (not the configured deck order)
    and starts with the left neighbour of game 1's first Condottiere."""
    scene = Scene([["m10"] * 6, [], [], []], options={"points_target": 100}, first=0)
    for region in ("Torino", "Venezia", "Lucca", "Siena", "Napoli"):
        scene.win(region, 0)
    kinds = scene.types(scene.log)
    assert kinds.count("game_started") == 2
    second = kinds.index("game_started", 1)
    assert scene.log[second]["game_number"] == 2 and scene.log[second]["scores"] == [5, 0, 0, 0]
    assert scene.log[second + 1] == {"type": "first_condottiere_chosen", "v": 1, "seat": 1, "drawn": False}
    shuffled = scene.log[second + 2]
    assert shuffled["reason"] == "start" and shuffled["cards"] != scene.deck
    assert Counter(shuffled["cards"]) == Counter(scene.deck)
    assert GAME.verify_log(scene.log) is None


def test_rl_x16_the_most_recent_copy_leaves_the_line():
    """RL-X16, SCA-1: the Scarecrow takes back the most recently played of two equal cards."""
    scene = Scene([["m5", "m3", "m5", "scarecrow"], []])
    scene.place("Torino")
    for card in ("m5", "m3", "m5"):
        scene.do(0, {"type": "play", "card": card})
        if scene.view()["turn"] == 1:
            scene.do(1, {"type": "pass"})
    scene.do(0, {"type": "play", "card": "scarecrow", "take_back": "m5"})
    assert [c["card"] for c in scene.view()["players"][0]["line"]] == ["m5", "m3"]


def test_a_state_between_the_events_of_one_move_awaits_nobody():
    """BAT-3, RL-6: folding only part of a move's events gives a state that awaits nobody, and
    verify_log calls a log cut there incomplete."""
    scene = Scene([["m5", "m6"], []], options={"hidden_cards": True})
    scene.place("Torino")
    scene.do(0, {"type": "play", "card": "m5"})
    scene.do(1, {"type": "pass"})
    events = scene.do(0, {"type": "play", "card": "m6"})
    assert scene.types(events) == ["card_played", "cards_revealed"]
    partial = fold(GAME, scene.log[:-1])
    assert GAME.awaiting(partial) == [] and GAME.view(partial, FULL)["phase"] == "resolving"
    error = GAME.verify_log(scene.log[:-1])
    assert error is not None and error.code == "INCOMPLETE_LOG"


# Six players: every region conquered, seats 0 and 1 tied on 4 regions, nobody with 3 adjacent.
TWO_LEADERS = [
    ["Venezia", "Ancona", "Genova", "Napoli"],
    ["Firenze", "Milano", "Lucca", "Ferrara"],
    ["Siena", "Roma", "Parma"],
    ["Modena", "Bologna"],
    ["Mantova", "Torino"],
    ["Spoleto", "Urbino"],
]


def _conquer(scene, assignment):
    order = [(r, s) for s, regions in enumerate(assignment) for r in regions]
    order.sort(key=lambda item: item[1] == 1)  # seat 1 wins last: holds the token
    for region, seat in order:
        scene.win(region, seat)


def test_rl_x9_shared_final_battle_victory_earns_no_bonus():
    """RL-X9, VIC-3, VIC-4, OPT-POINTS-1: a game shared after a tied final battle scores regions
    only."""
    scene = Scene([[]] * 6, options={"points_target": 100})
    _conquer(scene, TWO_LEADERS)
    started = scene.log[-1] if scene.log[-1]["type"] == "final_battle_started" else None
    assert any(e["type"] == "final_battle_started" for e in scene.log)
    assert started is None or started["seats"] == [0, 1]
    while scene.view()["phase"] == "battle":
        scene.do(scene.view()["turn"], {"type": "pass"})
    won = next(e for e in scene.log if e["type"] == "game_won")
    assert won["winners"] == [0, 1] and won["reason"] == "final_battle"
    scored = next(e for e in scene.log if e["type"] == "game_scored")
    assert scored["gained"] == [4, 4, 3, 2, 2, 2]


def test_rl_x14_classic_bishop_in_the_final_battle_means_no_winner():
    """RL-X14, CL-2, CL-3: a classic Bishop ends the final battle without victor: no winner."""
    for seed in range(60):
        scene = Scene([[]] * 6, ruleset="classic", seed=seed)
        _conquer(scene, TWO_LEADERS)
        assert scene.view()["battle"]["final"] is True
        turn = scene.view()["turn"]
        if "bishop" in scene.view(turn)["hand"]:
            break
    else:
        pytest.fail("no seed dealt a Bishop to the first player of the final battle")
    assert [p["hand_size"] for p in scene.view()["players"]] == [18, 18, 0, 0, 0, 0]  # CL-2
    events = scene.do(turn, {"type": "play", "card": "bishop"})
    ended = next(e for e in events if e["type"] == "battle_ended")
    assert ended["winner"] is None and ended["region"] is None
    won = next(e for e in events if e["type"] == "game_won")
    assert won["winners"] == [] and won["reason"] == "no_winner"
    assert GAME.result(scene.state)["winners"] == []


SEED_X8 = 0  # game 2 is shuffled from the seed: one where seat 1 holds enough strength cards


def test_rl_x8_match_tie_break_final_battle():
    """RL-X8, OPT-POINTS-2, VIC-4, RL-8: tied at the top after the target: a final battle between
    the tied players, 10 + 1 per region of the last game, the token holder first; a tie shares."""
    scene = Scene([["m10"] * 5, ["m10"], [], []], options={"points_target": 6}, seed=SEED_X8)
    scene.win("Genova", 1)
    for region in ("Torino", "Venezia", "Lucca", "Siena", "Napoli"):
        scene.win(region, 0)
    assert next(e for e in scene.log if e["type"] == "game_scored")["scores"] == [5, 1, 0, 0]
    assert scene.view()["condottiere"] == 1  # RL-8: left of game 1's first (seat 0)
    scene.win("Genova", 0)
    for region in ("Torino", "Venezia", "Lucca", "Siena", "Napoli"):
        scene.win(region, 1)
    last_scores = [e for e in scene.log if e["type"] == "game_scored"][-1]
    assert last_scores["scores"] == [6, 6, 0, 0]
    started = next(e for e in scene.log if e["type"] == "final_battle_started")
    assert started == {"type": "final_battle_started", "v": 1, "seats": [0, 1], "first": 1}
    assert [p["hand_size"] for p in scene.view()["players"]] == [11, 15, 0, 0]
    assert scene.view()["turn"] == 1
    scene.do(1, {"type": "pass"})
    events = scene.do(0, {"type": "pass"})
    assert events[-1] == {"type": "match_won", "v": 1, "winners": [0, 1], "scores": [6, 6, 0, 0]}
    assert GAME.result(scene.state)["winners"] == [0, 1]


def _crafted(state, **changes):
    data = json.loads(json.dumps(GAME.state_to_json(state)))
    data.update(changes)
    return GAME.state_from_json(data)


def test_rl_x2_capture_game_ends_when_the_holder_has_no_region_to_choose():
    """RL-X2, END-5, VIC-3, OPT-CAP-1: with capturing, the game ends by most regions only when
    the token holder may choose no region (his own and the Pope's are all that is left)."""
    scene = Scene([[], [], []], options={"capturing": True})
    data = GAME.state_to_json(scene.state)
    region_count = len(data["owners"])
    owners = [0] * region_count
    owners[5] = 1  # seat 1 holds one region: seat 0 may attack it
    state = _crafted(scene.state, owners=owners, pope=None)
    assert GAME.awaiting(state) == [0]
    assert GAME.legal_moves(state, 0) == [{"type": "place_token", "region": "Ferrara"}]
    owners[5] = 0
    state = _crafted(scene.state, owners=owners, pope=5)
    assert GAME.awaiting(state) == []
    won = GAME.next_automatic_event(state)
    assert won["type"] == "game_won" and won["winners"] == [0] and won["reason"] == "most_regions"


def test_rl_x1_nothing_left_to_draw():
    """RL-X1, OPT-DRAW-2, RL-7: deck and discard pile empty: nobody draws, the game goes on."""
    scene = Scene([["m5"], [], []], options={"draw_after_battle": True})
    state = scene.state
    data = GAME.state_to_json(state)
    hands = data["hands"]
    hands[2] = sorted(hands[2] + data["deck"] + data["discard"])  # every spare card to seat 2
    state = _crafted(state, hands=hands, deck=[], discard=[])
    scene.state = state
    scene.place("Torino")
    scene.do(0, {"type": "play", "card": "m5"})
    scene.do(1, {"type": "pass"})
    scene.do(2, {"type": "pass"})
    events = scene.do(0, {"type": "pass"})
    kinds = scene.types(events)
    assert "battle_ended" in kinds and "cards_drawn" not in kinds and "deck_shuffled" not in kinds
    assert scene.view()["phase"] == "place_token" and GAME.awaiting(scene.state) == [0]


def test_malformed_commands_are_refused_with_a_command_error():
    """BAT-3 (and every command): whatever a client sends, decide answers a CommandError with a
    stable code, never another exception, and never changes the state."""
    from games.base import CommandError

    values = [
        None,
        True,
        0,
        -1,
        7,
        1.5,
        "",
        "m5",
        "scarecrow",
        "bishop",
        "Roma",
        "Atlantis",
        [],
        ["m5"],
        ["m5", "m5", "m5"],
        [None],
        {},
        {"a": 1},
    ]
    keys = ["card", "take_back", "pope", "region", "reveal", "discard", "cards", "extra"]
    types = ["play", "pass", "place_token", "decline_token", "discard_hand", "keep_cards", "nope", None, 3]
    rng = random.Random(99)
    for ruleset, options in (("2006", {"hidden_cards": True, "capturing": True}), ("classic", {})):
        log, _, _ = random_game(ruleset, options, 3, 41)
        state = None
        for i, event in enumerate(log):
            state = GAME.evolve(state, event)
            if i % 5:
                continue
            before = GAME.state_to_json(state)
            for _ in range(20):
                command = {"type": rng.choice(types)}
                for key in rng.sample(keys, rng.randint(0, 3)):
                    command[key] = rng.choice(values)
                seat = rng.choice([0, 1, 2, 3, -1, None, "0", True])
                try:
                    GAME.decide(state, seat, command)
                except CommandError as error:
                    assert error.code and error.code.isupper()
            assert GAME.state_to_json(state) == before
        for junk in (None, [], "pass", 5):
            with pytest.raises(CommandError):
                GAME.decide(state, 0, junk)


def test_malformed_configurations_are_refused_with_a_config_error():
    """SET-1, CL-7, OPT-POINTS-1: configure answers a ConfigError with a stable code for anything
    malformed, and normalises a valid configuration idempotently."""
    from games.base import ConfigError

    cases = {
        "INVALID_CONFIG": [None, [], "x", {"players": 3, "colour": "red"}],
        "INVALID_PLAYER_COUNT": [
            {},
            {"players": 1},
            {"players": 7},
            {"players": 4.0},
            {"players": True},
            {"players": "4"},
        ],
        "INVALID_RULESET": [{"players": 3, "ruleset": "2020"}, {"players": 3, "ruleset": ["2006"]}],
        "INVALID_OPTION": [
            {"players": 3, "options": []},
            {"players": 3, "options": {"fog": True}},
            {"players": 3, "options": {"capturing": "yes"}},
        ],
        "INVALID_TARGET": [
            {"players": 3, "options": {"points_target": 0}},
            {"players": 3, "options": {"points_target": True}},
            {"players": 3, "options": {"points_target": "20"}},
        ],
        "OPTION_NOT_IN_RULESET": [
            {"players": 3, "ruleset": "classic", "options": {"hidden_cards": True}},
            {"players": 3, "ruleset": "classic", "options": {"draw_after_battle": True}},
        ],
        "INVALID_SEED": [{"players": 3, "seed": 1.5}, {"players": 3, "seed": "12"}],
        "INVALID_SEAT": [{"players": 3, "first_condottiere": 3}, {"players": 3, "first_condottiere": -1}],
        "INVALID_DECK_ORDER": [
            {"players": 3, "deck_order": ["m1"] * 110},
            {"players": 3, "deck_order": "m1"},
            {"players": 3, "ruleset": "classic", "deck_order": sorted(DECK_COUNTS["2006"])},
        ],
    }
    for code, raws in cases.items():
        for raw in raws:
            with pytest.raises(ConfigError) as info:
                GAME.configure(raw)
            assert info.value.code == code, (raw, info.value.code)
    config = GAME.configure(
        {"players": 5, "ruleset": "classic", "options": {"capturing": True, "points_target": 20}}
    )
    assert GAME.configure(config) == config
    assert config["options"] == {
        "draw_after_battle": False,
        "points_target": 20,
        "bigger_kingdoms": False,
        "capturing": True,
        "hidden_cards": False,
    }
