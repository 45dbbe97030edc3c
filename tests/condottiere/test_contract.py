"""Condottiere's published contract (games.base.ContractHooks, issue 15): a valid JSON Schema 2020-12
document whose commands and events are discriminated unions, which every legal move, every event
as each viewer receives it and every view of random games validates against (the property tests in
test_properties.py check the same on every game they play), and which refuses what the engine never
sends."""

from __future__ import annotations

import random

import pytest

from games import get_game
from games.base import FULL, SPECTATOR, fold
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


@pytest.mark.parametrize("ruleset,options", CONFIGS)
def test_every_move_event_and_view_of_random_games_validates(ruleset, options):
    """RL-10 (what the log holds) as the contract describes it, for every ruleset and option."""
    seen_types = set()
    for players in (2, 5):
        for state, events in _random_game(ruleset, options, players, seed=players * 31 + len(options)):
            for event in events:
                seen_types.add(event["type"])
                for viewer in [FULL, SPECTATOR, *range(players)]:
                    contract_check.check("Event", GAME.redact(event, viewer))
            for viewer in [FULL, SPECTATOR, *range(players)]:
                contract_check.check("View", GAME.view(state, viewer))
            for seat in GAME.awaiting(state):
                for command in GAME.legal_moves(state, seat):
                    contract_check.check("Command", command)
    assert {"card_played", "battle_ended", "game_won"} <= seen_types


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
