"""Requests and responses of the tournament routes."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from schemas.common import StrictSchema
from schemas.games import TimeControlSchema


class CreateTournamentRequest(StrictSchema):
    game = fields.String(required=True, validate=validate.Length(1, 64), metadata={"example": "condottiere"})
    config = fields.Dict(
        keys=fields.String(), load_default=dict, metadata={"description": "Engine configuration"}
    )
    clock = fields.Nested(TimeControlSchema, allow_none=True, load_default=lambda: None)
    table_size = fields.Integer(
        required=True,
        metadata={"description": "Players per table (mixed with one fewer when the entrants do not divide)"},
    )
    rounds = fields.Integer(load_default=3, validate=validate.Range(1, 30))
    format = fields.String(load_default="swiss", validate=validate.OneOf(["swiss", "elimination"]))
    advance = fields.Integer(load_default=2, validate=validate.Range(1, 5))
    duplicate = fields.Boolean(
        load_default=False,
        metadata={"description": "Every table of a round dealt from the round's one committed seed"},
    )
    late_entry = fields.Boolean(
        load_default=False,
        metadata={"description": "Swiss: accounts may join while it runs, paired from the next round"},
    )
    rated = fields.Boolean(load_default=False)
    bots = fields.Boolean(load_default=True, metadata={"description": "Whether bot accounts may enter"})
    entry = fields.String(load_default="anyone", validate=validate.OneOf(["anyone", "list", "code"]))
    accounts = fields.List(
        fields.String(validate=validate.Length(1, 64)),
        load_default=list,
        validate=validate.Length(0, 1000),
        metadata={"description": "`entry: list`: the accounts invited, by handle (or account id)"},
    )
    capacity = fields.Integer(load_default=0, validate=validate.Range(0, 100_000))
    title = fields.String(load_default="", validate=validate.Length(0, 80))
    starts_at = fields.String(
        allow_none=True,
        load_default=None,
        validate=validate.Length(0, 64),
        metadata={
            "format": "date-time",
            "example": "2026-12-06T16:00:00Z",
            "description": "When the workers start it (ISO 8601 with its offset; null: the organiser "
            "starts it). Too few entrants then: it stays open for the organiser. 422 "
            "INVALID_START_TIME (unparsable, no offset, over a year ahead), START_TIME_PASSED",
        },
    )


class JoinTournamentRequest(StrictSchema):
    code = fields.String(load_default="", validate=validate.Length(0, 64))


class AddBotRequest(StrictSchema):
    level = fields.String(
        required=True, validate=validate.Length(1, 64), metadata={"description": "A bot level of the game"}
    )


class EntrantSchema(ma.Schema):
    account = fields.String(
        required=True, metadata={"description": "An account id, or `bot.<level>.<n>` for a server bot"}
    )
    name = fields.String(required=True)
    withdrawn = fields.Boolean(required=True)
    bot = fields.String(allow_none=True, metadata={"description": "A server bot's level"})


class StandingSchema(ma.Schema):
    rank = fields.Integer(required=True)
    account = fields.String(required=True)
    name = fields.String(allow_none=True)
    score = fields.Float(required=True)
    opponents = fields.Float(required=True)
    round = fields.Integer(
        metadata={"description": "Elimination: the round reached (the standings rank by it, then by `place`)"}
    )
    place = fields.Integer(
        allow_none=True,
        metadata={"description": "Elimination: the place at that round's table (null while it plays)"},
    )


class TournamentTableSchema(ma.Schema):
    players = fields.List(
        fields.String(), required=True, metadata={"description": "Entrant ids in seat order"}
    )
    placing = fields.List(fields.List(fields.String()), metadata={"description": "Tied groups, best first"})
    game = fields.String(
        metadata={"description": "The table's game id (its game exists once the round started)"}
    )


class TournamentRoundSchema(ma.Schema):
    round = fields.Integer(required=True)
    tables = fields.List(fields.Nested(TournamentTableSchema), required=True)


class TournamentSchema(ma.Schema):
    id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["open", "running", "finished"]))
    organiser = fields.String(required=True)
    round = fields.Integer(required=True)
    settings = fields.Dict(required=True)
    entrants = fields.List(fields.Nested(EntrantSchema), required=True)
    rounds = fields.List(fields.Nested(TournamentRoundSchema), required=True)
    standings = fields.List(fields.Nested(StandingSchema), required=True)
    first_seat_starts = fields.Boolean(
        required=True,
        metadata={
            "description": "Whether seat 0 of every table makes its game's first move (the game lets a "
            "configuration say who starts and the organiser's does not): else the game's own rules "
            "decide who starts, and seat 0 is only the seat the pairing balances"
        },
    )
    code = fields.String(metadata={"description": "The join code, shown to the organiser once"})


class TournamentListSchema(ma.Schema):
    tournaments = fields.List(fields.Nested(TournamentSchema), required=True)
