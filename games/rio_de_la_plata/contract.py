"""Rio de la Plata's part of the API contract (``games.base.ContractHooks``): JSON Schemas (draft
2020-12, as OpenAPI 3.1 uses) of its commands, events, views and configuration, as
docs/rio-de-la-plata-protocol.md describes them.

Names come from the board model's closed vocabularies (``buildings.MAJOR_BUILDINGS``,
``board.CHARACTERS``, ``buildings.MINOR_BUILDINGS``, ``document.GOODS``), so a board document cannot
bring a word the contract does not know. A player's event is its command's fact (``rules.EVENT_OF``,
``battle.BATTLE_EVENT_OF``, ``trade.TRADE_EVENT_OF``): the command's fields plus ``seat`` (and
``price`` for a purchase or a recruit), so each event schema is derived from its command's and a
command added to the engine without its schema here fails tests/rio_de_la_plata/test_contract.py.
Objects are closed (``additionalProperties: false``): a field the engine adds without saying so here
fails the same tests instead of drifting silently.

Longer than 500 lines because it is one table: the protocol document in schema form, every command,
event, part of the view and configuration field with the shared definitions they refer to (``ref``),
in one namespace that ``contract()`` gathers; split, each part would import the others' definitions
and a protocol change would be made in several places.
"""

from __future__ import annotations

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
    mapping,
    nullable,
    obj,
    ref,
    union,
)
from games.rio_de_la_plata.battle import BATTLE_EVENT_OF
from games.rio_de_la_plata.board import CHARACTERS
from games.rio_de_la_plata.buildings import MAJOR_BUILDINGS, MINOR_BUILDINGS
from games.rio_de_la_plata.decide import EVENT_OF
from games.rio_de_la_plata.document import GOODS
from games.rio_de_la_plata.trade import TRADE_EVENT_OF

MONEY_AND_GOODS = ("silver", *GOODS)
ENEMIES = ("natives", "pirates")  # board.py reads exactly these two tracks


COUNT: Schema = {"type": "integer", "minimum": 0}
INT: Schema = {"type": "integer"}
BOOL: Schema = {"type": "boolean"}
SEAT: Schema = {"type": "integer", "minimum": 0, "maximum": 4}
CELL: Schema = array(COUNT, minItems=2, maxItems=2, description="A city cell [x, y]")
CELL_KEY: Schema = {"type": "string", "pattern": r"^[0-9]+,[0-9]+$", "description": 'A city cell "x,y"'}
EDGE: Schema = {
    "type": "string",
    "pattern": r"^[0-9]+,[0-9]+-[0-9]+,[0-9]+$",
    "description": 'A unit edge between two grid vertices, "X1,Y1-X2,Y2"',
}
PER_SEAT: Schema = array(COUNT, description="One count per seat")

# -- configuration --------------------------------------------------------------------------------

CONFIG: Schema = obj(
    {
        "players": {"type": "integer", "minimum": 3, "maximum": 5},
        "seed": {
            "type": ["integer", "string"],
            "description": "FULL only: the secret every random outcome follows from",
        },
        "board": {
            "anyOf": [ref("BoardDocument"), {"type": "null"}],
            "description": "A board document (section 21.1) when it is not the package's own, else null",
        },
        "board_hash": {"type": "string", "description": "SHA-256 of the board document's canonical JSON"},
        "revision": {
            "type": "integer",
            "minimum": 1,
            "description": "The rules revision the game was created under (absent from logs recorded"
            " before revisions existed: revision 1)",
        },
    },
    required=["players", "board", "board_hash"],
    description="A normalised configuration; seed is absent from every view and event but FULL's",
)

# An object (board.py checks the document itself, section 21.1): open, so generated clients type it as
# a map of unknown values rather than as an empty object.
BOARD_DOCUMENT: Schema = {
    "type": "object",
    "additionalProperties": True,
    "description": "A board document (section 21.1): cells, buildings, tracks; board.py checks it",
}

# What POST /v1/games takes as ``config`` (config.configure): only players is required. The board is
# the engine's to check (section 21.1), and so is a board_hash against it.
CONFIG_REQUEST: Schema = obj(
    {
        "players": {"type": "integer", "minimum": 3, "maximum": 5},
        "seed": SEED_REQUEST,
        "board": {
            "anyOf": [ref("BoardDocument"), {"type": "null"}],
            "description": "Another board document than the package's own (default: the package's)",
        },
        "board_hash": {
            "type": ["string", "null"],
            "description": "SHA-256 of the board document's canonical JSON: refused unless it matches",
        },
    },
    required=["players"],
    description="A configuration to create a game with",
)

# -- commands -------------------------------------------------------------------------------------

COMMANDS: dict[str, Schema] = {
    # Phase A (RIO-PLACE-1 .. RIO-PLACE-5)
    "place": obj(
        {
            "type": const("place"),
            "space": enum(
                ["cell", "major", "mine", "forest", "field", "craftsmen", "dock", "order", "character"]
            ),
            "cell": ref("Cell"),
            "displace": {
                "type": "boolean",
                "const": True,
                "description": "Place 2k people on a cell held by k others (RIO-CITY-9)",
            },
            "building": ref("MajorBuilding"),
            "grid": COUNT,
            "index": COUNT,
            "pay": {**enum(["stone", "wood"]), "description": "Only for a one-of cost (RIO-MAJOR-3)"},
            "character": ref("Character"),
        },
        required=["type", "space"],
        description=(
            "One placement: a cell (+ displace), a major building (building, grid, index, pay), "
            "a character or a space"
        ),
    ),
    "launch": obj({"type": const("launch")}, description="Order the ship's launch (RIO-SHIP-6)"),
    "end_turn": obj({"type": const("end_turn")}, description="End the placement or action turn"),
    # Never among legal_moves: a seat's view names what it would take back under `undo`.
    "undo": obj(
        {"type": const("undo")},
        description="Take back your last placement or build of this turn (RIO-UNDO-1 .. RIO-UNDO-5)",
    ),
    # Phase B (RIO-ACT-2)
    "collect": obj({"type": const("collect"), "space": enum(["mine", "forest", "field"])}),
    "claim": obj(
        {"type": const("claim"), "character": ref("Character")},
        description="Pay for the character or take the penalty (RIO-CHAR-3, RIO-CHAR-4)",
    ),
    "craft": obj(
        {"type": const("craft"), "give": nullable(enum(["stone", "wood"]))},
        description="One craftsman exchanges a good for luxury, or declines (null)",
    ),
    "load": obj({"type": const("load"), "good": ref("Good")}),
    "build": obj(
        {
            "type": const("build"),
            "cell": ref("Cell"),
            "building": ref("MinorBuilding"),
            "pool": {"type": "string", "description": "The tile pool, when the tile has two (RIO-RL-13)"},
        },
        required=["type", "cell", "building"],
    ),
    "use": obj(
        {"type": const("use"), "cell": ref("Cell"), "choice": COUNT},
        description="Use the building on the cell, receiving option `choice` of its table (RIO-USE-5)",
    ),
    # Decisions the engine waits for (due)
    "place_tile": obj({"type": const("place_tile"), "cell": ref("Cell")}),
    "place_section": obj({"type": const("place_section"), "edge": ref("Edge")}),
    "choose_resource": obj({"type": const("choose_resource"), "good": ref("Good")}),
    # The battle (section 16, RIO-RL-69, RIO-RL-70)
    "place_attacker": obj({"type": const("place_attacker"), "edge": ref("Edge")}),
    "fire": obj({"type": const("fire"), "k": COUNT}),
    "remove_attacker": obj({"type": const("remove_attacker"), "edge": ref("Edge")}),
    "defend": obj({"type": const("defend"), "cell": ref("Cell")}),
    "split": obj({"type": const("split"), "edge": ref("Edge"), "size": {"type": "integer", "minimum": 1}}),
    "move": obj({"type": const("move"), "group": {"type": "string"}, "to": ref("Cell")}),
    "withdraw": obj({"type": const("withdraw"), "cell": ref("Cell"), "count": COUNT}),
    # The manoeuvres (RIO-BATTLE-25, RIO-BATTLE-27, RIO-BATTLE-28, RIO-RL-46, RIO-RL-63, RIO-RL-64)
    "choose_across": obj(
        {"type": const("choose_across"), "person": COUNT},
        description="2+2 regrouping of a mixed pair: the position (top = 0) of the person who goes across",
    ),
    "choose_commander": obj(
        {"type": const("choose_commander"), "commander": ref("Seat")},
        description="Name the commander of a group of two or more colours (RIO-RL-64)",
    ),
    "consent": obj(
        {"type": const("consent"), "accept": BOOL},
        description="Agree to, or refuse, a join or a sacrifice that involves one's people",
    ),
    "bonus": obj({"type": const("bonus"), "group": {"type": "string"}}),
    "sacrifice": obj({"type": const("sacrifice"), "group": {"type": "string"}}),
    "bonus_step": obj({"type": const("bonus_step"), "group": {"type": "string"}, "to": ref("Cell")}),
    "pass": obj({"type": const("pass")}),
    # Free commands of any seat (RIO-TRADE-1, RIO-TRADE-2, RIO-RL-27)
    "buy": obj({"type": const("buy"), "good": enum(["stone", "wood"])}),
    "offer_open": obj({"type": const("offer_open"), "to": ref("Seat")}),
    "offer_add": obj(
        {"type": const("offer_add"), "side": enum(["give", "get"]), "item": ref("TradeItem")},
    ),
    "offer_send": obj({"type": const("offer_send")}),
    "offer_accept": obj({"type": const("offer_accept")}),
    "offer_decline": obj({"type": const("offer_decline")}),
}

# -- events ---------------------------------------------------------------------------------------


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
    props = {"seat": ref("Seat"), **fields, **extras}
    optional = tuple(k for k in fields if k not in command["required"])
    return event(event_type, props, optional=optional, doc=f"The fact of a `{command_type}` command")


AUTOMATIC_EVENTS: dict[str, Schema] = {
    "game_started": event(
        "game_started", {"config": ref("Config"), "commitment": COMMITMENT}, optional=("commitment",)
    ),
    "order_drawn": event("order_drawn", {"order": array(ref("Seat"))}, doc="RIO-SETUP-4"),
    "building_completed": event(
        "building_completed",
        {"building": ref("MajorBuilding"), "grid": COUNT, "completer": ref("Seat")},
        doc="RIO-MAJOR-6, RIO-RL-9",
    ),
    "actions_started": event("actions_started", {}),
    "action_turn_started": event(
        "action_turn_started",
        {"seat": ref("Seat"), "income": mapping(COUNT, ref("Good"))},
        doc="RIO-CHAR-8, RIO-RL-23: the characters' income of this turn",
    ),
    "ship_sailed": event("ship_sailed", {"full": BOOL}),
    "launch_refunded": event("launch_refunded", {"seat": ref("Seat")}, doc="RIO-RL-19"),
    "ship_returned": event(
        "ship_returned", {"payouts": array(obj({"silver": COUNT, "vp": COUNT}))}, doc="Per seat"
    ),
    "phase_c_started": event("phase_c_started", {}),
    "dice_rolled": event(
        "dice_rolled",
        {"purpose": enum(["war", "cannon"]), "dice": array({"type": "integer", "minimum": 1})},
    ),
    "battle_started": event(
        "battle_started",
        {
            "enemy": ref("Enemy"),
            "attacker": ref("Seat"),
            "marks_reset": BOOL,
            "attackers": COUNT,
            "people": COUNT,
        },
    ),
    "fighting_ended": event("fighting_ended", {}),
    "battle_ended": event("battle_ended", {"enemy": ref("Enemy"), "marker": COUNT}),
    "round_ended": event("round_ended", {"order": array(ref("Seat")), "year": INT}),
    "game_ended": event(
        "game_ended",
        {"scoring": array(obj({"money": INT, "characters": INT, "city": INT}))},
        doc="Final scoring per seat",
    ),
    # The server's records (no-ops for the rules, games.base).
    "seat_token_rotated": event("seat_token_rotated", {"seat": ref("Seat")}),
    "seat_handed_to_bot": event(
        "seat_handed_to_bot",
        {"seat": ref("Seat"), "level": {"type": "string", "description": "The bot's level"}},
    ),
}


def event_of() -> dict[str, str]:
    """Command type -> event type, as the engine maps them."""
    return {**EVENT_OF, **BATTLE_EVENT_OF, **TRADE_EVENT_OF}


# The decision an undo takes back (RIO-UNDO-1): a placement or a build, as its event.
UNDOABLE_EVENT: Schema = {"oneOf": [ref("PlacedEvent"), ref("BuiltEvent")]}


def events() -> dict[str, Schema]:
    out = {
        event_type: player_event(command_type, event_type) for command_type, event_type in event_of().items()
    }
    out["undone"] = event(
        "undone",
        {"seat": ref("Seat"), "event": UNDOABLE_EVENT},
        doc="The fact of an `undo` command: `event` is the decision taken back (RIO-UNDO-3)",
    )
    out.update(AUTOMATIC_EVENTS)
    return out


# -- views ----------------------------------------------------------------------------------------

PLAYER: Schema = obj(
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
        "vp_by": {**mapping(INT), "description": "VP by source (statistics)"},
        "loaded": {**COUNT, "description": "Goods loaded this round"},
    }
)

CITY_CELL: Schema = obj(
    {
        "b": nullable({"type": "string", "description": "The building on the cell"}),
        "own": nullable(ref("Seat")),
        "pool": nullable({"type": "string"}),
        "built": nullable({**INT, "description": "The year of the last building"}),
        "uses": COUNT,
        "uy": {**INT, "description": "The year `uses` counts (RIO-RL-59)"},
        "ppl": {**PER_SEAT, "description": "People on the cell, per seat"},
    }
)

GROUP: Schema = obj(
    {
        "side": enum(["a", "d"], "Attackers or defenders"),
        "stack": array({"type": "integer", "minimum": -1}, description="Owners, top first; -1 an attacker"),
        "at": nullable(ref("CellKey")),
        "edge": nullable(ref("Edge")),
        "moved": BOOL,
        "fought": INT,
        "can_bonus": BOOL,
        "bonused": BOOL,
    },
    required=["side", "stack", "at", "edge", "moved", "fought"],
)

# battle/manoeuvres.py's pending join (RIO-RL-64: the person going across, the commander, the
# consents, settled in that order: null until settled) or sacrifice (RIO-RL-63: the consents still
# due, first first).
ASK: Schema = {
    "oneOf": [
        obj(
            {
                "kind": enum(["merge", "regroup"]),
                "group": {"type": "string", "description": "The moving group"},
                "target": {"type": "string", "description": "The group it joins"},
                "to": ref("CellKey"),
                "mover": ref("Seat"),
                "across": nullable(COUNT),
                "commander": nullable(ref("Seat")),
                "consent": nullable(array(ref("Seat"))),
            },
            description="A merge or a 2+2 regrouping",
        ),
        obj(
            {
                "kind": const("sacrifice"),
                "victim": {"type": "string", "description": "The group sacrificed"},
                "mover": ref("Seat"),
                "consent": array(ref("Seat")),
            },
            description="A bonus move's sacrifice",
        ),
    ],
}

BATTLE: Schema = {
    "type": "object",
    "properties": {
        "stage": enum(
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
        "enemy": ref("Enemy"),
        "attacker": ref("Seat"),
        "to_place": COUNT,
        "stacks": mapping(COUNT, ref("Edge")),
        "groups": mapping(ref("Group")),
        "next_id": COUNT,
        "forbidden": array(ref("CellKey")),
        "firer": nullable(ref("Seat")),
        "k": COUNT,
        "hits": {**COUNT, "description": "The attackers the firer has still to remove (stage cannon_remove)"},
        "di": COUNT,
        "free_left": COUNT,
        "recruited": COUNT,
        "mover": COUNT,
        "round": COUNT,
        "quiet": COUNT,
        "combat": BOOL,
        "withdrawer": COUNT,
        "ask": {
            **nullable(ref("Ask")),
            "description": "A join (merge, regroup) or a sacrifice waiting for choices and consents",
        },
        "bonus": nullable(
            obj({"group": {"type": "string"}, "left": COUNT, "refused": array({"type": "string"})})
        ),
        "refused": array(array({"type": "string"}), description="Joins refused this battle round"),
    },
    "required": ["stage", "enemy"],
    "additionalProperties": False,
}

DUE: Schema = obj(
    {
        "seat": ref("Seat"),
        "kind": enum(["tile", "section", "resource"]),
        "building": ref("MajorBuilding"),
        "what": enum(["wall", "road"]),
        "left": COUNT,
    },
    required=["seat", "kind"],
    description="A decision the engine waits for before the turn goes on",
)

OFFER: Schema = obj(
    {
        "from": ref("Seat"),
        "to": ref("Seat"),
        "give": {**mapping(COUNT, ref("TradeItem")), "description": "What the author gives"},
        "get": {**mapping(COUNT, ref("TradeItem")), "description": "What the author asks for"},
        "sent": BOOL,
    },
    description="The open trade offer (RIO-RL-27)",
)

SHIP: Schema = obj(
    {
        "in_play": BOOL,
        "at_sea": BOOL,
        "back": nullable({**INT, "description": "The year the ship returns"}),
        "hold": array(array(COUNT, minItems=3, maxItems=3), description="Per seat: stone, wood, luxury"),
        "launch": nullable(ref("Seat")),
        "fee": {**COUNT, "description": "RIO-RL-19: what the launcher paid in all (0 once refunded)"},
        "fee_owner": nullable(ref("Seat")),
        "share": {**COUNT, "description": "RIO-RL-19: the part of the fee the Shipowner received"},
        "full": BOOL,
    },
    # Present from the first launch on (rules._launched): a ship never launched has neither.
    required=["in_play", "at_sea", "back", "hold", "launch", "fee_owner", "full"],
)

RESULT: Schema = obj(
    {"winners": array(ref("Seat")), "reason": {"type": "string"}, "vp": array(INT), "rated": RATED},
    required=["winners", "reason", "vp"],
    description="Once the game is over",
)

VIEW: Schema = obj(
    {
        "config": ref("Config"),
        "n": {"type": "integer", "minimum": 3, "maximum": 5},
        "year": INT,
        "step": enum(
            ["setup", "A", "resolve", "B", "B_end", "roll", "battle", "round_end", "game_end", "over"]
        ),
        "order": array(ref("Seat"), description="Turn order"),
        "turn": {**COUNT, "description": "Index into order of the player whose turn it is"},
        "rng": {**COUNT, "description": "FULL only: random outcomes drawn so far"},
        "started": BOOL,
        "p": array(ref("Player"), description="Per seat"),
        "city": {**mapping(ref("CityCell"), ref("CellKey")), "description": "Cells with something on them"},
        "major": mapping(
            obj({"grids": array(array(nullable(ref("Seat")))), "done": BOOL}), ref("MajorBuilding")
        ),
        "track": {
            **mapping(array(nullable(ref("Seat")))),
            "description": "Mine and forest: occupant per space",
        },
        "field": PER_SEAT,
        "craft": PER_SEAT,
        "dock": PER_SEAT,
        "otrack": PER_SEAT,
        "chars": mapping(obj({"owner": nullable(ref("Seat")), "from": INT}), ref("Character")),
        "spots": {**mapping(ref("Seat"), ref("Character")), "description": "Characters placed on this round"},
        "walls": array(ref("Edge")),
        "roads": array(ref("Edge")),
        "sections": COUNT,
        "tiles": mapping(COUNT),
        "fort": BOOL,
        "ship": ref("Ship"),
        "enemy": mapping(COUNT, ref("Enemy")),
        "queue": array(array({"type": ["string", "integer"]}), description="Completed grids to resolve"),
        "due": array(ref("Due")),
        "battle": nullable(ref("Battle")),
        "roll": nullable(INT),
        "offer": nullable(ref("Offer")),
        "result": nullable(ref("Result")),
        "awaiting": array(ref("Seat")),
        "provisional_board": BOOL,
        "game": {**const("rio_de_la_plata"), "description": "The game: every view names it"},
        "seat": {**SEAT, "description": "A seat's view only: the viewer"},
        "legal_moves": {
            **array(ref("Command")),
            "description": "A seat's view only: every command it may send now",
        },
        "undo": {
            **UNDOABLE_EVENT,
            "description": "A seat's view only, when it may send `undo`: the decision it takes back",
        },
    },
    required=[
        "game",
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
        "Good": enum(GOODS),
        "MajorBuilding": enum(MAJOR_BUILDINGS),
        "MinorBuilding": enum(MINOR_BUILDINGS),
        "Character": enum(CHARACTERS),
        "Enemy": enum(ENEMIES),
        "TradeItem": enum([*MONEY_AND_GOODS, *CHARACTERS], "Silver, a good, or a character's tile"),
        "Config": CONFIG,
        "Player": PLAYER,
        "CityCell": CITY_CELL,
        "Group": GROUP,
        "Battle": BATTLE,
        "Due": DUE,
        "Offer": OFFER,
        "Ship": SHIP,
        "Ask": ASK,
        "BoardDocument": BOARD_DOCUMENT,
        "ConfigRequest": CONFIG_REQUEST,
        "Result": RESULT,
        **commands,
        **all_events,
        "Command": union(commands, "A command a seat sends"),
        "Event": union(all_events, "An event of the log, as the reader may see it"),
        "View": VIEW,
    }
    return document(defs)
