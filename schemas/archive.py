"""Archive, replay and export requests and responses (the archive blueprint's), and the exchange
document a log import takes (``replays.export`` validates its events)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import marshmallow as ma
from marshmallow import ValidationError, fields, validate

from schemas.common import BodyBoolean, BodyInteger, StrictSchema
from schemas.games import GameCommand, GameConfig, GameEvent, GameResult, GameView

# A date, or a date-time with optional seconds, fraction and offset (UTC when it has none): what the
# document's "date" and "date-time" formats allow, and the same without seconds or offset.
_DATE_OR_TIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$"
)


class DateOrTime(fields.String):
    """An ISO date (a whole day) or date-time, refused here (422) unless it is one: an empty
    ``finished_from=`` is no date."""

    def __init__(self, **kwargs: Any):
        metadata = {"anyOf": [{"format": "date"}, {"format": "date-time"}], **kwargs.pop("metadata", {})}
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        if not _DATE_OR_TIME.match(text):
            raise ValidationError("Not an ISO date or date-time.")
        try:
            datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
        except ValueError:
            raise ValidationError("Not an ISO date or date-time.") from None
        return text


# The exchange format's name and version (``replays.export.FORMAT``/``FORMAT_VERSION``), as examples.
EXCHANGE_FORMAT_EXAMPLE = "game-log"
EXCHANGE_FORMAT_VERSION_EXAMPLE = 1


class FilterQuery(StrictSchema):
    """The filters of the archive and the statistics: one grammar (docs/statistics.md, "Filters";
    service/filters.py checks what a schema cannot: a backwards range, a rating band, a name no
    route takes)."""

    player = fields.List(
        fields.String(validate=validate.Length(1, 64)),
        metadata={
            "description": "Player name (case-insensitive); repeat for games with all of them. A name"
            " that is an account's handle finds that account's seats only, not other seats that"
            " took the same name"
        },
    )
    account = fields.String(
        validate=validate.Length(1, 200),
        metadata={"description": "An account's handle (case-insensitive): the games its seats played"},
    )
    ruleset = fields.String(validate=validate.Length(1, 32), metadata={"example": "2006"})
    option = fields.List(
        fields.String(validate=validate.Length(1, 64)),
        metadata={"description": "An option that was on (repeatable), e.g. capturing"},
    )
    players = fields.Integer(validate=validate.Range(1, 99), metadata={"description": "Number of players"})
    winner = fields.String(validate=validate.Length(1, 64), metadata={"description": "A winner's name"})
    outcome = fields.String(
        validate=validate.Length(1, 64),
        metadata={
            "description": "How the game was won, e.g. adjacent, total, most_regions, final_battle, no_winner"
        },
    )
    finished_from = DateOrTime(
        metadata={"description": "ISO date or date-time (inclusive)", "example": "2026-11-01"}
    )
    finished_to = DateOrTime(
        metadata={"description": "ISO date or date-time (inclusive; a date means its whole day)"}
    )
    prearranged = fields.Boolean(
        metadata={
            "description": "false: only games whose shuffles nobody fixed (no seed or deck order given)"
        }
    )
    rating_min = fields.Float(
        metadata={"description": "Every seat rated when the game started, at or above this rating (ordinal)"}
    )
    rating_max = fields.Float(
        metadata={"description": "Every seat rated when the game started, at or below this rating (ordinal)"}
    )
    table = fields.String(
        validate=validate.OneOf(["humans", "bots", "mixed"]),
        metadata={"description": "humans: no server bot; bots: server bots only; mixed: both"},
    )


class ArchiveQuery(FilterQuery):
    game = fields.String(validate=validate.Length(1, 64), metadata={"example": "condottiere"})
    cursor = fields.String(validate=validate.Length(1, 200))
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100))


class ArchiveEntrySchema(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    ruleset = fields.String(allow_none=True)
    player_count = fields.Integer(required=True)
    players = fields.List(fields.String(allow_none=True), required=True)
    options = fields.List(fields.String(), required=True)
    winners = fields.List(fields.Integer(), required=True)
    winner_names = fields.List(fields.String(), required=True)
    outcome = fields.String(allow_none=True)
    version = fields.Integer(required=True)
    finished = fields.String(required=True)
    imported = fields.Boolean(required=True)
    prearranged = fields.Boolean(
        metadata={"description": "The creator fixed the shuffles (gave a seed or a deck order)"}
    )


class ArchivePageSchema(ma.Schema):
    games = fields.List(fields.Nested(ArchiveEntrySchema), required=True)
    next_cursor = fields.String(allow_none=True)


class ExchangeDocumentSchema(ma.Schema):
    """The export/import format; the engine validates the events."""

    class Meta:
        unknown = ma.INCLUDE  # annotated exports (annotations, chapters...) may be imported as they are

    format = fields.String(required=True, metadata={"example": EXCHANGE_FORMAT_EXAMPLE})
    format_version = fields.Integer(required=True, metadata={"example": EXCHANGE_FORMAT_VERSION_EXAMPLE})
    game = fields.String(required=True, metadata={"example": "condottiere"})
    config = GameConfig(metadata={"description": "The configuration (must agree with the first event's)"})
    rules_revision = fields.Integer(
        metadata={
            "description": "The rules revision the log was recorded under (its first event's configuration"
            " names it; 1 when it names none): the log is replayed and verified under it. Optional on"
            " import; when given it must be the log's",
            "example": 2,
        }
    )
    players = fields.List(
        fields.String(allow_none=True), metadata={"description": "Seat names, seat 0 first"}
    )
    events = fields.List(GameEvent(), required=True, metadata={"description": "The complete log, unredacted"})
    result = GameResult(
        allow_none=True, metadata={"description": "Optional: checked against the replayed result"}
    )


class ImportedSchema(ma.Schema):
    id = fields.String(required=True)
    game = fields.Nested(ArchiveEntrySchema, required=True)


class ReplayQuery(StrictSchema):
    version = fields.Integer(
        validate=validate.Range(0, 10_000_000), metadata={"description": "Events applied (default: the last)"}
    )
    as_seat = fields.Integer(
        data_key="as",
        validate=validate.Range(0, 99),
        metadata={
            "description": "Finished games only: the view this seat had at that version, redacted as it "
            "was live (its hand, its legal moves, nobody else's cards); 409 GAME_NOT_FINISHED while "
            "the game runs"
        },
    )


class ReplaySchema(ma.Schema):
    game_id = fields.String(required=True)
    prearranged = fields.Boolean(
        metadata={"description": "The creator fixed the shuffles (gave a seed or a deck order)"}
    )
    version = fields.Integer(required=True)
    last_version = fields.Integer(required=True)
    finished = fields.Boolean(required=True)
    viewer = fields.String(required=True, metadata={"description": "full, spectator or 'seat <n>'"})
    state = GameView(
        required=True,
        allow_none=True,
        metadata={"description": "The game's view at that version (null at version 0)"},
    )


class ChapterSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    index = fields.Integer(required=True)
    title = fields.String(required=True)
    start = fields.Integer(required=True, metadata={"description": "Version just before the chapter"})
    end = fields.Integer(required=True, metadata={"description": "Version just after its conclusion"})
    replay = fields.String(metadata={"description": "URL of the state at the chapter's end"})


# Not "Chapters": a generated model named Chapters with a field `chapters` shadows it
# (openapi-python-client; mypy --strict refuses it).
class ChapterIndexSchema(ma.Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    finished = fields.Boolean(required=True)
    chapters = fields.List(fields.Nested(ChapterSchema), required=True)


class ExportRequest(StrictSchema):
    # Callable defaults stay out of the document (a `default` makes openapi-typescript require it).
    format = fields.String(
        load_default=lambda: "json",
        validate=validate.OneOf(["log", "json", "markdown", "html"]),
        metadata={
            "description": "log: the importable exchange document; json: annotated history; markdown; "
            "html: one self-contained page (default json)"
        },
    )


class ArchiveFilterBody(StrictSchema):
    """The archive's filters in a request body, as the search takes them in its query: the exports
    that cover many games take these."""

    player = fields.List(fields.String(validate=validate.Length(1, 64)))
    game = fields.String(validate=validate.Length(1, 64))
    ruleset = fields.String(validate=validate.Length(1, 32))
    option = fields.List(fields.String(validate=validate.Length(1, 64)))
    players = BodyInteger(validate=validate.Range(1, 99))
    winner = fields.String(validate=validate.Length(1, 64))
    outcome = fields.String(validate=validate.Length(1, 64))
    prearranged = BodyBoolean()
    finished_from = DateOrTime()
    finished_to = DateOrTime()


class BulkExportRequest(ArchiveFilterBody):
    format = fields.String(
        load_default=lambda: "ndjson",
        validate=validate.OneOf(["ndjson"]),
        metadata={"description": "ndjson (the default): one importable log per line"},
    )


class ObservationExportRequest(ArchiveFilterBody):
    """The archive's filters (as the search and the bulk export take them) and how many games."""

    format = fields.String(
        load_default=lambda: "ndjson.gz",  # callable: see ExportRequest.format
        validate=validate.OneOf(["ndjson.gz"]),
        metadata={"description": "Gzipped NDJSON (the default): one Observation per line"},
    )
    limit = BodyInteger(
        load_default=lambda: 100,  # callable: see ExportRequest.format
        validate=validate.Range(1, 1000),
        metadata={"description": "At most this many games, newest first (default 100)"},
    )


class ObservationSchema(ma.Schema):
    """One decision of a finished game (one line of an observation export): what the seat saw and
    what it chose. ``version`` events came before it; the move's events follow in the log."""

    game_id = fields.String(required=True)
    game = fields.String(required=True, metadata={"example": "condottiere"})
    version = fields.Integer(required=True, metadata={"description": "Events before the decision"})
    seat = fields.Integer(required=True, metadata={"description": "The seat that decided"})
    view = GameView(required=True, metadata={"description": "The seat's view, exactly as it was served live"})
    legal_moves = fields.List(
        GameCommand(), required=True, metadata={"description": "Every move it could send"}
    )
    move = GameCommand(required=True, metadata={"description": "The move it chose (one of legal_moves)"})
    result = GameResult(required=True, metadata={"description": "The game's final result"})
    analysis = fields.Dict(
        allow_none=True,
        metadata={
            "description": "Training labels from the game's stored computer analysis (docs/analysis.md): "
            "the decider's chance to win before (`before`), after the best move (`best`) and after the "
            "move played (`after`), `loss`, `judgement`, `best_move`, every seat's `chances`; null "
            "for a decision it did not judge"
        },
    )
