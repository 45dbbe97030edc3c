"""Condottiere's part of the API contract: JSON Schemas (draft 2020-12, as OpenAPI 3.1 uses) of its
commands, events, views and configuration, as docs/condottiere-protocol.md describes them.

Built from the card and map data, so nothing outside this package needs to know a card code or a
region name: the API lifts the ``$defs`` of :func:`contract` into ``openapi.yaml``. Commands and
events are ``oneOf`` unions with a ``type`` discriminator (OpenAPI's ``discriminator`` keyword is
ignored by JSON Schema validators and read by code generators). Objects are closed
(``additionalProperties: false``), so a field the engine adds without saying so here fails the
contract tests (tests/condottiere/test_contract.py) instead of drifting silently.
"""

from __future__ import annotations

from games.condottiere.board import CARD_NAMES, REGIONS, in_card_order
from games.condottiere.config import OPTIONS, RULESETS
from games.contract_schema import (
    COMMITMENT,
    RATED,
    SEED_REQUEST,
    Schema,
    array,
    const,
    document,
    enum,
    event,
    nullable,
    obj,
    ref,
    union,
)

SEAT: Schema = {"type": "integer", "minimum": 0, "maximum": 5}
SEATS: Schema = array(SEAT)
COUNT: Schema = {"type": "integer", "minimum": 0}
CARD: Schema = {"type": "string", "enum": in_card_order(CARD_NAMES), "description": "A card code"}
REGION: Schema = {"type": "string", "enum": list(REGIONS), "description": "A region of the map"}
CARDS: Schema = array(ref("Card"))
HIDDEN_CARDS: Schema = nullable(CARDS)  # null when redacted for the viewer
SEAT_CARD: Schema = obj({"seat": ref("Seat"), "card": ref("Card")})
REGIONS_BY_SEAT: Schema = array(array(ref("Region")))

# -- configuration --------------------------------------------------------------------------------

_OPTION_SCHEMAS: dict[str, Schema] = {
    "draw_after_battle": {"type": "boolean"},
    "points_target": nullable({"type": "integer", "minimum": 1, "maximum": 1000}),
    "bigger_kingdoms": {"type": "boolean"},
    "capturing": {"type": "boolean"},
    "hidden_cards": {"type": "boolean"},
}
assert set(_OPTION_SCHEMAS) == set(OPTIONS), "every option needs its schema"

CONFIG: Schema = obj(
    {
        "ruleset": enum(RULESETS),
        "players": {"type": "integer", "minimum": 2, "maximum": 6},
        "options": obj({name: _OPTION_SCHEMAS[name] for name in OPTIONS}),
        # Secret while the game runs (null); the size and form of a server-drawn seed are the
        # server's (docs/architecture.md), so both an integer and a string are accepted here.
        "seed": {"type": ["integer", "string", "null"]},
        "first_condottiere": nullable(ref("Seat")),
        "deck_order": nullable(CARDS),
        "deck_order_given": {"type": "boolean"},
        "revision": {
            "type": "integer",
            "minimum": 1,
            "description": "The rules revision the game was created under (absent from logs recorded"
            " before revisions existed: revision 1)",
        },
    },
    required=["ruleset", "players", "options", "first_condottiere"],
    description=(
        "A normalised configuration: seed and deck_order are null in views and events unless the viewer"
        " sees everything, and absent from game summaries"
    ),
)

# What POST /v1/games takes as ``config`` (config.configure): only players is required. Two checks
# are left to the engine, as no schema can say them: first_condottiere below the player count, and a
# deck_order holding exactly the ruleset's deck.
CONFIG_REQUEST: Schema = obj(
    {
        "ruleset": {**nullable(enum(RULESETS)), "description": 'Default "2006"'},
        "players": {"type": "integer", "minimum": 2, "maximum": 6},
        "options": nullable(
            obj(
                {
                    name: nullable(schema) if name != "points_target" else schema
                    for name, schema in _OPTION_SCHEMAS.items()
                },
                required=[],
                description="Every option is off by default",
            )
        ),
        "seed": SEED_REQUEST,
        "first_condottiere": nullable(ref("Seat")),
        "deck_order": nullable(CARDS),
    },
    required=["players"],
    description="A configuration to create a game with",
)

# -- commands -------------------------------------------------------------------------------------

COMMANDS: dict[str, Schema] = {
    "PlaceToken": obj(
        {"type": const("place_token"), "region": ref("Region")},
        description="The token holder chooses the battle's region (SET-4, BAT-1)",
    ),
    "DeclineToken": obj(
        {"type": const("decline_token")}, description="Classic only: pass the choice on (CL-5, RL-9)"
    ),
    "Play": obj(
        {
            "type": const("play"),
            "card": ref("Card"),
            "take_back": {
                "anyOf": [ref("Card"), {"type": "null"}],
                "description": "Scarecrow only: a face-up Mercenary of one's own line to take back (SCA-1)",
            },
            "pope": {
                "anyOf": [ref("Region"), {"type": "null"}],
                "description": "2006 Bishop only: where the Pope goes, null keeps it off the board (BIS-2)",
            },
        },
        required=["type", "card"],
        description="Play a card into one's battle line (BAT-3)",
    ),
    "Pass": obj(
        {
            "type": const("pass"),
            "reveal": {"type": "boolean", "description": "Hidden cards: reveal one's face-down card"},
        },
        required=["type"],
        description="Pass for the rest of the battle (BAT-4)",
    ),
    "DiscardHand": obj(
        {"type": const("discard_hand"), "discard": {"type": "boolean"}},
        description="Answer the hand discard; true only without a Mercenary in hand (END-7, RL-12)",
    ),
    "KeepCards": obj(
        {"type": const("keep_cards"), "cards": {**CARDS, "maxItems": 2}},
        description="The last player holding cards keeps at most two (RND-2)",
    ),
}

# -- events ---------------------------------------------------------------------------------------


_WINNERS = {"winners": SEATS}

EVENTS: dict[str, Schema] = {
    "GameStarted": event(
        "game_started",
        {
            "config": ref("Config"),
            "game_number": {"type": "integer", "minimum": 1},
            "scores": array(COUNT),
            "commitment": COMMITMENT,
        },
        optional=("commitment",),
    ),
    "FirstCondottiereChosen": event(
        "first_condottiere_chosen", {"seat": ref("Seat"), "drawn": {"type": "boolean"}}
    ),
    "DeckShuffled": event(
        "deck_shuffled",
        {
            "cards": HIDDEN_CARDS,
            "reason": enum(("start", "round", "reshuffle", "final_battle")),
            "count": COUNT,
        },
        doc="cards: the new deck order, top first (null for every viewer but FULL)",
    ),
    "CardsDealt": event("cards_dealt", {"seat": ref("Seat"), "cards": HIDDEN_CARDS, "count": COUNT}),
    "CardsDrawn": event("cards_drawn", {"seat": ref("Seat"), "cards": HIDDEN_CARDS, "count": COUNT}),
    "TokenPlaced": event(
        "token_placed", {"seat": ref("Seat"), "region": ref("Region"), "defender": nullable(ref("Seat"))}
    ),
    "TokenDeclined": event("token_declined", {"seat": ref("Seat"), "to": ref("Seat")}),
    "CardPlayed": event(
        "card_played",
        {"seat": ref("Seat"), "card": nullable(ref("Card")), "face_down": {"type": "boolean"}},
        doc="card: null for others when played face down",
    ),
    "CardTakenBack": event("card_taken_back", {"seat": ref("Seat"), "card": nullable(ref("Card"))}),
    "CardsDiscarded": event(
        "cards_discarded",
        {"cause": enum(("winter", "spring", "bishop", "scarecrow")), "cards": array(ref("SeatCard"))},
    ),
    "PopePlaced": event("pope_placed", {"seat": ref("Seat"), "region": nullable(ref("Region"))}),
    "CardsRevealed": event(
        "cards_revealed",
        {"seat": ref("Seat"), "cards": CARDS, "cause": enum(("next_card", "pass", "battle_end"))},
    ),
    "Passed": event(
        "passed", {"seat": ref("Seat"), "auto": {"type": "boolean"}, "final": {"type": "boolean"}}
    ),
    "BattleEnded": event(
        "battle_ended",
        {
            "region": nullable(ref("Region")),
            "strengths": array({"type": "integer"}),
            "winner": nullable(ref("Seat")),
            "cause": enum(("all_passed", "surrender", "bishop")),
        },
    ),
    "RegionWon": event(
        "region_won", {"seat": ref("Seat"), "region": ref("Region"), "from": nullable(ref("Seat"))}
    ),
    "TokenPassed": event(
        "token_passed",
        {"seat": ref("Seat"), "cause": enum(("courtesans", "winner", "defender", "left_neighbour"))},
    ),
    "BattleLinesDiscarded": event("battle_lines_discarded", {"cards": array(ref("SeatCard"))}),
    "HandDiscardOffered": event("hand_discard_offered", {"seats": SEATS}),
    "HandDiscarded": event(
        "hand_discarded",
        {
            "seat": ref("Seat"),
            "discard": {"type": "boolean"},
            "cards": HIDDEN_CARDS,
            "count": COUNT,
            "auto": {"type": "boolean"},
        },
        optional=("auto",),
    ),
    "RoundEnded": event("round_ended", {"holder": nullable(ref("Seat"))}),
    "CardsKept": event(
        "cards_kept",
        {
            "seat": ref("Seat"),
            "kept": HIDDEN_CARDS,
            "discarded": HIDDEN_CARDS,
            "kept_count": COUNT,
            "discarded_count": COUNT,
        },
    ),
    "FinalBattleStarted": event("final_battle_started", {"seats": SEATS, "first": ref("Seat")}),
    "GameWon": event(
        "game_won",
        {
            **_WINNERS,
            "reason": enum(
                ("total", "adjacent", "most_regions", "final_battle", "no_winner", "stalled", "resigned")
            ),
            "regions": REGIONS_BY_SEAT,
        },
    ),
    "GameScored": event("game_scored", {"scores": array(COUNT), "gained": array(COUNT)}),
    "MatchWon": event(
        "match_won",
        {**_WINNERS, "scores": array(COUNT), "reason": enum(("stalled", "resigned"))},
        optional=("reason",),
    ),
    # Leaving a game (RL-X17, RL-X18, RL-X19) and the server's records (no-ops for the rules).
    "SeatResigned": event("seat_resigned", {"seat": ref("Seat")}),
    "GameAborted": event("game_aborted", {"seat": ref("Seat")}),
    "SeatTimedOut": event("seat_timed_out", {"seat": ref("Seat")}),
    "SeatTokenRotated": event("seat_token_rotated", {"seat": ref("Seat")}),
    "SeatHandedToBot": event(
        "seat_handed_to_bot",
        {"seat": ref("Seat"), "level": {"type": "string", "description": "The bot's level"}},
    ),
}

# -- views ----------------------------------------------------------------------------------------

LINE_CARD: Schema = obj(
    {"card": nullable(ref("Card")), "face_down": {"type": "boolean"}},
    description="card: null when face down and not the viewer's own",
)

PLAYER: Schema = obj(
    {
        "seat": ref("Seat"),
        "hand_size": COUNT,
        "passed": {"type": "boolean"},
        "regions": array(ref("Region")),
        "line": array(LINE_CARD),
        "strength": {"type": "integer", "description": "Face-up cards only (OPT-HID-4)"},
        "true_strength": {
            "type": "integer",
            "description": "Every card counted: the seat itself and FULL only",
        },
        "hand": {**CARDS, "description": "FULL only: the hand, in card order"},
    },
    required=["seat", "hand_size", "passed", "regions", "line", "strength"],
)

RESULT: Schema = obj(
    {
        **_WINNERS,
        "reason": {"type": "string", "description": "How the game (or the match: points, stalled) ended"},
        "regions": REGIONS_BY_SEAT,
        "scores": array(COUNT),
        "games": {"type": "integer", "minimum": 1},
        "game_winners": SEATS,
        "game_reason": {"type": ["string", "null"]},
        "rated": RATED,
    },
    required=["winners", "reason", "regions"],
    description="A points match adds scores, games, game_winners and game_reason",
)

VIEW: Schema = obj(
    {
        "game": const("condottiere"),
        "config": ref("Config"),
        "phase": enum(("place_token", "battle", "hand_discard", "keep_cards", "over", "resolving")),
        "awaiting": SEATS,
        "turn": nullable(ref("Seat")),
        "condottiere": nullable(ref("Seat")),
        "pope": nullable(ref("Region")),
        "battle": nullable(
            obj(
                {
                    "region": nullable(ref("Region")),
                    "defender": nullable(ref("Seat")),
                    "final": {"type": "boolean"},
                }
            )
        ),
        "last_battle": nullable(
            obj(
                {
                    "region": nullable(ref("Region")),
                    "winner": nullable(ref("Seat")),
                    "strengths": array({"type": "integer"}),
                    "cause": {"type": ["string", "null"]},
                }
            )
        ),
        "declines": {**COUNT, "description": "Classic, while the token holder chooses (RL-9)"},
        "hand_discard": {**SEATS, "description": "During the hand discard: seats still to answer (END-7)"},
        "regions": {
            "type": "object",
            "properties": {name: nullable(ref("Seat")) for name in REGIONS},
            "required": list(REGIONS),
            "additionalProperties": False,
            "description": "Owner of each region",
        },
        "players": array(ref("Player")),
        "deck_size": COUNT,
        "discard_size": COUNT,
        "winners": nullable(SEATS),
        "result": nullable(ref("Result")),
        "match": nullable(
            obj(
                {
                    "game_number": {"type": "integer", "minimum": 1},
                    "scores": array(COUNT),
                    "target": {"type": "integer"},
                }
            )
        ),
        "seat": {**SEAT, "description": "A seat's view only: the viewer"},
        "hand": {**CARDS, "description": "A seat's view only: its hand, in card order"},
        "legal_moves": {
            **array(ref("Command")),
            "description": "A seat's view only: every command it may send now",
        },
        "deck": {**CARDS, "description": "FULL only: the deck, top first"},
    },
    required=[
        "game",
        "config",
        "phase",
        "awaiting",
        "turn",
        "condottiere",
        "pope",
        "battle",
        "last_battle",
        "regions",
        "players",
        "deck_size",
        "discard_size",
        "winners",
        "result",
        "match",
    ],
    description="What one viewer sees: a seat (with its hand and legal moves), the spectator, or everything",
)


def contract() -> Schema:
    """The contract document: ``$defs`` holds ``Command``, ``Event``, ``View`` and ``Config`` (what
    the API publishes) and the named parts they reference."""
    defs: dict[str, Schema] = {
        "Seat": SEAT,
        "Card": CARD,
        "Region": REGION,
        "SeatCard": SEAT_CARD,
        "Config": CONFIG,
        "ConfigRequest": CONFIG_REQUEST,
        "Result": RESULT,
        "Player": PLAYER,
        **{f"{name}Command": schema for name, schema in COMMANDS.items()},
        **{f"{name}Event": schema for name, schema in EVENTS.items()},
        "Command": union({f"{n}Command": s for n, s in COMMANDS.items()}, "A command a seat sends"),
        "Event": union(
            {f"{n}Event": s for n, s in EVENTS.items()}, "An event of the log, as the reader may see it"
        ),
        "View": VIEW,
    }
    return document(defs)
