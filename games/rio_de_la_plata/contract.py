"""Rio de la Plata's part of the API contract (``games.base.ContractHooks``): JSON Schemas (draft
2020-12, as OpenAPI 3.1 uses) of its commands, events, views and configuration, as
docs/rio-de-la-plata-protocol.md describes them.

Names come from the board model's closed vocabularies (``board.MAJOR_BUILDINGS``, ``CHARACTERS``,
``MINOR_BUILDINGS``, ``GOODS``), so a board document cannot bring a word the contract does not know.
A player's event is its command's fact (``rules.EVENT_OF``, ``battle.BATTLE_EVENT_OF``,
``trade.TRADE_EVENT_OF``): the command's fields plus ``seat`` (and ``price`` for a purchase or a
recruit), so each event schema is derived from its command's and a command added to the engine
without its schema here fails tests/rio_de_la_plata/test_contract.py. Objects are closed
(``additionalProperties: false``): a field the engine adds without saying so here fails the same
tests instead of drifting silently.
"""

from __future__ import annotations

from typing import Any

from games.rio_de_la_plata.board import CHARACTERS, GOODS, MAJOR_BUILDINGS, MINOR_BUILDINGS

Schema = dict[str, Any]

MONEY_AND_GOODS = ("silver", *GOODS)
ENEMIES = ("natives", "pirates")  # board.py reads exactly these two tracks


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


def _list(items: Schema, **extra: Any) -> Schema:
    return {"type": "array", "items": items, **extra}


def _const(value: str) -> Schema:
    return {"type": "string", "const": value}


def _enum(values: tuple[str, ...] | list[str], doc: str | None = None) -> Schema:
    schema: Schema = {"type": "string", "enum": list(values)}
    if doc:
        schema["description"] = doc
    return schema


def _map(values: Schema, keys: Schema | None = None) -> Schema:
    schema: Schema = {"type": "object", "additionalProperties": values}
    if keys is not None:
        schema["propertyNames"] = keys
    return schema


COUNT: Schema = {"type": "integer", "minimum": 0}
INT: Schema = {"type": "integer"}
BOOL: Schema = {"type": "boolean"}
SEAT: Schema = {"type": "integer", "minimum": 0, "maximum": 4}
CELL: Schema = _list(COUNT, minItems=2, maxItems=2, description="A city cell [x, y]")
CELL_KEY: Schema = {"type": "string", "pattern": r"^[0-9]+,[0-9]+$", "description": 'A city cell "x,y"'}
EDGE: Schema = {
    "type": "string",
    "pattern": r"^[0-9]+,[0-9]+-[0-9]+,[0-9]+$",
    "description": 'A unit edge between two grid vertices, "X1,Y1-X2,Y2"',
}
PER_SEAT: Schema = _list(COUNT, description="One count per seat")

# -- configuration --------------------------------------------------------------------------------

CONFIG: Schema = _obj(
    {
        "players": {"type": "integer", "minimum": 3, "maximum": 5},
        "seed": {
            "type": ["integer", "string"],
            "description": "FULL only: the secret every random outcome follows from",
        },
        "board": {
            "anyOf": [{"type": "object"}, {"type": "null"}],
            "description": "A board document (section 21.1) when it is not the package's own, else null",
        },
        "board_hash": {"type": "string", "description": "SHA-256 of the board document's canonical JSON"},
    },
    required=["players", "board", "board_hash"],
    description="A normalised configuration; seed is absent from every view and event but FULL's",
)

# -- commands -------------------------------------------------------------------------------------

COMMANDS: dict[str, Schema] = {
    # Phase A (RIO-PLACE-1 .. RIO-PLACE-5)
    "place": _obj(
        {
            "type": _const("place"),
            "space": _enum(
                ["cell", "major", "mine", "forest", "field", "craftsmen", "dock", "order", "character"]
            ),
            "cell": _ref("Cell"),
            "displace": {
                "type": "boolean",
                "const": True,
                "description": "Place 2k people on a cell held by k others (RIO-CITY-9)",
            },
            "building": _ref("MajorBuilding"),
            "grid": COUNT,
            "index": COUNT,
            "pay": {**_enum(["stone", "wood"]), "description": "Only for a one-of cost (RIO-MAJOR-3)"},
            "character": _ref("Character"),
        },
        required=["type", "space"],
        description=(
            "One placement: a cell (+ displace), a major building (building, grid, index, pay), "
            "a character or a space"
        ),
    ),
    "launch": _obj({"type": _const("launch")}, description="Order the ship's launch (RIO-SHIP-6)"),
    "end_turn": _obj({"type": _const("end_turn")}, description="End the placement or action turn"),
    # Phase B (RIO-ACT-2)
    "collect": _obj({"type": _const("collect"), "space": _enum(["mine", "forest", "field"])}),
    "claim": _obj(
        {"type": _const("claim"), "character": _ref("Character")},
        description="Pay for the character or take the penalty (RIO-CHAR-3, RIO-CHAR-4)",
    ),
    "craft": _obj(
        {"type": _const("craft"), "give": _nullable(_enum(["stone", "wood"]))},
        description="One craftsman exchanges a good for luxury, or declines (null)",
    ),
    "load": _obj({"type": _const("load"), "good": _ref("Good")}),
    "build": _obj(
        {
            "type": _const("build"),
            "cell": _ref("Cell"),
            "building": _ref("MinorBuilding"),
            "pool": {"type": "string", "description": "The tile pool, when the tile has two (RIO-RL-13)"},
        },
        required=["type", "cell", "building"],
    ),
    "use": _obj(
        {"type": _const("use"), "cell": _ref("Cell"), "choice": COUNT},
        description="Use the building on the cell, receiving option `choice` of its table (RIO-USE-5)",
    ),
    # Decisions the engine waits for (due)
    "place_tile": _obj({"type": _const("place_tile"), "cell": _ref("Cell")}),
    "place_section": _obj({"type": _const("place_section"), "edge": _ref("Edge")}),
    "choose_resource": _obj({"type": _const("choose_resource"), "good": _ref("Good")}),
    # The battle (section 16, RIO-RL-69, RIO-RL-70)
    "place_attacker": _obj({"type": _const("place_attacker"), "edge": _ref("Edge")}),
    "fire": _obj({"type": _const("fire"), "k": COUNT}),
    "remove_attacker": _obj({"type": _const("remove_attacker"), "edge": _ref("Edge")}),
    "defend": _obj({"type": _const("defend"), "cell": _ref("Cell")}),
    "split": _obj({"type": _const("split"), "edge": _ref("Edge"), "size": {"type": "integer", "minimum": 1}}),
    "move": _obj({"type": _const("move"), "group": {"type": "string"}, "to": _ref("Cell")}),
    "withdraw": _obj({"type": _const("withdraw"), "cell": _ref("Cell"), "count": COUNT}),
    # The manoeuvres (RIO-BATTLE-25, RIO-BATTLE-27, RIO-BATTLE-28, RIO-RL-46, RIO-RL-63, RIO-RL-64)
    "choose_across": _obj(
        {"type": _const("choose_across"), "person": COUNT},
        description="2+2 regrouping of a mixed pair: the position (top = 0) of the person who goes across",
    ),
    "choose_commander": _obj(
        {"type": _const("choose_commander"), "commander": _ref("Seat")},
        description="Name the commander of a group of two or more colours (RIO-RL-64)",
    ),
    "consent": _obj(
        {"type": _const("consent"), "accept": BOOL},
        description="Agree to, or refuse, a join or a sacrifice that involves one's people",
    ),
    "bonus": _obj({"type": _const("bonus"), "group": {"type": "string"}}),
    "sacrifice": _obj({"type": _const("sacrifice"), "group": {"type": "string"}}),
    "bonus_step": _obj({"type": _const("bonus_step"), "group": {"type": "string"}, "to": _ref("Cell")}),
    "pass": _obj({"type": _const("pass")}),
    # Free commands of any seat (RIO-TRADE-1, RIO-TRADE-2, RIO-RL-27)
    "buy": _obj({"type": _const("buy"), "good": _enum(["stone", "wood"])}),
    "offer_open": _obj({"type": _const("offer_open"), "to": _ref("Seat")}),
    "offer_add": _obj(
        {"type": _const("offer_add"), "side": _enum(["give", "get"]), "item": _ref("TradeItem")},
    ),
    "offer_send": _obj({"type": _const("offer_send")}),
    "offer_accept": _obj({"type": _const("offer_accept")}),
    "offer_decline": _obj({"type": _const("offer_decline")}),
}

# -- events ---------------------------------------------------------------------------------------


def _event(
    type_: str, properties: dict[str, Schema], optional: tuple[str, ...] = (), doc: str = ""
) -> Schema:
    props = {"type": _const(type_), "v": {"type": "integer", "const": 1}, **properties}
    required = [name for name in props if name not in optional]
    return _obj(props, required=required, description=doc) if doc else _obj(props, required=required)


# What a player's event adds to its command's fields (rules.command_events, battle.battle_event).
EVENT_EXTRAS: dict[str, dict[str, Schema]] = {
    "buy": {"price": {**COUNT, "description": "Silver paid (RIO-TRADE-2)"}},
    "defend": {"price": {**COUNT, "description": "Silver paid for a recruit (0 for a free person)"}},
}


def player_event(command_type: str, event_type: str) -> Schema:
    """The event of a player's command: the command's fields (``type`` renamed) plus ``seat``."""
    command = COMMANDS[command_type]
    fields = {k: v for k, v in command["properties"].items() if k != "type"}
    extras = EVENT_EXTRAS.get(command_type, {})
    props = {"seat": _ref("Seat"), **fields, **extras}
    optional = tuple(k for k in fields if k not in command["required"])
    return _event(event_type, props, optional=optional, doc=f"The fact of a `{command_type}` command")


AUTOMATIC_EVENTS: dict[str, Schema] = {
    "game_started": _event("game_started", {"config": _ref("Config")}),
    "order_drawn": _event("order_drawn", {"order": _list(_ref("Seat"))}, doc="RIO-SETUP-4"),
    "building_completed": _event(
        "building_completed",
        {"building": _ref("MajorBuilding"), "grid": COUNT, "completer": _ref("Seat")},
        doc="RIO-MAJOR-6, RIO-RL-9",
    ),
    "actions_started": _event("actions_started", {}),
    "action_turn_started": _event(
        "action_turn_started",
        {"seat": _ref("Seat"), "income": _map(COUNT, _ref("Good"))},
        doc="RIO-CHAR-8, RIO-RL-23: the characters' income of this turn",
    ),
    "ship_sailed": _event("ship_sailed", {"full": BOOL}),
    "launch_refunded": _event("launch_refunded", {"seat": _ref("Seat")}, doc="RIO-RL-19"),
    "ship_returned": _event(
        "ship_returned", {"payouts": _list(_obj({"silver": COUNT, "vp": COUNT}))}, doc="Per seat"
    ),
    "phase_c_started": _event("phase_c_started", {}),
    "dice_rolled": _event(
        "dice_rolled",
        {"purpose": _enum(["war", "cannon"]), "dice": _list({"type": "integer", "minimum": 1})},
    ),
    "battle_started": _event(
        "battle_started",
        {
            "enemy": _ref("Enemy"),
            "attacker": _ref("Seat"),
            "marks_reset": BOOL,
            "attackers": COUNT,
            "people": COUNT,
        },
    ),
    "fighting_ended": _event("fighting_ended", {}),
    "battle_ended": _event("battle_ended", {"enemy": _ref("Enemy"), "marker": COUNT}),
    "round_ended": _event("round_ended", {"order": _list(_ref("Seat")), "year": INT}),
    "game_ended": _event(
        "game_ended",
        {"scoring": _list(_obj({"money": INT, "characters": INT, "city": INT}))},
        doc="Final scoring per seat",
    ),
    # The server's records (no-ops for the rules, games.base).
    "seat_token_rotated": _event("seat_token_rotated", {"seat": _ref("Seat")}),
    "seat_handed_to_bot": _event(
        "seat_handed_to_bot",
        {"seat": _ref("Seat"), "level": {"type": "string", "description": "The bot's level"}},
    ),
}


def event_of() -> dict[str, str]:
    """Command type -> event type, as the engine maps them."""
    from games.rio_de_la_plata.battle import BATTLE_EVENT_OF
    from games.rio_de_la_plata.rules import EVENT_OF
    from games.rio_de_la_plata.trade import TRADE_EVENT_OF

    return {**EVENT_OF, **BATTLE_EVENT_OF, **TRADE_EVENT_OF}


def events() -> dict[str, Schema]:
    out = {
        event_type: player_event(command_type, event_type) for command_type, event_type in event_of().items()
    }
    out.update(AUTOMATIC_EVENTS)
    return out


# -- views ----------------------------------------------------------------------------------------

PLAYER: Schema = _obj(
    {
        "silver": COUNT,
        "stone": COUNT,
        "wood": COUNT,
        "luxury": COUNT,
        "vp": INT,
        "supply": {**COUNT, "description": "People not on the board"},
        "placed": {**COUNT, "description": "People placed this round"},
        "buys": {**COUNT, "description": "Purchases this round (RIO-TRADE-2)"},
        "char_placed": COUNT,
        "mark": {**BOOL, "description": "The attack mark (RIO-BATTLE-2)"},
        "huts": {**COUNT, "description": "Hut/house tiles left"},
        "vp_by": {**_map(INT), "description": "VP by source (statistics)"},
        "loaded": {**COUNT, "description": "Goods loaded this round"},
    }
)

CITY_CELL: Schema = _obj(
    {
        "b": _nullable({"type": "string", "description": "The building on the cell"}),
        "own": _nullable(_ref("Seat")),
        "pool": _nullable({"type": "string"}),
        "built": _nullable({**INT, "description": "The year of the last building"}),
        "uses": COUNT,
        "uy": {**INT, "description": "The year `uses` counts (RIO-RL-59)"},
        "ppl": {**PER_SEAT, "description": "People on the cell, per seat"},
    }
)

GROUP: Schema = _obj(
    {
        "side": _enum(["a", "d"], "Attackers or defenders"),
        "stack": _list({"type": "integer", "minimum": -1}, description="Owners, top first; -1 an attacker"),
        "at": _nullable(_ref("CellKey")),
        "edge": _nullable(_ref("Edge")),
        "moved": BOOL,
        "fought": INT,
        "can_bonus": BOOL,
        "bonused": BOOL,
    },
    required=["side", "stack", "at", "edge", "moved", "fought"],
)

BATTLE: Schema = {
    "type": "object",
    "properties": {
        "stage": _enum(
            [
                "start",
                "place",
                "cannon",
                "cannon_roll",
                "cannon_remove",
                "defend",
                "split",
                "move",
                "over",
                "withdraw",
                "end",
            ]
        ),
        "enemy": _ref("Enemy"),
        "attacker": _ref("Seat"),
        "to_place": COUNT,
        "stacks": _map(COUNT, _ref("Edge")),
        "groups": _map(_ref("Group")),
        "next_id": COUNT,
        "forbidden": _list(_ref("CellKey")),
        "firer": _nullable(_ref("Seat")),
        "k": COUNT,
        "di": COUNT,
        "free_left": COUNT,
        "recruited": COUNT,
        "mover": COUNT,
        "round": COUNT,
        "quiet": COUNT,
        "combat": BOOL,
        "withdrawer": COUNT,
        "ask": _nullable(
            {
                "type": "object",
                "description": "A join (merge, regroup) or a sacrifice waiting for choices and consents",
            }
        ),
        "bonus": _nullable(
            _obj({"group": {"type": "string"}, "left": COUNT, "refused": _list({"type": "string"})})
        ),
        "refused": _list(_list({"type": "string"}), description="Joins refused this battle round"),
    },
    "required": ["stage", "enemy"],
    "additionalProperties": False,
}

DUE: Schema = _obj(
    {
        "seat": _ref("Seat"),
        "kind": _enum(["tile", "section", "resource"]),
        "building": _ref("MajorBuilding"),
        "what": _enum(["wall", "road"]),
        "left": COUNT,
    },
    required=["seat", "kind"],
    description="A decision the engine waits for before the turn goes on",
)

OFFER: Schema = _obj(
    {
        "from": _ref("Seat"),
        "to": _ref("Seat"),
        "give": {**_map(COUNT, _ref("TradeItem")), "description": "What the author gives"},
        "get": {**_map(COUNT, _ref("TradeItem")), "description": "What the author asks for"},
        "sent": BOOL,
    },
    description="The open trade offer (RIO-RL-27)",
)

SHIP: Schema = _obj(
    {
        "in_play": BOOL,
        "at_sea": BOOL,
        "back": _nullable({**INT, "description": "The year the ship returns"}),
        "hold": _list(_list(COUNT, minItems=3, maxItems=3), description="Per seat: stone, wood, luxury"),
        "launch": _nullable(_ref("Seat")),
        "fee_owner": _nullable(_ref("Seat")),
        "full": BOOL,
    }
)

RESULT: Schema = _obj(
    {"winners": _list(_ref("Seat")), "reason": {"type": "string"}, "vp": _list(INT)},
    description="Once the game is over",
)

VIEW: Schema = _obj(
    {
        "config": _ref("Config"),
        "n": {"type": "integer", "minimum": 3, "maximum": 5},
        "year": INT,
        "step": _enum(
            ["setup", "A", "resolve", "B", "B_end", "roll", "battle", "round_end", "game_end", "over"]
        ),
        "order": _list(_ref("Seat"), description="Turn order"),
        "turn": {**COUNT, "description": "Index into order of the player whose turn it is"},
        "rng": {**COUNT, "description": "FULL only: random outcomes drawn so far"},
        "started": BOOL,
        "p": _list(_ref("Player"), description="Per seat"),
        "city": {**_map(_ref("CityCell"), _ref("CellKey")), "description": "Cells with something on them"},
        "major": _map(
            _obj({"grids": _list(_list(_nullable(_ref("Seat")))), "done": BOOL}), _ref("MajorBuilding")
        ),
        "track": {
            **_map(_list(_nullable(_ref("Seat")))),
            "description": "Mine and forest: occupant per space",
        },
        "field": PER_SEAT,
        "craft": PER_SEAT,
        "dock": PER_SEAT,
        "otrack": PER_SEAT,
        "chars": _map(_obj({"owner": _nullable(_ref("Seat")), "from": INT}), _ref("Character")),
        "spots": {**_map(_ref("Seat"), _ref("Character")), "description": "Characters placed on this round"},
        "walls": _list(_ref("Edge")),
        "roads": _list(_ref("Edge")),
        "sections": COUNT,
        "tiles": _map(COUNT),
        "fort": BOOL,
        "ship": _ref("Ship"),
        "enemy": _map(COUNT, _ref("Enemy")),
        "queue": _list(_list({"type": ["string", "integer"]}), description="Completed grids to resolve"),
        "due": _list(_ref("Due")),
        "battle": _nullable(_ref("Battle")),
        "roll": _nullable(INT),
        "offer": _nullable(_ref("Offer")),
        "result": _nullable(_ref("Result")),
        "awaiting": _list(_ref("Seat")),
        "provisional_board": BOOL,
        "seat": {**SEAT, "description": "A seat's view only: the viewer"},
        "legal_moves": {
            **_list(_ref("Command")),
            "description": "A seat's view only: every command it may send now",
        },
    },
    required=[
        "config",
        "n",
        "year",
        "step",
        "order",
        "turn",
        "started",
        "p",
        "city",
        "major",
        "track",
        "field",
        "craft",
        "dock",
        "otrack",
        "chars",
        "spots",
        "walls",
        "roads",
        "sections",
        "tiles",
        "fort",
        "ship",
        "enemy",
        "queue",
        "due",
        "battle",
        "roll",
        "result",
        "awaiting",
        "provisional_board",
    ],
    description="What one viewer sees: the whole public state (a seat adds seat and legal_moves, FULL rng)",
)


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


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
    commands = {f"{_camel(t)}Command": schema for t, schema in COMMANDS.items()}
    all_events = {f"{_camel(t)}Event": schema for t, schema in events().items()}
    defs: dict[str, Schema] = {
        "Seat": SEAT,
        "Cell": CELL,
        "CellKey": CELL_KEY,
        "Edge": EDGE,
        "Good": _enum(GOODS),
        "MajorBuilding": _enum(MAJOR_BUILDINGS),
        "MinorBuilding": _enum(MINOR_BUILDINGS),
        "Character": _enum(CHARACTERS),
        "Enemy": _enum(ENEMIES),
        "TradeItem": _enum([*MONEY_AND_GOODS, *CHARACTERS], "Silver, a good, or a character's tile"),
        "Config": CONFIG,
        "Player": PLAYER,
        "CityCell": CITY_CELL,
        "Group": GROUP,
        "Battle": BATTLE,
        "Due": DUE,
        "Offer": OFFER,
        "Ship": SHIP,
        "Result": RESULT,
        **commands,
        **all_events,
        "Command": _union(commands, "A command a seat sends"),
        "Event": _union(all_events, "An event of the log, as the reader may see it"),
        "View": VIEW,
    }
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
