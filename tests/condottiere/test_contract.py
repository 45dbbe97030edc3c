"""Condottiere's published contract (games.base.ContractHooks, issue 15): a valid JSON Schema 2020-12
document whose commands and events are discriminated unions, which every legal move, every event
as each viewer receives it and every view of random games validates against (the property tests in
test_properties.py check the same on every game they play), and which refuses what the engine never
sends."""

from __future__ import annotations

import random
from functools import cache

import orjson
import pytest

from games import get_game
from games.base import COMMITMENT, FULL, SPECTATOR, fold
from replays import fairness
from tests import contract_check
from tests.condottiere.test_engine_smoke import CONFIGS

GAME = get_game("condottiere")


def test_the_game_publishes_a_valid_json_schema_document():
    contract_check.assert_valid_document(GAME)


@pytest.mark.parametrize("union", ["Command", "Event"])
def test_unions_are_discriminated_by_type(union):
    contract_check.assert_discriminated_by_type(GAME, union)


def _random_game(ruleset, options, players, seed):
    rng = random.Random(seed)
    config = GAME.configure({"ruleset": ruleset, "players": players, "seed": seed, "options": options})
    log = GAME.start(config)
    state = fold(GAME, log)
    yield state, log
    while not GAME.is_over(state):
        seat = rng.choice(GAME.awaiting(state))
        events = GAME.decide(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        state = fold(GAME, events, state)
        yield state, events


def _played(ruleset, options):
    """Two random games (2 and 5 players) to their end: what breaks the contract in them, the
    contract's coverage, the event types seen (played once per configuration)."""
    return _played_once(ruleset, orjson.dumps(options, option=orjson.OPT_SORT_KEYS))


@cache
def _played_once(ruleset, encoded_options):
    options = orjson.loads(encoded_options)
    found = []
    coverage = contract_check.Coverage("condottiere")
    seen_types = set()

    def checked(definition, instance):
        contract_check.first_problem("condottiere", definition, instance, found)
        coverage.add(definition, instance)

    for players in (2, 5):
        for state, events in _random_game(ruleset, options, players, seed=players * 31 + len(options)):
            for event in events:
                seen_types.add(event["type"])
                for viewer in [FULL, SPECTATOR, *range(players)]:
                    checked("Event", GAME.redact(event, viewer))
            for viewer in [FULL, SPECTATOR, *range(players)]:
                checked("View", GAME.view(state, viewer))
            for seat in GAME.awaiting(state):
                for command in GAME.legal_moves(state, seat):
                    checked("Command", command)
    return found, coverage, seen_types


@pytest.mark.parametrize("ruleset,options", CONFIGS)
def test_every_move_event_and_view_of_random_games_validates(ruleset, options):
    """RL-10 (what the log holds) as the contract describes it, for every ruleset and option."""
    found, _, seen_types = _played(ruleset, options)
    assert found == [], found[:5]
    assert {"card_played", "battle_ended", "game_won"} <= seen_types


def test_the_random_games_reach_every_closed_object_and_every_field():
    """The games above validate something only where they go (issue 35: Rio's contract broke in
    states its random games never reached). Over every ruleset and option they reach every closed
    object of the contract and show each of its fields at least once."""
    merged = contract_check.Coverage("condottiere")
    for ruleset, options in CONFIGS:
        for where, fields in _played(ruleset, options)[1].seen.items():
            merged.seen.setdefault(where, set()).update(fields)
    for record in SERVER_RECORDS:
        merged.add("Event", record)
    opened = _server_started()
    for viewer in (FULL, SPECTATOR, 0):
        redacted = GAME.redact(opened, viewer)
        assert contract_check.problems("condottiere", "Event", redacted) == []
        merged.add("Event", redacted)
    found = []
    for request in _config_requests():
        contract_check.first_problem("condottiere", "ConfigRequest", request, found)
        GAME.configure(request)  # what the schema allows, the engine takes
        merged.add("ConfigRequest", request)
    # The service marks an aborted game's result (service/games.py): no rating counts it.
    aborted = {"winners": [], "reason": "aborted", "regions": [[], []], "rated": False}
    contract_check.first_problem("condottiere", "Result", aborted, found)
    merged.add("Result", aborted)
    for events, state, players in _rarer_games():
        for event in events:
            for viewer in [FULL, SPECTATOR, *range(players)]:
                contract_check.first_problem("condottiere", "Event", GAME.redact(event, viewer), found)
                merged.add("Event", GAME.redact(event, viewer))
        for viewer in [FULL, SPECTATOR, *range(players)]:
            contract_check.first_problem("condottiere", "View", GAME.view(state, viewer), found)
            merged.add("View", GAME.view(state, viewer))
    assert found == [], found[:5]
    assert merged.missing() == {}


def _config_requests():
    """POST /v1/games configurations (the contract's ConfigRequest) for the configurations above."""
    for ruleset, options in CONFIGS:
        yield {"ruleset": ruleset, "players": 3, "options": options, "seed": 7, "first_condottiere": 1}
    yield {"players": 2, "ruleset": None, "options": None, "seed": None, "deck_order": None}


def _rarer_games():
    """What uniform random games do not reach: a final battle (VIC-4: found by seed), seats timing
    out (RL-X19), a resignation ending a points match (RL-X17) and an abort (RL-X18), the seat
    hooks played as the server plays them. Yields each change's events, the state after them and
    the player count."""
    for state, events in _random_game("classic", {}, 3, seed=10):
        yield events, state, 3
    rng = random.Random(5)
    config = GAME.configure({"players": 5, "seed": 5, "options": {"points_target": 8}})
    state = fold(GAME, GAME.start(config))
    for step in range(61):
        seat = rng.choice(GAME.awaiting(state))
        if step == 60:
            events = GAME.resign(state, seat)
        elif rng.random() < 0.05:
            events = GAME.timeout(state, seat)
        else:
            events = GAME.decide(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        state = fold(GAME, events, state)
        yield events, state, 5
        if GAME.is_over(state):
            break
    state = fold(GAME, GAME.start(GAME.configure({"players": 3, "seed": 3})))
    events = GAME.abort(state, GAME.awaiting(state)[0])
    yield events, fold(GAME, events, state), 3


def _server_started():
    """The first event as the server writes it: the engine's, opened by the commitment published
    at the game's creation (games.base.COMMITMENT, replays/fairness.py)."""
    first = GAME.start(GAME.configure({"players": 3, "seed": 4}))[0]
    return {**first, COMMITMENT: fairness.commitment(4, "01m8kmg7cn6esac4d0ev", False)}


# What the server itself writes into every game's log (tests/api/test_leaving.py, test_clocks.py).
SERVER_RECORDS = [
    {"type": "seat_token_rotated", "v": 1, "seat": 0},
    {"type": "seat_handed_to_bot", "v": 1, "seat": 2, "level": "random"},
]


def _view(players=3):
    state = fold(GAME, GAME.start(GAME.configure({"players": players, "seed": 4})))
    return GAME.view(state, 0)


@pytest.mark.parametrize(
    "definition,instance",
    [
        ("Command", {"type": "play", "card": "m7"}),  # no such card
        ("Command", {"type": "play", "card": "m5", "extra": 1}),  # the engine refuses unknown fields
        ("Command", {"type": "place_token", "region": "Atlantis"}),
        ("Command", {"type": "teleport"}),
        ("Command", {"type": "keep_cards", "cards": ["m1", "m2", "m3"]}),
        ("Event", {"type": "card_played", "v": 1, "seat": 0, "card": "m5"}),  # face_down missing
        ("Event", {"type": "passed", "v": 2, "seat": 0, "auto": False, "final": True}),
        ("Event", {"type": "no_such_event", "v": 1}),
        ("View", {**_view(), "secret": 1}),  # a field the contract does not describe
        ("View", {**_view(), "phase": "lunch"}),
        ("View", {k: v for k, v in _view().items() if k != "players"}),
    ],
)
def test_the_contract_refuses_what_the_engine_never_sends(definition, instance):
    assert contract_check.problems("condottiere", definition, instance)


def test_the_contract_accepts_each_documented_command_form():
    for command in [
        {"type": "place_token", "region": "Milano"},
        {"type": "decline_token"},
        {"type": "play", "card": "m5"},
        {"type": "play", "card": "scarecrow", "take_back": None},
        {"type": "play", "card": "bishop", "pope": "Roma"},
        {"type": "pass"},
        {"type": "pass", "reveal": True},
        {"type": "discard_hand", "discard": False},
        {"type": "keep_cards", "cards": ["m10", "heroine"]},
    ]:
        contract_check.check("Command", command)


def test_leaving_events_and_their_views_validate():
    """RL-X17 (resign), RL-X18 (abort), RL-X19 (timeout) and the server's records, as published."""
    config = GAME.configure({"players": 3, "seed": 8})
    start = fold(GAME, GAME.start(config))
    for events in (GAME.abort(start, 1), GAME.timeout(start, GAME.awaiting(start)[0])):
        state = fold(GAME, events, start)
        for event in events:
            for viewer in [FULL, SPECTATOR, 0, 1, 2]:
                contract_check.check("Event", GAME.redact(event, viewer))
        contract_check.check("View", GAME.view(state, FULL))
    resigned = GAME.resign(start, 2)
    assert [e["type"] for e in resigned][:1] == ["seat_resigned"]
    for event in resigned:
        contract_check.check("Event", event)
    over = fold(GAME, resigned, start)
    for viewer in [FULL, SPECTATOR, 0]:
        contract_check.check("View", GAME.view(over, viewer))
    contract_check.check("Event", {"type": "seat_token_rotated", "v": 1, "seat": 0})
    contract_check.check("Event", {"type": "seat_handed_to_bot", "v": 1, "seat": 0, "level": "random"})
