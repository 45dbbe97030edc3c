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

from typing import Any

from games.condottiere.board import CARD_NAMES, REGIONS, in_card_order
from games.condottiere.config import OPTIONS, RULESETS

Schema = dict[str, Any]


def _ref(name: str) -> Schema:
    return {"$ref": f"#/$defs/{name}"}


def _obj(properties: dict[str, Schema], required: list[str] | None = None, **extra: Any) -> Schema:
    schema: Schema = {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }
    schema.update(extra)
    return schema


def _nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def _list(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def _const(value: str) -> Schema:
    return {"type": "string", "const": value}


def _enum(*values: str) -> Schema:
    return {"type": "string", "enum": list(values)}


SEAT: Schema = {"type": "integer", "minimum": 0, "maximum": 5}
SEATS: Schema = _list(SEAT)
COUNT: Schema = {"type": "integer", "minimum": 0}
CARD: Schema = {"type": "string", "enum": in_card_order(CARD_NAMES), "description": "A card code"}
REGION: Schema = {"type": "string", "enum": list(REGIONS), "description": "A region of the map"}
CARDS: Schema = _list(_ref("Card"))
HIDDEN_CARDS: Schema = _nullable(CARDS)  # null when redacted for the viewer
SEAT_CARD: Schema = _obj({"seat": _ref("Seat"), "card": _ref("Card")})
REGIONS_BY_SEAT: Schema = _list(_list(_ref("Region")))

# -- configuration --------------------------------------------------------------------------------

_OPTION_SCHEMAS: dict[str, Schema] = {
    "draw_after_battle": {"type": "boolean"},
    "points_target": _nullable({"type": "integer", "minimum": 1, "maximum": 1000}),
    "bigger_kingdoms": {"type": "boolean"},
    "capturing": {"type": "boolean"},
    "hidden_cards": {"type": "boolean"},
}
assert set(_OPTION_SCHEMAS) == set(OPTIONS), "every option needs its schema"

CONFIG: Schema = _obj(
    {
        "ruleset": _enum(*RULESETS),
        "players": {"type": "integer", "minimum": 2, "maximum": 6},
        "options": _obj({name: _OPTION_SCHEMAS[name] for name in OPTIONS}),
        # Secret while the game runs (null); the size and form of a server-drawn seed are the
        # server's (docs/architecture.md), so both an integer and a string are accepted here.
        "seed": {"type": ["integer", "string", "null"]},
        "first_condottiere": _nullable(_ref("Seat")),
        "deck_order": _nullable(CARDS),
        "deck_order_given": {"type": "boolean"},
    },
    required=["ruleset", "players", "options", "first_condottiere"],
    description=(
        "A normalised configuration: seed and deck_order are null in views and events unless the viewer"
        " sees everything, and absent from game summaries"
    ),
)

# -- commands -------------------------------------------------------------------------------------

COMMANDS: dict[str, Schema] = {
    "PlaceToken": _obj(
        {"type": _const("place_token"), "region": _ref("Region")},
        description="The token holder chooses the battle's region (SET-4, BAT-1)",
    ),
    "DeclineToken": _obj(
        {"type": _const("decline_token")}, description="Classic only: pass the choice on (CL-5, RL-9)"
    ),
    "Play": _obj(
        {
            "type": _const("play"),
            "card": _ref("Card"),
            "take_back": {
                "anyOf": [_ref("Card"), {"type": "null"}],
                "description": "Scarecrow only: a face-up Mercenary of one's own line to take back (SCA-1)",
            },
            "pope": {
                "anyOf": [_ref("Region"), {"type": "null"}],
                "description": "2006 Bishop only: where the Pope goes, null keeps it off the board (BIS-2)",
            },
        },
        required=["type", "card"],
        description="Play a card into one's battle line (BAT-3)",
    ),
    "Pass": _obj(
        {
            "type": _const("pass"),
            "reveal": {"type": "boolean", "description": "Hidden cards: reveal one's face-down card"},
        },
        required=["type"],
        description="Pass for the rest of the battle (BAT-4)",
    ),
    "DiscardHand": _obj(
        {"type": _const("discard_hand"), "discard": {"type": "boolean"}},
        description="Answer the hand discard; true only without a Mercenary in hand (END-7, RL-12)",
    ),
    "KeepCards": _obj(
        {"type": _const("keep_cards"), "cards": {**CARDS, "maxItems": 2}},
        description="The last player holding cards keeps at most two (RND-2)",
    ),
}

# -- events ---------------------------------------------------------------------------------------


def _event(
    type_: str, properties: dict[str, Schema], optional: tuple[str, ...] = (), doc: str = ""
) -> Schema:
    props = {"type": _const(type_), "v": {"type": "integer", "const": 1}, **properties}
    required = [name for name in props if name not in optional]
    return _obj(props, required=required, description=doc) if doc else _obj(props, required=required)


_WINNERS = {"winners": SEATS}

EVENTS: dict[str, Schema] = {
    "GameStarted": _event(
        "game_started",
        {"config": _ref("Config"), "game_number": {"type": "integer", "minimum": 1}, "scores": _list(COUNT)},
    ),
    "FirstCondottiereChosen": _event(
        "first_condottiere_chosen", {"seat": _ref("Seat"), "drawn": {"type": "boolean"}}
    ),
    "DeckShuffled": _event(
        "deck_shuffled",
        {
            "cards": HIDDEN_CARDS,
            "reason": _enum("start", "round", "reshuffle", "final_battle"),
            "count": COUNT,
        },
        doc="cards: the new deck order, top first (null for every viewer but FULL)",
    ),
    "CardsDealt": _event("cards_dealt", {"seat": _ref("Seat"), "cards": HIDDEN_CARDS, "count": COUNT}),
    "CardsDrawn": _event("cards_drawn", {"seat": _ref("Seat"), "cards": HIDDEN_CARDS, "count": COUNT}),
    "TokenPlaced": _event(
        "token_placed", {"seat": _ref("Seat"), "region": _ref("Region"), "defender": _nullable(_ref("Seat"))}
    ),
    "TokenDeclined": _event("token_declined", {"seat": _ref("Seat"), "to": _ref("Seat")}),
    "CardPlayed": _event(
        "card_played",
        {"seat": _ref("Seat"), "card": _nullable(_ref("Card")), "face_down": {"type": "boolean"}},
        doc="card: null for others when played face down",
    ),
    "CardTakenBack": _event("card_taken_back", {"seat": _ref("Seat"), "card": _nullable(_ref("Card"))}),
    "CardsDiscarded": _event(
        "cards_discarded",
        {"cause": _enum("winter", "spring", "bishop", "scarecrow"), "cards": _list(_ref("SeatCard"))},
    ),
    "PopePlaced": _event("pope_placed", {"seat": _ref("Seat"), "region": _nullable(_ref("Region"))}),
    "CardsRevealed": _event(
        "cards_revealed",
        {"seat": _ref("Seat"), "cards": CARDS, "cause": _enum("next_card", "pass", "battle_end")},
    ),
    "Passed": _event(
        "passed", {"seat": _ref("Seat"), "auto": {"type": "boolean"}, "final": {"type": "boolean"}}
    ),
    "BattleEnded": _event(
        "battle_ended",
        {
            "region": _nullable(_ref("Region")),
            "strengths": _list({"type": "integer"}),
            "winner": _nullable(_ref("Seat")),
            "cause": _enum("all_passed", "surrender", "bishop"),
        },
    ),
    "RegionWon": _event(
        "region_won", {"seat": _ref("Seat"), "region": _ref("Region"), "from": _nullable(_ref("Seat"))}
    ),
    "TokenPassed": _event(
        "token_passed",
        {"seat": _ref("Seat"), "cause": _enum("courtesans", "winner", "defender", "left_neighbour")},
    ),
    "BattleLinesDiscarded": _event("battle_lines_discarded", {"cards": _list(_ref("SeatCard"))}),
    "HandDiscardOffered": _event("hand_discard_offered", {"seats": SEATS}),
    "HandDiscarded": _event(
        "hand_discarded",
        {
            "seat": _ref("Seat"),
            "discard": {"type": "boolean"},
            "cards": HIDDEN_CARDS,
            "count": COUNT,
            "auto": {"type": "boolean"},
        },
        optional=("auto",),
    ),
    "RoundEnded": _event("round_ended", {"holder": _nullable(_ref("Seat"))}),
    "CardsKept": _event(
        "cards_kept",
        {
            "seat": _ref("Seat"),
            "kept": HIDDEN_CARDS,
            "discarded": HIDDEN_CARDS,
            "kept_count": COUNT,
            "discarded_count": COUNT,
        },
    ),
    "FinalBattleStarted": _event("final_battle_started", {"seats": SEATS, "first": _ref("Seat")}),
    "GameWon": _event(
        "game_won",
        {
            **_WINNERS,
            "reason": _enum(
                "total", "adjacent", "most_regions", "final_battle", "no_winner", "stalled", "resigned"
            ),
            "regions": REGIONS_BY_SEAT,
        },
    ),
    "GameScored": _event("game_scored", {"scores": _list(COUNT), "gained": _list(COUNT)}),
    "MatchWon": _event(
        "match_won",
        {**_WINNERS, "scores": _list(COUNT), "reason": _enum("stalled", "resigned")},
        optional=("reason",),
    ),
    # Leaving a game (RL-X17, RL-X18, RL-X19) and the server's records (no-ops for the rules).
    "SeatResigned": _event("seat_resigned", {"seat": _ref("Seat")}),
    "GameAborted": _event("game_aborted", {"seat": _ref("Seat")}),
    "SeatTimedOut": _event("seat_timed_out", {"seat": _ref("Seat")}),
    "SeatTokenRotated": _event("seat_token_rotated", {"seat": _ref("Seat")}),
    "SeatHandedToBot": _event(
        "seat_handed_to_bot",
        {"seat": _ref("Seat"), "level": {"type": "string", "description": "The bot's level"}},
    ),
}

# -- views ----------------------------------------------------------------------------------------

LINE_CARD: Schema = _obj(
    {"card": _nullable(_ref("Card")), "face_down": {"type": "boolean"}},
    description="card: null when face down and not the viewer's own",
)

PLAYER: Schema = _obj(
    {
        "seat": _ref("Seat"),
        "hand_size": COUNT,
        "passed": {"type": "boolean"},
        "regions": _list(_ref("Region")),
        "line": _list(LINE_CARD),
        "strength": {"type": "integer", "description": "Face-up cards only (OPT-HID-4)"},
        "true_strength": {
            "type": "integer",
            "description": "Every card counted: the seat itself and FULL only",
        },
        "hand": {**CARDS, "description": "FULL only: the hand, in card order"},
    },
    required=["seat", "hand_size", "passed", "regions", "line", "strength"],
)

RESULT: Schema = _obj(
    {
        **_WINNERS,
        "reason": {"type": "string", "description": "How the game (or the match: points, stalled) ended"},
        "regions": REGIONS_BY_SEAT,
        "scores": _list(COUNT),
        "games": {"type": "integer", "minimum": 1},
        "game_winners": SEATS,
        "game_reason": {"type": ["string", "null"]},
    },
    required=["winners", "reason", "regions"],
    description="A points match adds scores, games, game_winners and game_reason",
)

VIEW: Schema = _obj(
    {
        "game": _const("condottiere"),
        "config": _ref("Config"),
        "phase": _enum("place_token", "battle", "hand_discard", "keep_cards", "over", "resolving"),
        "awaiting": SEATS,
        "turn": _nullable(_ref("Seat")),
        "condottiere": _nullable(_ref("Seat")),
        "pope": _nullable(_ref("Region")),
        "battle": _nullable(
            _obj(
                {
                    "region": _nullable(_ref("Region")),
                    "defender": _nullable(_ref("Seat")),
                    "final": {"type": "boolean"},
                }
            )
        ),
        "last_battle": _nullable(
            _obj(
                {
                    "region": _nullable(_ref("Region")),
                    "winner": _nullable(_ref("Seat")),
                    "strengths": _list({"type": "integer"}),
                    "cause": {"type": ["string", "null"]},
                }
            )
        ),
        "declines": {**COUNT, "description": "Classic, while the token holder chooses (RL-9)"},
        "hand_discard": {**SEATS, "description": "During the hand discard: seats still to answer (END-7)"},
        "regions": {
            "type": "object",
            "properties": {name: _nullable(_ref("Seat")) for name in REGIONS},
            "required": list(REGIONS),
            "additionalProperties": False,
            "description": "Owner of each region",
        },
        "players": _list(_ref("Player")),
        "deck_size": COUNT,
        "discard_size": COUNT,
        "winners": _nullable(SEATS),
        "result": _nullable(_ref("Result")),
        "match": _nullable(
            _obj(
                {
                    "game_number": {"type": "integer", "minimum": 1},
                    "scores": _list(COUNT),
                    "target": {"type": "integer"},
                }
            )
        ),
        "seat": {**SEAT, "description": "A seat's view only: the viewer"},
        "hand": {**CARDS, "description": "A seat's view only: its hand, in card order"},
        "legal_moves": {
            **_list(_ref("Command")),
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


def _union(members: dict[str, Schema], doc: str) -> Schema:
    mapping = {member["properties"]["type"]["const"]: f"#/$defs/{name}" for name, member in members.items()}
    return {
        "oneOf": [_ref(name) for name in members],
        "discriminator": {"propertyName": "type", "mapping": mapping},
        "description": doc,
    }


def contract() -> Schema:
    """The contract document: ``$defs`` holds ``Command``, ``Event``, ``View`` and ``Config`` (what
    the API publishes) and the named parts they reference."""
    defs: dict[str, Schema] = {
        "Seat": SEAT,
        "Card": CARD,
        "Region": REGION,
        "SeatCard": SEAT_CARD,
        "Config": CONFIG,
        "Result": RESULT,
        "Player": PLAYER,
        **{f"{name}Command": schema for name, schema in COMMANDS.items()},
        **{f"{name}Event": schema for name, schema in EVENTS.items()},
        "Command": _union({f"{n}Command": s for n, s in COMMANDS.items()}, "A command a seat sends"),
        "Event": _union(
            {f"{n}Event": s for n, s in EVENTS.items()}, "An event of the log, as the reader may see it"
        ),
        "View": VIEW,
    }
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
