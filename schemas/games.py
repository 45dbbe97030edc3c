"""Requests and responses of the core game routes. Engine-specific content (commands, events, views,
configurations) is parsed as a JSON object here and validated by the engines; in the OpenAPI
document the fields below point at each game's own schemas (api/contract.py, games.base.ContractHooks)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from bots import all_levels
from schemas.common import BodyInteger, DisplayName, StrictSchema

STATUSES = ("open", "active", "finished")
PREARRANGED = (
    "The creator fixed the shuffles (gave a seed or a deck order) and so may know every hand; "
    "public from the game's creation on"
)


class TimeControlSchema(StrictSchema):
    move_seconds = fields.Float(
        required=True,
        validate=validate.Range(1, 60 * 24 * 3600),
        metadata={"description": "Time for each decision, 1 s to 60 days"},
    )
    bank_seconds = fields.Float(
        allow_none=True,
        validate=validate.Range(0, 60 * 24 * 3600),
        metadata={"description": "Optional per-seat reserve used once a decision's move_seconds ran out"},
    )
    increment_seconds = fields.Float(
        validate=validate.Range(0, 60 * 24 * 3600),
        metadata={"description": "Added to the seat's bank after each of its moves (needs bank_seconds)"},
    )
    timeouts_to_bot = fields.Integer(
        validate=validate.Range(1, 1000),
        metadata={"description": "After this many timeouts the seat is played by a bot (default 3)"},
    )
    timeout_bot = fields.String(
        validate=validate.Length(1, 32),
        metadata={
            "description": "The bot level that plays a seat after its timeouts (default random)",
            "examples": all_levels(),
        },
    )


class ClockControlSchema(ma.Schema):
    """A time control as the server normalised it (every field present)."""

    move_seconds = fields.Float(required=True)
    bank_seconds = fields.Float(required=True, allow_none=True)
    increment_seconds = fields.Float(required=True)
    timeouts_to_bot = fields.Integer(required=True)
    timeout_bot = fields.String(
        metadata={"description": "Absent from controls set before it existed: random"}
    )


class ClockSeatSchema(ma.Schema):
    seat = fields.Integer(required=True)
    deadline_ms = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "Epoch ms; null while the seat is not awaited"},
    )
    remaining_ms = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Time left for the current decision"}
    )
    bank_ms = fields.Integer(required=True, allow_none=True, metadata={"description": "null: no bank"})
    timeouts = fields.Integer(required=True)


class ClockSchema(ma.Schema):
    """A timed game's public clock (summaries, views, ``event: clock`` of the event stream)."""

    control = fields.Nested(ClockControlSchema, required=True)
    now_ms = fields.Integer(required=True, metadata={"description": "The server's time of this reading"})
    seats = fields.List(fields.Nested(ClockSeatSchema), required=True)


class GameCommand(fields.Dict):
    """A game's command: the contract's ``<Game>Command`` (a union discriminated by ``type``)."""

    contract_definition = "Command"


class GameEvent(fields.Dict):
    """A game's event as the reader may see it: the contract's ``<Game>Event``."""

    contract_definition = "Event"


class GameView(fields.Dict):
    """What a viewer sees of a game: the contract's ``<Game>View``."""

    contract_definition = "View"


class GameConfig(fields.Dict):
    """A normalised configuration as the reader may see it: the contract's ``<Game>Config``."""

    contract_definition = "Config"


class GameResult(fields.Dict):
    """A finished game's result: the contract's ``<Game>Result``."""

    contract_definition = "Result"


BOT_SEAT_PATTERN = r"^[0-9]{1,3}$"


class CreateGameRequest(StrictSchema):
    """What the route parses. The OpenAPI document shows it per game instead (``<Game>CreateGameRequest``,
    api/contract.py): the game's name as a constant and its own ``ConfigRequest``."""

    game = fields.String(required=True, validate=validate.Length(1, 64), metadata={"example": "condottiere"})
    config = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": "Engine configuration (see the game's protocol document)"},
    )
    bots = fields.Dict(
        keys=fields.String(validate=validate.Regexp(BOT_SEAT_PATTERN)),
        values=fields.String(validate=validate.Length(1, 32), metadata={"examples": all_levels()}),
        load_default=dict,
        metadata={"description": 'Seats given to bots at creation: {"<seat>": "<level>"}'},
    )
    # A callable default is not written into the document: a `default` there makes TypeScript
    # generators (openapi-typescript) type the field as required.
    clock = fields.Nested(
        TimeControlSchema,
        allow_none=True,
        load_default=lambda: None,
        metadata={"description": "A time control (default: none, untimed)"},
    )


class ClaimSeatRequest(StrictSchema):
    """A name, or a bot level, or neither with an account token in Authorization (scope `play`: the
    account's handle is then the name, so `{}` or `{"seat": 1}` is a whole claim). Without any of
    the three: 422 `NAME_REQUIRED`. The route checks it: a schema sees no headers, so the document
    requires no member."""

    name = DisplayName(
        max_length=40,
        metadata={
            "description": "Display name (public): normalised to Unicode NFC; refused when it has no visible "
            "character or carries bidirectional controls"
        },
    )
    seat = BodyInteger(
        validate=validate.Range(0, 999), metadata={"description": "A given seat, else the lowest free one"}
    )
    bot = fields.String(
        validate=validate.Length(1, 32),
        metadata={
            "description": "Give the seat to a bot of this level (levels depend on the game)",
            "examples": all_levels(),
        },
    )


# Versions are event counts; anything past this is no version at all (and past 2**64 Redis refuses
# it as a stream ID: a 500 found by schemathesis). 2**53 - 1 is also the largest exact JSON integer.
MAX_VERSION = 2**53 - 1


class MoveRequest(StrictSchema):
    command = GameCommand(required=True, keys=fields.String(), metadata={"description": "The engine command"})
    expected_version = BodyInteger(
        validate=validate.Range(0, MAX_VERSION),
        metadata={"description": "Apply only at this version (409 otherwise)"},
    )


class EventsQuery(StrictSchema):
    class Meta:
        unknown = ma.EXCLUDE

    after = fields.Integer(
        load_default=0,
        validate=validate.Range(0, MAX_VERSION),
        metadata={"description": "Versions after this one"},
    )
    limit = fields.Integer(load_default=100, validate=validate.Range(1, 500))


class StreamQuery(StrictSchema):
    class Meta:
        unknown = ma.EXCLUDE

    after = fields.Integer(
        validate=validate.Range(0, MAX_VERSION),
        metadata={"description": "Resume after this version (or Last-Event-ID)"},
    )
    ticket = fields.String(
        validate=validate.Length(1, 256),
        metadata={
            "description": "A stream ticket (POST .../stream-tickets): follow as its seat without an "
            "Authorization header. Single-use, valid for 30 seconds, for this game only."
        },
    )


class EventStreamQuery(StreamQuery):
    rematch = fields.Boolean(
        load_default=False,
        metadata={
            "description": "Once the game is over, keep the stream open after `event: end` and "
            "announce the rematch offer: an `event: rematch` (`RematchOffer`) now and at every change "
            "(an acceptance), the last one naming the new game, then the stream ends"
        },
    )


LAST_EVENT_ID_PATTERN = r"^ *[0-9]{0,18} *$"


class StreamTicketSchema(ma.Schema):
    ticket = fields.String(
        required=True, metadata={"description": "Pass as ?ticket= to the stream; single-use"}
    )
    seat = fields.Integer(required=True, metadata={"description": "The seat the stream will follow as"})
    expires_in = fields.Integer(required=True, metadata={"description": "Seconds the ticket stays valid"})
    stream = fields.String(required=True, metadata={"description": "The stream URL with the ticket"})


class ListGamesQuery(StrictSchema):
    class Meta:
        unknown = ma.EXCLUDE

    status = fields.String(validate=validate.OneOf(STATUSES))
    game = fields.String(validate=validate.Length(1, 64))
    cursor = fields.String(
        validate=validate.Regexp(r"^[0-9a-hjkmnp-tv-z]{20}$"),
        metadata={"description": "Opaque: next_cursor of the previous page"},
    )
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100))


class SeatSchema(ma.Schema):
    seat = fields.Integer(required=True)
    claimed = fields.Boolean(required=True)
    name = fields.String(allow_none=True)
    kind = fields.String(allow_none=True, metadata={"description": "human or bot"})
    bot = fields.String(allow_none=True)


class CommitmentSchema(ma.Schema):
    """The server's commitment to a game's seed (docs/fairness.md), published at creation."""

    scheme = fields.String(required=True, validate=validate.OneOf(["sha256-v1"]))
    digest = fields.String(
        required=True,
        validate=validate.Regexp(r"^[0-9a-f]{64}$"),
        metadata={"description": "SHA-256 of the domain tag, the seed and the game id (hex)"},
    )
    prearranged = fields.Boolean(
        required=True,
        metadata={"description": "Part of the hashed tag: the creator gave the seed or a deck order"},
    )


class GameSummarySchema(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    title = fields.String()
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    version = fields.Integer(required=True)
    seat_count = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    config = GameConfig(metadata={"description": "The public configuration (no seed while the game runs)"})
    prearranged = fields.Boolean(required=True, metadata={"description": PREARRANGED})
    commitment = fields.Nested(
        CommitmentSchema,
        allow_none=True,
        metadata={
            "description": "The commitment to the seed (null for imported games); the log's first event "
            "repeats it, and the seed in that event's config, public once the game is over, opens it"
        },
    )
    awaiting = fields.List(fields.Integer())
    result = GameResult(allow_none=True, metadata={"description": "null until the game is over"})
    created = fields.String(allow_none=True)
    updated = fields.String(allow_none=True)
    started = fields.String(allow_none=True)
    finished = fields.String(allow_none=True)
    predict_win = fields.List(
        fields.Float(),
        metadata={
            "description": "Open and running games whose every seat is rated (an account or a server bot): "
            "each seat's chance to win from the current ratings, summing to 1"
        },
    )
    clock = fields.Nested(ClockSchema, allow_none=True, metadata={"description": "Timed games only"})


class GameListSchema(ma.Schema):
    games = fields.List(fields.Nested(GameSummarySchema), required=True)
    next_cursor = fields.String(allow_none=True)


class ClaimSeatResponse(ma.Schema):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True)
    bot = fields.String(allow_none=True)
    token = fields.String(
        allow_none=True, metadata={"description": "The seat's secret token, shown only here (null for bots)"}
    )
    started = fields.Boolean(required=True)
    version = fields.Integer(required=True)


# Not "View": a generated model named View with a field `view` shadows it (openapi-python-client's
# from_dict binds the instance to the model's snake-case name: mypy --strict refuses it).
class ViewResponse(ma.Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    seat = fields.Integer(allow_none=True)
    prearranged = fields.Boolean(required=True, metadata={"description": PREARRANGED})
    view = GameView(
        allow_none=True, metadata={"description": "The engine's view (null before the game starts)"}
    )
    clock = fields.Nested(ClockSchema, allow_none=True, metadata={"description": "Timed games only"})


class VersionedEventSchema(ma.Schema):
    version = fields.Integer(required=True)
    event = GameEvent(required=True)


class MoveResponse(ma.Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    events = fields.List(
        fields.Nested(VersionedEventSchema),
        metadata={
            "description": "The events the move caused, redacted for the seat; "
            "absent with Prefer: return=minimal"
        },
    )
    view = fields.Nested(
        ViewResponse, metadata={"description": "The seat's new view; absent with Prefer: return=minimal"}
    )


class EventsPageSchema(ma.Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    seat = fields.Integer(allow_none=True, metadata={"description": "The viewer's seat (null: spectator)"})
    events = fields.List(fields.Nested(VersionedEventSchema), required=True)
    next_after = fields.Integer(allow_none=True)
    has_more = fields.Boolean(required=True)


class StreamEndSchema(ma.Schema):
    """``event: end`` of both streams: the game is over at this version."""

    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    version = fields.Integer(required=True)


class ViewStreamEndSchema(ma.Schema):
    """``event: end`` of the view stream (``data: {}``): the last view sent was the final one."""


class HealthSchema(ma.Schema):
    status = fields.String(required=True)
    redis = fields.String()


class DeviceLinkSchema(ma.Schema):
    code = fields.String(
        required=True,
        metadata={"description": "The one-time code; the page /continue/{id}#<code> redeems it"},
    )
    seat = fields.Integer(required=True, metadata={"description": "The seat the link hands over"})
    expires_in = fields.Integer(required=True, metadata={"description": "Seconds the link stays valid"})
    page = fields.String(
        required=True,
        metadata={"description": "The browser page that redeems it, the code in the fragment (never sent)"},
    )


class DeviceLinkRedeemSchema(StrictSchema):
    code = fields.String(required=True, validate=validate.Length(1, 256))


class RotatedTokenResponse(ma.Schema):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    token = fields.String(
        required=True,
        metadata={"description": "The seat's new secret token, shown only here; the old one no longer works"},
    )
    version = fields.Integer(required=True, metadata={"description": "The version that records the rotation"})
