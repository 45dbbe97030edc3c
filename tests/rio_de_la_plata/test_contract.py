"""Rio de la Plata's published contract (games.base.ContractHooks, issue 16, as issue 15 did for
Condottiere): a valid JSON Schema 2020-12 document whose commands and events are discriminated
unions; every legal move (of every seat: free commands included), every event as each viewer receives
it and every view of random games validates against it; it refuses what the engine never sends; and
the API's OpenAPI document serves it under the game's prefix."""

from __future__ import annotations

import random

import pytest

from games.base import FULL, SPECTATOR, fold
from games.rio_de_la_plata import GAME
from games.rio_de_la_plata.contract import COMMANDS, event_of
from tests import contract_check

NAME = "rio_de_la_plata"


def check(definition, instance):
    contract_check.check(definition, instance, game_name=NAME)


def test_the_game_publishes_a_valid_json_schema_document():
    contract_check.assert_valid_document(GAME)


@pytest.mark.parametrize("union", ["Command", "Event"])
def test_unions_are_discriminated_by_type(union):
    contract_check.assert_discriminated_by_type(GAME, union)


def test_every_command_the_engine_maps_to_an_event_has_a_schema():
    """A command added to the engine (rules.EVENT_OF, battle.BATTLE_EVENT_OF, trade.TRADE_EVENT_OF)
    without its schema here would make every event of that kind fail; say so by name."""
    assert set(event_of()) <= set(COMMANDS), sorted(set(event_of()) - set(COMMANDS))


def _random_game(players, seed):
    """Random legal games, with the free commands (purchases, trade offers) of seats nobody awaits
    played now and then too (RIO-TRADE-1, RIO-RL-27)."""
    rng = random.Random(seed)
    log = GAME.start(GAME.configure({"players": players, "seed": seed}))
    state = fold(GAME, log)
    yield state, log
    while not GAME.is_over(state):
        awaiting = GAME.awaiting(state)
        seat = awaiting[0]
        if rng.random() < 0.05:
            seat = rng.randrange(players)
        moves = GAME.legal_moves(state, seat) or GAME.legal_moves(state, awaiting[0])
        if not GAME.legal_moves(state, seat):
            seat = awaiting[0]
        events = GAME.decide(state, seat, rng.choice(moves))
        state = fold(GAME, events, state)
        yield state, events


@pytest.mark.parametrize("players,seed", [(3, 31), (4, 7), (5, 12)])
def test_rio_trade_1_every_move_event_and_view_of_random_games_validates(players, seed):
    """RIO-TRADE-1, RIO-RL-27, RIO-RL-69: what the log holds and what each viewer is shown, as the
    contract describes it, over whole random games with 3, 4 and 5 players (free commands of every
    seat and the battle's single commands included)."""
    seen = set()
    viewers = [FULL, SPECTATOR, *range(players)]
    step = 0
    for state, events in _random_game(players, seed):
        for event in events:
            seen.add(event["type"])
            for viewer in (FULL, SPECTATOR, 0):
                check("Event", GAME.redact(event, viewer))
        # Every view of every viewer at the start, at the end and every 7th step; the awaited
        # seat's (with its legal moves) at every step.
        shown = viewers if step % 7 == 0 or GAME.is_over(state) else GAME.awaiting(state)[:1]
        for viewer in shown:
            check("View", GAME.view(state, viewer))
        for seat in range(players):
            for command in GAME.legal_moves(state, seat):
                check("Command", command)
        step += 1
    assert {"game_started", "placed", "built", "turn_ended", "round_ended", "game_ended"} <= seen
    assert seen & {"offer_opened", "bought"}, "no free command was played"


def test_server_records_validate():
    check("Event", {"type": "seat_token_rotated", "v": 1, "seat": 0})
    check("Event", {"type": "seat_handed_to_bot", "v": 1, "seat": 2, "level": "random"})


def _view(viewer=0):
    state = fold(GAME, GAME.start(GAME.configure({"players": 3, "seed": 4})))
    return GAME.view(state, viewer)


@pytest.mark.parametrize(
    "definition,instance",
    [
        ("Command", {"type": "place", "space": "beach"}),
        ("Command", {"type": "place", "space": "cell", "cell": [1, 2], "extra": 1}),
        ("Command", {"type": "place", "space": "character", "character": "jester"}),
        ("Command", {"type": "build", "cell": [1, 2], "building": "skyscraper"}),
        ("Command", {"type": "buy", "good": "luxury"}),  # RIO-TRADE-3: luxury is never bought
        ("Command", {"type": "place_section", "edge": "north"}),
        ("Command", {"type": "teleport"}),
        ("Event", {"type": "placed", "v": 1, "space": "field"}),  # seat missing
        ("Event", {"type": "bought", "v": 1, "seat": 0, "good": "wood"}),  # price missing
        ("Event", {"type": "dice_rolled", "v": 2, "purpose": "war", "dice": [3, 4]}),
        ("Event", {"type": "no_such_event", "v": 1}),
        ("View", {**_view(), "secret": 1}),
        ("View", {**_view(), "step": "lunch"}),
        ("View", {k: v for k, v in _view().items() if k != "city"}),
        ("Config", {"players": 6, "board": None, "board_hash": "x"}),
    ],
)
def test_the_contract_refuses_what_the_engine_never_sends(definition, instance):
    assert contract_check.problems(NAME, definition, instance)


def test_the_seed_is_in_the_full_view_only_and_the_contract_allows_that():
    """The configuration's seed is FULL's only (views.public_config); the contract documents the
    field as optional, so both shapes validate."""
    assert "seed" in _view(FULL)["config"] and "seed" not in _view(SPECTATOR)["config"]
    check("View", _view(FULL))
    check("View", _view(SPECTATOR))


def test_the_openapi_document_publishes_rio_under_its_prefix(redis_server):
    """The served contract (GET /v1/openapi.json) carries Rio's definitions as RioDeLaPlata*, and the
    API's game fields (views, commands, events) reference them beside Condottiere's."""
    from launcher.openapi import build_app

    app = build_app(redis_server.url)
    spec = app.test_client().get("/v1/openapi.json").get_json()
    components = spec["components"]["schemas"]
    for name in ("Command", "Event", "View", "Config", "PlaceCommand", "OfferSentEvent", "Battle"):
        assert f"RioDeLaPlata{name}" in components, name
    place = components["RioDeLaPlataPlaceCommand"]
    assert place["properties"]["cell"] == {"$ref": "#/components/schemas/RioDeLaPlataCell"}
    text = str(spec)
    assert (
        "'#/components/schemas/RioDeLaPlataView'" in text and "'#/components/schemas/CondottiereView'" in text
    )
