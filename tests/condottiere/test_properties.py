"""Property-based tests: random legal games to the end, for both rulesets and many option
combinations, with invariants checked after every event.

Invariants (issue 2, item 7): every card accounted for; the fold of the log equals the live state;
state JSON round-trips (and deciding on the round-tripped state gives the same events); every game
terminates; no view or redacted event shows a seat anything it may not know; ``decide`` accepts
every legal move (and ``decide_and_evolve`` reaches the state the fold of its events reaches);
``verify_log`` accepts the log and pinpoints a tampered event; the declared
winner satisfies a victory rule (thresholds computed here from the rules' map, not the engine's);
battle strengths agree with an independent implementation of STR-1/STR-2.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections import Counter
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import event as note_statistic
from hypothesis import strategies as st

from games.base import FULL, SPECTATOR, CommandError, fold
from tests import contract_check
from tests.condottiere.scenario import GAME, count_cards, make_config
from tests.condottiere.spec import BORDERS, DECKS, PRINTED, REGIONS, largest_connected
from tests.hypothesis_profiles import examples

MAX_DECISIONS = 4000  # a single game; random play finishes far below this
MAX_DECISIONS_MATCH = 12000  # a points match (several games)
SETTINGS = settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# -- independent rule helpers -----------------------------------------------------------------------


def expected_strengths(lines: list[list[str]]) -> list[int]:
    """STR-1, STR-2, STR-3, WIN-1, SPR-1, DRU-1, HER-1, COU-1, from the rules' text."""
    cards = [c for line in lines for c in line]
    winter = "winter" in cards
    spring = "spring" in cards
    printed = [PRINTED[c] for c in cards if c in PRINTED]
    top = max(printed) if printed else None
    result = []
    for line in lines:
        drum = "drummer" in line
        total = 0
        for card in line:
            if card in PRINTED:
                value = 1 if winter else PRINTED[card]
                if drum:
                    value *= 2
                if spring and PRINTED[card] == top:
                    value += 3
                total += value
            elif card == "heroine":
                total += 10
            elif card == "courtesan":
                total += 1
        result.append(total)
    return result


def thresholds(config: dict) -> tuple[int | None, int]:
    """(total, adjacent) needed to win: VIC-1, VIC-2, OPT-BIG-1, CL-2, CL-7."""
    few = config["players"] <= 3
    adjacent = 4 if few else 3
    if config["options"]["bigger_kingdoms"]:
        adjacent += 1
    total = None if config["ruleset"] == "classic" else (6 if few else 5)
    return total, adjacent


def meets_threshold(regions: list[str], config: dict) -> str | None:
    total, adjacent = thresholds(config)
    if largest_connected(regions) >= adjacent:
        return "adjacent"
    if total is not None and len(regions) >= total:
        return "total"
    return None


def owned_by_seat(view: dict) -> list[list[str]]:
    owned: list[list[str]] = [[] for _ in view["players"]]
    for region, owner in view["regions"].items():
        if owner is not None:
            owned[owner].append(region)
    return owned


def choosable_regions(view: dict, seat: int, config: dict) -> list[str]:
    """BAT-1, PIECE-2, OPT-CAP-1, CL-5: regions the holder could place the token on."""
    capturing = config["options"]["capturing"]
    pope = view.get("pope")
    return [
        r
        for r, owner in view["regions"].items()
        if r != pope and (owner is None or (capturing and owner != seat))
    ]


# -- redaction rules, written from the protocol's table -----------------------------------------------


def expected_redaction(event: dict, viewer: Any) -> dict:
    """What ``viewer`` may see of ``event`` (docs/condottiere-protocol.md, Events)."""
    if viewer == FULL:
        return event
    e = copy.deepcopy(event)
    kind = e["type"]
    own = viewer is not None and e.get("seat") == viewer
    if kind == "game_started":
        # the seed or the deck order would reveal every hand (protocol: game_started)
        e["config"]["deck_order"] = None
        e["config"]["seed"] = None
    elif kind == "deck_shuffled":
        e["cards"] = None
    elif kind in ("cards_dealt", "cards_drawn", "hand_discarded") and not own:
        e["cards"] = None
    elif kind == "card_played" and e["face_down"] and not own:
        e["card"] = None
    elif kind == "card_taken_back" and not own:
        e["card"] = None
    elif kind == "cards_kept" and not own:
        e["kept"] = None
        e["discarded"] = None
    return e


SECRET_FIELDS = {
    "game_started": ("config",),
    "deck_shuffled": ("cards",),
    "cards_dealt": ("cards",),
    "cards_drawn": ("cards",),
    "hand_discarded": ("cards",),
    "card_played": ("card",),
    "card_taken_back": ("card",),
    "cards_kept": ("kept", "discarded"),
}


def check_redaction(event: dict, viewer: Any) -> None:
    original = copy.deepcopy(event)
    redacted = GAME.redact(event, viewer)
    assert event == original, "redact mutated the event"
    expected = expected_redaction(event, viewer)
    secret = SECRET_FIELDS.get(event["type"], ())
    for key in secret:
        if key == "config":
            assert redacted["config"].get("deck_order") == expected["config"].get("deck_order"), (
                event["type"],
                viewer,
            )
            assert redacted["config"].get("seed") == expected["config"].get("seed"), viewer
            public = {k: v for k, v in expected["config"].items() if k not in ("seed", "deck_order")}
            assert {k: redacted["config"].get(k) for k in public} == public
        else:
            assert redacted.get(key) == expected.get(key), (event["type"], key, viewer, redacted)
    # everything else is public and must be kept (counts may be added)
    for key, value in expected.items():
        if key in secret:
            continue
        assert redacted.get(key) == value, (event["type"], key, viewer)
    if event["type"] in ("cards_dealt", "cards_drawn", "hand_discarded") and redacted.get("cards") is None:
        assert redacted.get("count") == len(event["cards"])
    if event["type"] == "deck_shuffled":
        assert redacted.get("count") == len(event["cards"])


def check_views(state: Any, config: dict, total: int) -> dict:
    full = GAME.view(state, FULL)
    n = config["players"]
    assert count_cards(full) == total, "a card went missing or was duplicated"
    all_cards: Counter = Counter(full["deck"])
    for player in full["players"]:
        assert player["hand_size"] == len(player["hand"])
        all_cards.update(player["hand"])
        all_cards.update(e["card"] for e in player["line"])
    # every visible card is a card of the deck, never more copies than the deck has
    assert not (all_cards - Counter(DECKS[config["ruleset"]])), "more copies than the deck holds"
    assert full["deck_size"] == len(full["deck"])
    hidden_mode = config["options"]["hidden_cards"]
    for viewer in list(range(n)) + [SPECTATOR]:
        seen = GAME.view(state, viewer)
        json.dumps(seen)
        assert seen.get("deck") in (None,), "the deck order reached a player"
        assert seen["phase"] == full["phase"] and seen["awaiting"] == full["awaiting"]
        assert seen["regions"] == full["regions"]
        assert "deck_order" not in seen["config"] or seen["config"]["deck_order"] is None
        assert seen["config"].get("seed") is None, "the seed reveals every shuffle"
        for seat, (mine, truth) in enumerate(zip(seen["players"], full["players"], strict=True)):
            assert mine["hand_size"] == truth["hand_size"]
            if seat == viewer:
                assert sorted(seen["hand"]) == sorted(truth["hand"])
                assert mine.get("hand") in (None, truth["hand"]) or sorted(mine["hand"]) == sorted(
                    truth["hand"]
                )
            else:
                assert mine.get("hand") is None, f"seat {seat}'s hand reached viewer {viewer}"
            assert len(mine["line"]) == len(truth["line"])
            for entry, real in zip(mine["line"], truth["line"], strict=True):
                assert entry["face_down"] == real["face_down"]
                if real["face_down"] and seat != viewer:
                    assert entry["card"] is None, f"a face-down card of {seat} reached {viewer}"
                else:
                    assert entry["card"] == real["card"]
                if real["face_down"]:
                    assert hidden_mode
            if seat != viewer:
                assert mine.get("true_strength") in (None, mine["strength"]) or not any(
                    e["face_down"] for e in truth["line"]
                )
            assert mine["strength"] == truth["strength"]
        if viewer is SPECTATOR:
            assert seen.get("hand") is None and seen.get("seat") is None
        else:
            assert seen["seat"] == viewer
            assert seen["legal_moves"] == GAME.legal_moves(state, viewer)
    assert full["awaiting"] == list(GAME.awaiting(state))
    if full["phase"] == "battle":
        # OPT-HID-4: the shown strength counts face-up cards only; the owner's true strength all
        shown = [[e["card"] for e in p["line"] if not e["face_down"]] for p in full["players"]]
        assert [p["strength"] for p in full["players"]] == expected_strengths(shown), shown
        if hidden_mode and any(e["face_down"] for p in full["players"] for e in p["line"]):
            # RL-X5: a seat's true strength counts its own face-down cards and every face-up card,
            # never another seat's face-down card (issue 8: Spring's highest Mercenary did)
            for seat in range(n):
                known = [
                    [e["card"] for e in p["line"] if p["seat"] == seat or not e["face_down"]]
                    for p in full["players"]
                ]
                mine = GAME.view(state, seat)["players"][seat]
                if any(e["face_down"] for e in full["players"][seat]["line"]):
                    assert mine["true_strength"] == expected_strengths(known)[seat]
    return full


class Checker:
    """Follows a game event by event and checks the invariants."""

    def __init__(self, config: dict, rng: random.Random, checks: bool = True):
        self.config = config
        self.n = config["players"]
        self.total = sum(DECKS[config["ruleset"]].values())
        self.rng = rng
        self.checks = checks
        self.reshuffles = 0
        self.boundaries: list[int] = []  # log lengths at which a decision was awaited

    def event(self, before: Any, event: dict, after: Any) -> None:
        json.dumps(event)
        assert event["v"] >= 1 and isinstance(event["type"], str)
        if not self.checks:
            return
        for viewer in list(range(self.n)) + [SPECTATOR]:
            check_redaction(event, viewer)
            contract_check.check("Event", GAME.redact(event, viewer))
        assert GAME.redact(event, FULL) == event
        contract_check.check("Event", event)
        sentence = GAME.annotate(before, event, after)
        assert isinstance(sentence, str) and sentence.strip()
        self.check_annotation_secrecy(before, event, after)
        kind = event["type"]
        if kind == "battle_ended" and before is not None:
            full = GAME.view(before, FULL)
            lines = [[e["card"] for e in p["line"]] for p in full["players"]]
            strengths = event["strengths"]
            if isinstance(strengths, dict):
                strengths = [strengths.get(str(i), strengths.get(i)) for i in range(self.n)]
            assert strengths == expected_strengths(lines), (lines, strengths)
            # END-1, END-2 (CL-3: a classic Bishop has no victor)
            best = max(strengths)
            top = [i for i in range(self.n) if strengths[i] == best]
            if event["winner"] is not None:
                assert strengths[event["winner"]] == best and top == [event["winner"]]
            elif event["cause"] != "bishop" and (full["battle"] or {}).get("final") is not True:
                assert len(top) > 1, "a single strongest line did not win"
        if kind == "deck_shuffled" and event["reason"] == "reshuffle":
            self.reshuffles += 1
        if kind == "game_won":
            self.check_game_won(before, event)
        if kind == "game_scored":
            self.check_scores(before, event)
        if kind == "match_won":
            scores = event["scores"]
            best = max(scores)
            assert best >= self.config["options"]["points_target"] or not event["winners"]
            for w in event["winners"]:
                assert scores[w] == best

    def check_annotation_secrecy(self, before: Any, event: dict, after: Any) -> None:
        """An annotation of a redacted event names no card the viewer may not see."""
        kind = event["type"]
        if kind == "card_played" and event["face_down"]:
            secret = [event["card"]]
        elif kind in ("cards_dealt", "cards_drawn", "hand_discarded") and event["cards"]:
            secret = list(event["cards"])
        elif kind == "card_taken_back":
            secret = [event["card"]]
        else:
            return
        other = (event["seat"] + 1) % self.n
        text = GAME.annotate(before, GAME.redact(event, other), after)
        for card in secret:
            name = f"Mercenary {PRINTED[card]}" if card in PRINTED else card.capitalize()
            assert not re.search(rf"\b{re.escape(name)}\b", text), (kind, text)

    def check_game_won(self, before: Any, event: dict) -> None:
        self.last_game_won = event
        full = GAME.view(before, FULL)
        owned = owned_by_seat(full)
        if event.get("regions") is not None:
            assert [sorted(r) for r in event["regions"]] == [sorted(r) for r in owned]
        reason, winners = event["reason"], event["winners"]
        counts = [len(r) for r in owned]
        if reason in ("total", "adjacent"):
            assert len(winners) == 1
            assert meets_threshold(owned[winners[0]], self.config) is not None
            if reason == "adjacent":
                assert largest_connected(owned[winners[0]]) >= thresholds(self.config)[1]
            else:
                assert counts[winners[0]] >= thresholds(self.config)[0]
        elif reason == "most_regions":
            assert len(winners) == 1 and counts[winners[0]] == max(counts)
            assert counts.count(max(counts)) == 1
            assert choosable_regions(full, full["condottiere"], self.config) == []
        elif reason in ("final_battle", "no_winner"):
            most = max(counts)
            assert all(counts[w] == most for w in winners)
            if reason == "no_winner":
                assert self.config["ruleset"] == "classic" and winners == []
            else:
                assert winners
        else:
            raise AssertionError(f"unknown victory reason {reason}")

    def check_scores(self, before: Any, event: dict) -> None:
        full = GAME.view(before, FULL)
        owned = owned_by_seat(full)
        gained = event["gained"]
        reason = self.last_game_won["reason"]
        winners = self.last_game_won["winners"]
        for seat in range(self.n):
            bonus = 5 if (reason == "adjacent" and seat in winners) else 0
            assert gained[seat] == len(owned[seat]) + bonus, (seat, gained, owned, reason)

    def decision_point(self, state: Any) -> None:
        """Between decisions: nobody may sit on a winning kingdom (VIC-1/2, CL-2, OPT-BIG-1)."""
        if not self.checks:
            return
        full = check_views(state, self.config, self.total)
        contract_check.check("View", full)
        for viewer in list(range(self.n)) + [SPECTATOR]:
            contract_check.check("View", GAME.view(state, viewer))  # seat views hold legal_moves
        if full["phase"] == "place_token" or (
            full["phase"] == "battle" and not (full["battle"] or {}).get("final")
        ):
            for seat, regions in enumerate(owned_by_seat(full)):
                assert meets_threshold(regions, self.config) is None, (
                    f"seat {seat} holds a winning kingdom {regions} and the game goes on"
                )
        if full["phase"] == "place_token":
            holder = full["condottiere"]
            assert full["awaiting"] == [holder]
            legal = {m["region"] for m in GAME.legal_moves(state, holder) if m["type"] == "place_token"}
            assert legal == set(choosable_regions(full, holder, self.config))
        data = GAME.state_to_json(state)
        text = json.dumps(data, sort_keys=True)
        again = GAME.state_from_json(json.loads(text))
        assert json.dumps(GAME.state_to_json(again), sort_keys=True) == text
        return again


def play_random_game(
    config: dict, rng: random.Random, checks: bool = True, try_all_moves: bool = True
) -> tuple[list[dict], Any]:
    """Play uniformly random legal moves to the end; returns (log, final state)."""
    checker = Checker(config, rng, checks)
    log: list[dict] = []
    state = None
    for event in GAME.start(config):
        after = GAME.evolve(state, event)
        checker.event(state, event, after)
        state = after
        log.append(event)
    bound = MAX_DECISIONS_MATCH if config["options"]["points_target"] else MAX_DECISIONS
    decisions = 0
    while not GAME.is_over(state):
        decisions += 1
        assert decisions <= bound, "the game does not terminate"
        roundtrip = checker.decision_point(state)
        awaiting = GAME.awaiting(state)
        assert awaiting, "nothing awaited in a running game"
        for seat in range(config["players"]):
            if seat not in awaiting:
                assert GAME.legal_moves(state, seat) == []
        seat = rng.choice(awaiting)
        moves = GAME.legal_moves(state, seat)
        assert moves, f"seat {seat} is awaited but has no legal move"
        if checks and try_all_moves:
            for move in moves:
                GAME.decide(state, seat, copy.deepcopy(move))  # BAT-3: decide accepts every legal move
            idle = next((s for s in range(config["players"]) if s not in awaiting), None)
            if idle is not None:
                with pytest.raises(CommandError) as info:
                    GAME.decide(state, idle, {"type": "pass"})
                assert info.value.code in (
                    "NOT_YOUR_TURN",
                    "ALREADY_PASSED",
                    "INVALID_COMMAND",
                    "NOT_ELIGIBLE",
                )
        move = rng.choice(moves)
        events = GAME.decide(state, seat, copy.deepcopy(move))
        assert events, "an accepted command caused no event"
        checker.boundaries.append(len(log))
        if checks and roundtrip is not None:
            assert GAME.decide(roundtrip, seat, copy.deepcopy(move)) == events
        before = state
        for event in events:
            after = GAME.evolve(state, event)
            checker.event(state, event, after)
            state = after
            log.append(event)
        if checks:
            # games.base.DecideHooks: the server takes decide's own final state instead of folding.
            same_events, reached = GAME.decide_and_evolve(before, seat, copy.deepcopy(move))
            assert same_events == events
            assert GAME.state_to_json(reached) == GAME.state_to_json(state), "decide_and_evolve != fold"
    assert GAME.awaiting(state) == []
    result = GAME.result(state)
    assert result is not None and isinstance(result["winners"], list) and result["reason"]
    if checks:
        assert json.dumps(GAME.state_to_json(fold(GAME, log)), sort_keys=True) == json.dumps(
            GAME.state_to_json(state), sort_keys=True
        ), "fold of the log != live state"
        checker.decision_point(state)
    play_random_game.last_checker = checker
    return log, state


# -- strategies ------------------------------------------------------------------------------------


@st.composite
def configs(draw, ruleset: str | None = None, with_options: bool = True) -> dict:
    ruleset = ruleset or draw(st.sampled_from(["2006", "classic"]))
    players = draw(st.integers(2, 6))
    options: dict[str, Any] = {}
    if with_options:
        options["bigger_kingdoms"] = draw(st.booleans())
        options["capturing"] = draw(st.booleans())
        options["points_target"] = draw(st.one_of(st.none(), st.integers(1, 12)))
        if ruleset == "2006":
            options["draw_after_battle"] = draw(st.booleans())
            options["hidden_cards"] = draw(st.booleans())
    first = draw(st.one_of(st.none(), st.integers(0, players - 1)))
    seed = draw(st.integers(0, 2**31 - 1))
    return make_config(players, ruleset=ruleset, options=options, seed=seed, first=first)


# -- the properties ----------------------------------------------------------------------------------


@SETTINGS
@given(config=configs(ruleset="2006", with_options=False), seed=st.integers(0, 2**31 - 1))
def test_random_games_2006_base_rules(config, seed):
    """Random 2006 games (SET-1..4, BAT-1..8, END-1..7, RND-1..4, VIC-1..4): invariants hold."""
    play_random_game(config, random.Random(seed))


@SETTINGS
@given(config=configs(ruleset="2006"), seed=st.integers(0, 2**31 - 1))
def test_random_games_2006_with_options(config, seed):
    """Random 2006 games with any combination of OPT-DRAW, OPT-POINTS, OPT-BIG, OPT-CAP, OPT-HID."""
    play_random_game(config, random.Random(seed))


@SETTINGS
@given(config=configs(ruleset="classic"), seed=st.integers(0, 2**31 - 1))
def test_random_games_classic(config, seed):
    """Random classic games (CL-1..7) with and without options."""
    play_random_game(config, random.Random(seed))


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), seed=st.integers(0, 2**31 - 1), pick=st.integers(0, 10**6))
def test_verify_log_accepts_a_game_and_pinpoints_tampering(config, seed, pick):
    """RL-10: verify_log accepts a played log; a changed dealt card or a played card that was not
    in hand is reported at its own index."""
    log, _ = play_random_game(config, random.Random(seed), checks=False)
    assert GAME.verify_log(log) is None
    codes = sorted(DECKS[config["ruleset"]])

    deals = [i for i, e in enumerate(log) if e["type"] == "cards_dealt" and e["cards"]]
    index = deals[pick % len(deals)]
    tampered = copy.deepcopy(log)
    cards = tampered[index]["cards"]
    cards[0] = next(c for c in codes if c != cards[0])
    error = GAME.verify_log(tampered)
    assert error is not None and error.index == index, (index, error)

    plays = [i for i, e in enumerate(log) if e["type"] == "card_played"]
    if plays:
        index = plays[pick % len(plays)]
        seat = log[index]["seat"]
        before = fold(GAME, log[:index])
        hand = set(GAME.view(before, FULL)["players"][seat]["hand"])
        missing = [c for c in codes if c not in hand]
        if missing:
            tampered = copy.deepcopy(log)
            tampered[index]["card"] = missing[pick % len(missing)]
            error = GAME.verify_log(tampered)
            assert error is not None and error.index == index, (index, error)
            assert error.code == "CARD_NOT_IN_HAND", error

    # chance events must be valid outcomes: a shuffle that is not a permutation of the right cards,
    # a first Condottiere who is not a seat
    shuffles = [i for i, e in enumerate(log) if e["type"] == "deck_shuffled"]
    index = shuffles[pick % len(shuffles)]
    tampered = copy.deepcopy(log)
    cards = tampered[index]["cards"]
    cards[-1] = next(c for c in codes if c != cards[-1])
    error = GAME.verify_log(tampered)
    assert error is not None and error.index == index, (index, error)
    first = next(i for i, e in enumerate(log) if e["type"] == "first_condottiere_chosen")
    tampered = copy.deepcopy(log)
    tampered[first]["seat"] = config["players"]
    error = GAME.verify_log(tampered)
    assert error is not None and error.index == first, error

    # a redacted deal (what another seat sees) is not a valid log entry
    index = deals[(pick // 7) % len(deals)]
    tampered = copy.deepcopy(log)
    tampered[index] = GAME.redact(tampered[index], SPECTATOR)
    error = GAME.verify_log(tampered)
    assert error is not None and error.index == index, (index, error)

    # a log cut inside one move's events misses the automatic events that must follow
    boundaries = play_random_game.last_checker.boundaries
    inside = [b + 1 for b, nxt in zip(boundaries, boundaries[1:] + [len(log)], strict=True) if nxt - b > 1]
    if inside:
        cut = inside[pick % len(inside)]
        error = GAME.verify_log(log[:cut])
        assert error is not None and error.code == "INCOMPLETE_LOG" and error.index == cut, error

    # a log cut at a decision point is a valid unfinished game; an event after the end is not
    cut = boundaries[len(boundaries) // 2]
    assert GAME.verify_log(log[:cut]) is None
    extra = copy.deepcopy(log) + [{"type": "passed", "v": 1, "seat": 0, "auto": False, "final": True}]
    error = GAME.verify_log(extra)
    assert error is not None and error.index == len(log) and error.code == "GAME_OVER", error


def test_map_1_independent_adjacency_used_by_the_properties():
    """MAP-1 / MAP-2: the helper used above to judge winners follows the rules' table."""
    assert largest_connected(["Torino", "Milano", "Venezia"]) == 3
    assert largest_connected(["Torino", "Venezia", "Napoli"]) == 1
    assert largest_connected(list(REGIONS)) == 17
    assert all(len(BORDERS[r]) >= 2 for r in REGIONS)


@pytest.mark.parametrize("ruleset, players", [("2006", 2), ("2006", 6), ("classic", 4)])
def test_seeded_random_games_are_reproducible(ruleset, players):
    """RL-10: the same seed and the same moves give the same log."""
    config = make_config(players, ruleset=ruleset, seed=77, first=None)
    first, _ = play_random_game(config, random.Random(5), checks=False)
    second, _ = play_random_game(config, random.Random(5), checks=False)
    assert first == second


# -- bad input -------------------------------------------------------------------------------------

FIELDS = ["type", "card", "region", "take_back", "pope", "reveal", "discard", "cards", "seat", "x"]
TYPES = ["place_token", "decline_token", "play", "pass", "discard_hand", "keep_cards", "PLAY", "", "resign"]
CODES = sorted(set(DECKS["2006"]))
junk_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 120),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.sampled_from(CODES + list(REGIONS) + TYPES),
    st.lists(st.sampled_from(CODES + [None, 3]), max_size=4),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
junk_commands = st.one_of(
    st.dictionaries(st.sampled_from(FIELDS), junk_values, max_size=4),
    st.fixed_dictionaries(
        {"type": st.sampled_from(TYPES)}, optional={k: junk_values for k in FIELDS if k != "type"}
    ),
    st.none(),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.integers(),
)
REFUSAL_CODES = {
    "GAME_OVER",
    "NOT_YOUR_TURN",
    "UNKNOWN_COMMAND",
    "INVALID_COMMAND",
    "CARD_NOT_IN_HAND",
    "REGION_NOT_ALLOWED",
    "UNKNOWN_REGION",
    "INVALID_TAKE_BACK",
    "INVALID_POPE_REGION",
    "CANNOT_DECLINE",
    "NOT_ELIGIBLE",
    "TOO_MANY_CARDS",
    "ALREADY_PASSED",
    "INVALID_SEAT",
}


def _matches_a_legal_move(command: Any, legal: list[dict]) -> bool:
    if not isinstance(command, dict):
        return False
    for move in legal:
        if (
            move["type"] == command.get("type")
            and set(command) <= set(move) | {"reveal"}
            and all(command[k] == move[k] for k in command if k in move)
        ):
            return True
    return False


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=configs(),
    seed=st.integers(0, 2**31 - 1),
    stop=st.integers(0, 300),
    commands=st.lists(junk_commands, min_size=1, max_size=8),
    seats=st.lists(st.integers(-1, 7), min_size=1, max_size=8),
)
def test_bad_commands_are_refused_with_a_code_and_change_nothing(config, seed, stop, commands, seats):
    """BAT-3 and every refusal: malformed or illegal commands raise CommandError with a documented
    code (never another exception) and leave the state as it was; a command is accepted only when
    it is one of the legal moves."""
    rng = random.Random(seed)
    state = fold(GAME, GAME.start(config))
    for _ in range(stop):
        if GAME.is_over(state):
            break
        seat = rng.choice(GAME.awaiting(state))
        state = fold(GAME, GAME.decide(state, seat, rng.choice(GAME.legal_moves(state, seat))), state)
    before = json.dumps(GAME.state_to_json(state), sort_keys=True)
    # seats * 8 is at least as long as commands (at most 8): the seats are cycled, the surplus unused
    for command, seat in zip(commands, seats * 8, strict=False):
        snapshot = copy.deepcopy(command)
        try:
            GAME.decide(state, seat, command)
        except CommandError as error:
            assert error.code in REFUSAL_CODES, error.code
            assert isinstance(error.message, str) and error.message
        else:
            legal = GAME.legal_moves(state, seat) if 0 <= seat < config["players"] else []
            assert _matches_a_legal_move(command, legal), (seat, command, legal)
        assert command == snapshot or command != command  # NaN compares unequal to itself
        assert json.dumps(GAME.state_to_json(state), sort_keys=True) == before


def _candidate_commands(config: dict, hand: list[str]) -> list[dict]:
    codes = sorted(DECKS[config["ruleset"]])
    regions = list(REGIONS)
    out: list[dict] = [
        {"type": "pass"},
        {"type": "pass", "reveal": False},
        {"type": "pass", "reveal": True},
        {"type": "decline_token"},
        {"type": "discard_hand", "discard": True},
        {"type": "discard_hand", "discard": False},
    ]
    for code in codes:
        out.append({"type": "play", "card": code})
    for back in list(PRINTED) + ["heroine", "drummer", None]:
        out.append({"type": "play", "card": "scarecrow", "take_back": back})
    for pope in regions + [None]:
        out.append({"type": "play", "card": "bishop", "pope": pope})
    for region in regions:
        out.append({"type": "place_token", "region": region})
    kinds = sorted(set(hand)) + ["m10", "heroine"]
    out.append({"type": "keep_cards", "cards": []})
    for i, a in enumerate(kinds):
        out.append({"type": "keep_cards", "cards": [a]})
        for b in kinds[i:]:
            out.append({"type": "keep_cards", "cards": [a, b]})
    out.append({"type": "keep_cards", "cards": (hand + ["m1", "m1", "m1"])[:3]})
    return out


def _canonical(command: dict) -> str:
    """Optional choices sent as null equal their absence (protocol: Commands)."""
    data = {k: v for k, v in command.items() if not (k in ("take_back", "pope") and v is None)}
    if data.get("type") == "pass" and data.get("reveal") is False:
        data.pop("reveal")
    if data.get("type") == "keep_cards":
        data["cards"] = sorted(data["cards"])
    return json.dumps(data, sort_keys=True)


@settings(max_examples=examples(8), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), seed=st.integers(0, 2**31 - 1))
def test_legal_moves_are_exactly_the_accepted_commands(config, seed):
    """BAT-3, SCA-1, BIS-2, BAT-1, END-7, RND-2, CL-5: at every decision point of a random game,
    the commands ``decide`` accepts (among every card, region and choice) are exactly the legal
    moves, so a client can play from ``legal_moves`` alone."""
    rng = random.Random(seed)
    state = fold(GAME, GAME.start(config))
    decisions = 0
    while not GAME.is_over(state) and decisions < 400:
        decisions += 1
        seat = rng.choice(GAME.awaiting(state))
        legal = GAME.legal_moves(state, seat)
        hand = GAME.view(state, seat)["hand"]
        accepted = set()
        for command in _candidate_commands(config, hand):
            try:
                GAME.decide(state, seat, copy.deepcopy(command))
            except CommandError:
                continue
            accepted.add(_canonical(command))
        assert accepted == {_canonical(m) for m in legal}, (seat, GAME.view(state, FULL)["phase"])
        state = fold(GAME, GAME.decide(state, seat, rng.choice(legal)), state)


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(ruleset="2006"), seed=st.integers(0, 2**31 - 1), secret_seat=st.integers(0, 5))
def test_a_hidden_card_does_not_change_what_others_see(config, seed, secret_seat):
    """Non-interference (hidden information, OPT-HID-4, RL-10): two games that differ only by one
    card in a seat's hand (swapped with the bottom card of the deck) look exactly the same to
    every other seat and to spectators (views, redacted events, annotations) as long as that card
    stays in the hand.

    An example is counted only when the swap exists and at least one move is played and compared
    after the genesis (``assume``): one that compared nothing is discarded, not passed, and a
    strategy or engine change that made most examples compare nothing would fail the health check
    instead of passing vacuously."""
    n = config["players"]
    secret_seat %= n
    base = fold(GAME, GAME.start(config))
    full = GAME.view(base, FULL)
    size = full["players"][0]["hand_size"]
    # the exact initial deck, from the recorded deals (seat blocks, top first) and the rest
    dealt = [e for e in GAME.start(config) if e["type"] == "cards_dealt"]
    order = [c for e in dealt for c in e["cards"]] + list(full["deck"])
    hand = order[secret_seat * size : (secret_seat + 1) * size]
    x_index = next((i for i, c in enumerate(hand) if c in PRINTED), None)
    y_index = next(
        (
            i
            for i in range(len(order) - 1, n * size - 1, -1)
            if order[i] in PRINTED and order[i] != hand[x_index or 0]
        ),
        None,
    )
    assume(x_index is not None and y_index is not None)
    assert x_index is not None and y_index is not None  # (for the type checker: assume() returned)
    x_index += secret_seat * size
    secret = order[x_index]
    other = list(order)
    other[x_index], other[y_index] = other[y_index], other[x_index]
    raw = {k: v for k, v in config.items() if k != "deck_order"}
    config_a = GAME.configure({**raw, "deck_order": order})
    config_b = GAME.configure({**raw, "deck_order": other})
    viewers = [v for v in range(n) if v != secret_seat] + [SPECTATOR]

    def look(state, events, before):
        seen = []
        for viewer in viewers:
            seen.append(GAME.view(state, viewer))
            seen.append([GAME.redact(e, viewer) for e in events])
        return seen

    log_a, log_b = GAME.start(config_a), GAME.start(config_b)
    state_a, state_b = fold(GAME, log_a), fold(GAME, log_b)
    assert look(state_a, log_a, None) == look(state_b, log_b, None)
    rng = random.Random(seed)
    compared = 0
    for _ in range(150):
        if GAME.is_over(state_a):
            break
        # stop before the swapped bottom card could be drawn (OPT-DRAW): it would then be seen
        if GAME.view(state_a, FULL)["deck_size"] <= len(order) - y_index + 10 * n:
            break
        seat = rng.choice(GAME.awaiting(state_a))
        moves = [
            m
            for m in GAME.legal_moves(state_a, seat)
            if not (seat == secret_seat and secret in (m.get("card"), *(m.get("cards") or [])))
        ]
        if not moves:
            break
        move = rng.choice(moves)
        events_a = GAME.decide(state_a, seat, copy.deepcopy(move))
        events_b = GAME.decide(state_b, seat, copy.deepcopy(move))
        stop = any(
            e["type"]
            in ("round_ended", "deck_shuffled", "final_battle_started", "game_won", "hand_discarded")
            for e in events_a
        )
        before_a, before_b = state_a, state_b
        state_a, state_b = fold(GAME, events_a, state_a), fold(GAME, events_b, state_b)
        if stop:
            break
        seen_a, seen_b = look(state_a, events_a, before_a), look(state_b, events_b, before_b)
        if seen_a != seen_b:
            diffs = []
            # a diagnostic of views already known to differ: a length mismatch must not hide it
            for i, (a, b) in enumerate(zip(seen_a, seen_b, strict=False)):
                if a != b:
                    if isinstance(a, dict):
                        diffs.append(
                            (i, {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)})
                        )
                    else:
                        diffs.append((i, [(x, y) for x, y in zip(a, b, strict=False) if x != y]))
            raise AssertionError(f"{secret_seat=} {secret=} {move=} {diffs}")
        assert len(events_a) == len(events_b), "the number of events depends on a hidden card"
        for e_a, e_b in zip(events_a, events_b, strict=True):
            for viewer in viewers:
                assert GAME.annotate(before_a, GAME.redact(e_a, viewer), state_a) == GAME.annotate(
                    before_b, GAME.redact(e_b, viewer), state_b
                )
        compared += 1
    note_statistic(f"moves compared: {'none' if not compared else '1-9' if compared < 10 else '10 or more'}")
    assume(compared > 0)


# -- indistinguishability: what a seat may not see changes nothing it receives -----------------------

# Events after which a seat may legitimately learn something new: OPT-HID-3 reveals every face-down
# card, a deal or a draw gives the seat cards from the deck, a chance event draws from the seed.
_REVEALING = ("cards_revealed", "first_chosen")
_HIDEABLE = ("m1", "m2", "m3", "m4", "m5", "m6", "m10", "drummer", "heroine", "courtesan")


def _what_the_seat_receives(events: list[dict], viewer: Any) -> list[dict]:
    out = []
    for event in events:
        if event["type"] in _REVEALING:
            break
        if event["type"] in ("cards_dealt", "cards_drawn") and event.get("seat") == viewer:
            break
        out.append(GAME.redact(event, viewer))
    return out


def _alternative(state: Any, viewer: Any, rng: random.Random) -> Any:
    """The same state except for what ``viewer`` may not see: the other seats' hands and
    face-down cards and the deck are dealt again from the same cards, the seed (and a given deck
    order) replaced. Built through the snapshot format, and loaded the way a snapshot is, so every
    derived field (the awaited seats...) is computed again from the altered cards."""
    data = copy.deepcopy(GAME.state_to_json(state))
    others = [s for s in range(data["n"]) if s != viewer]
    pool = [c for s in others for c in data["hands"][s]] + list(data["deck"])
    for s in others:  # a face-down card may become any other card that could lie face down
        for k, card in enumerate(data["down"][s]):
            swaps = [i for i, c in enumerate(pool) if c in _HIDEABLE]
            if swaps:
                i = rng.choice(swaps)
                data["down"][s][k], pool[i] = pool[i], card
    rng.shuffle(pool)
    for s in others:
        size = len(data["hands"][s])
        data["hands"][s], pool = sorted(pool[:size]), pool[size:]
    data["deck"] = pool
    config = dict(data["config"])
    config["seed"] = data["seed"] = rng.randrange(2**63)
    if config.get("deck_order") is not None:
        config["deck_order"] = rng.sample(config["deck_order"], len(config["deck_order"]))
    data["config"] = config
    return GAME.state_from_json(data)


def _answer(state: Any, seat: int, command: dict, viewer: Any) -> Any:
    try:
        events = GAME.decide(state, seat, copy.deepcopy(command))
    except CommandError as error:
        return ("refused", error.code, error.message, error.rule)
    return ("accepted", _what_the_seat_receives(events, viewer))


@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 6),
    hidden=st.sampled_from([True, True, True, False]),
    draw=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
)
def test_a_seat_cannot_tell_apart_states_that_differ_only_in_what_it_may_not_see(players, hidden, draw, seed):
    """Non-interference (OPT-HID-4, RL-X5, RL-10, RL-12, issue 8): at every decision point of a
    random game, a state whose other hands, other seats' face-down cards, deck order and seed are
    different gives every seat (and spectators) byte-identical views (derived numbers such as
    ``true_strength`` included) and legal moves, and byte-identical answers to every command
    that seat may send: the same refusal, or the same events as redacted for it, which is what
    the move answer and the live stream carry (up to the first event that reveals cards: OPT-HID-3,
    a deal to that seat, a chance draw)."""
    config = make_config(
        players, options={"hidden_cards": hidden, "draw_after_battle": draw}, seed=seed, first=None
    )
    rng = random.Random(seed)
    state = fold(GAME, GAME.start(config))
    decisions = 0
    while not GAME.is_over(state) and decisions < 120:
        decisions += 1
        for viewer in list(range(players)) + [SPECTATOR]:
            other = _alternative(state, viewer, rng)
            assert json.dumps(GAME.view(other, viewer), sort_keys=True) == json.dumps(
                GAME.view(state, viewer), sort_keys=True
            ), (viewer, GAME.view(state, FULL)["phase"])
            if viewer is SPECTATOR:
                continue
            hand = GAME.view(state, viewer)["hand"]
            commands = GAME.legal_moves(state, viewer) + rng.sample(_candidate_commands(config, hand), 6)
            for command in commands:
                assert _answer(other, viewer, command, viewer) == _answer(state, viewer, command, viewer), (
                    viewer,
                    command,
                )
        seat = rng.choice(GAME.awaiting(state))
        state = fold(GAME, GAME.decide(state, seat, rng.choice(GAME.legal_moves(state, seat))), state)


@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), seed=st.integers(0, 2**31 - 1))
def test_the_snapshot_encoded_from_the_state_is_the_json_of_state_to_json(config, seed):
    """Issue 12: the server stores every move's snapshot through ``encode_state``, written straight
    from the state; at every version of random games, with every option, its bytes are exactly
    ``orjson.dumps(state_to_json(state))``, so a stored snapshot loads back as the same state."""
    log, _ = play_random_game(config, random.Random(seed), checks=False, try_all_moves=False)
    state = None
    for event in log:
        state = GAME.evolve(state, event)
        encoded = GAME.encode_state(state)
        assert encoded == orjson.dumps(GAME.state_to_json(state))
        assert GAME.state_to_json(GAME.state_from_json(orjson.loads(encoded))) == GAME.state_to_json(state)
