"""Statistics responses (one finished game, one player, a game's whole archive) and their query.
The figures are generic (replays/stats.py aggregates each game's facts); only the counters' names and
keys, and a game's ``detail``, are the game's."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from schemas.archive import FilterQuery
from schemas.common import GameName, StrictSchema


class StatsQuery(StrictSchema):
    game = GameName(load_default="condottiere", metadata={"description": "A game's name"})


class FilteredStatsQuery(FilterQuery):
    """A game and the archive's filters (docs/statistics.md, "Filters")."""

    game = GameName(load_default="condottiere", metadata={"description": "A game's name"})


class ExplorerQuery(FilterQuery):
    situation = fields.String(
        validate=validate.Length(1, 64),
        metadata={"description": "A situation the game declares (omit it to list them)"},
    )
    context = fields.String(
        validate=validate.Length(0, 64),
        metadata={"description": "Only this context of the situation (e.g. battle 1)"},
    )


def filters_echo() -> fields.Dict:
    return fields.Dict(
        keys=fields.String(),
        metadata={"description": "The filters the figures are under (only those given); absent: none"},
    )


def Counts(**kwargs: Any) -> fields.Dict:  # noqa: N802 - a field factory reads like a field class
    """A counter: key -> how many times (a region taken, a card played...)."""
    return fields.Dict(keys=fields.String(), values=fields.Integer(), **kwargs)


def CountersByName(**kwargs: Any) -> fields.Dict:  # noqa: N802
    """Counters by name: name -> key -> count (``regions_taken`` -> ``Milano`` -> 3)."""
    return fields.Dict(keys=fields.String(), values=Counts(), **kwargs)


class WinRecordSchema(ma.Schema):
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    win_rate = fields.Float(required=True, allow_none=True, metadata={"description": "null: no game"})


class RankedCountSchema(ma.Schema):
    key = fields.String(required=True)
    count = fields.Integer(required=True)


class SeatNameSchema(ma.Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True)


class GameStatsSchema(ma.Schema):
    game_id = fields.String(required=True)
    seats = fields.Integer(required=True)
    first_seat = fields.Integer(required=True, allow_none=True)
    winners = fields.List(fields.Integer(), required=True)
    outcome = fields.String(required=True)
    chapters = fields.Integer(required=True, metadata={"description": "Chapters (Condottiere: battles)"})
    events = fields.Integer(required=True)
    players = fields.List(fields.Nested(SeatNameSchema), required=True)
    seat_counters = fields.List(
        CountersByName(), required=True, metadata={"description": "Per seat: regions_taken, cards_played..."}
    )
    seat_totals = fields.List(
        Counts(), required=True, metadata={"description": "Per seat: battles, battles_won, regions_taken..."}
    )
    counters = CountersByName(required=True)
    detail = fields.Dict(
        required=True,
        metadata={
            "description": "The game's own: Condottiere battles (region, strengths, winner, cards) and "
            "cards (played, battles won/lost); Rio de la Plata years"
        },
    )


class PlayerStatsSchema(ma.Schema):
    filters = filters_echo()
    name = fields.String(required=True)
    game = fields.String(required=True)
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    win_rate = fields.Float(required=True, allow_none=True)
    by_seat = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(WinRecordSchema),
        required=True,
        metadata={"description": "seat -> games, wins, win_rate"},
    )
    by_player_count = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(WinRecordSchema),
        required=True,
        metadata={"description": "number of players -> games, wins, win_rate"},
    )
    totals = Counts(required=True)
    counters = CountersByName(required=True, metadata={"description": "regions_taken, cards_played"})
    favourites = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.Nested(RankedCountSchema)),
        required=True,
        metadata={"description": "top 3 of each counter"},
    )


class AccountStatsSchema(PlayerStatsSchema):
    """One account's statistics: its bound seats' games, whatever names they played under."""

    class Meta:
        exclude = ("name",)

    handle = fields.String(required=True, metadata={"description": "The account's handle, as it spells it"})


class FirstSeatAdvantageSchema(ma.Schema):
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    win_rate = fields.Float(required=True, allow_none=True)
    expected_win_rate = fields.Float(required=True, allow_none=True)
    advantage = fields.Float(required=True, allow_none=True)


class HistogramBinSchema(ma.Schema):
    # "from" is a Python keyword: the attribute is from_, its name in the document "from".
    from_ = fields.Integer(required=True, data_key="from")
    to = fields.Integer(required=True)
    count = fields.Integer(required=True)


class DistributionSchema(ma.Schema):
    count = fields.Integer(required=True)
    min = fields.Integer(required=True, allow_none=True)
    max = fields.Integer(required=True, allow_none=True)
    mean = fields.Float(required=True, allow_none=True)
    median = fields.Float(required=True, allow_none=True)
    p90 = fields.Float(required=True, allow_none=True)
    histogram = fields.List(fields.Nested(HistogramBinSchema), required=True)


class LengthsSchema(ma.Schema):
    chapters = fields.Nested(DistributionSchema, required=True)
    events = fields.Nested(DistributionSchema, required=True)


class LeaderSchema(ma.Schema):
    name = fields.String(required=True)
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    win_rate = fields.Float(required=True, allow_none=True)


class GlobalStatsSchema(ma.Schema):
    filters = filters_echo()
    game = fields.String(required=True)
    games = fields.Integer(required=True)
    by_player_count = Counts(required=True, metadata={"description": "number of players -> games"})
    first_seat_advantage = fields.Nested(FirstSeatAdvantageSchema, required=True)
    win_rate_by_seat = fields.Dict(keys=fields.String(), values=fields.Nested(WinRecordSchema), required=True)
    outcomes = Counts(required=True, metadata={"description": "How games are won"})
    length = fields.Nested(
        LengthsSchema,
        required=True,
        metadata={"description": "Distributions of chapters and events per game"},
    )
    counters = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.Nested(RankedCountSchema)),
        required=True,
        metadata={"description": "contested_regions, captured_regions, cards_played..., most first"},
    )
    leaders = fields.List(fields.Nested(LeaderSchema), required=True)


class ExplorerMoveSchema(ma.Schema):
    move = fields.String(required=True, metadata={"description": "The move, as the game names it"})
    count = fields.Integer(required=True, metadata={"description": "How often it was chosen"})
    share = fields.Float(required=True, metadata={"description": "Its share of the context's choices"})
    wins = fields.Integer(required=True, metadata={"description": "Choices whose seat won"})
    win_rate = fields.Float(required=True, allow_none=True)
    mean_placement = fields.Float(
        required=True, allow_none=True, metadata={"description": "1: a winner, 2: any other seat"}
    )
    examples = fields.List(
        fields.String(), required=True, metadata={"description": "Games it was chosen in, newest first"}
    )


class ExplorerContextSchema(ma.Schema):
    context = fields.String(required=True)
    moves = fields.List(fields.Nested(ExplorerMoveSchema), required=True)


class ExplorerSchema(ma.Schema):
    game = fields.String(required=True)
    situations = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata={"description": "Every situation the game declares, and what it is"},
    )
    situation = fields.String(allow_none=True)
    description = fields.String(allow_none=True)
    context = fields.String(allow_none=True)
    filters = fields.Dict(keys=fields.String(), required=True)
    decisions = fields.Integer(required=True, metadata={"description": "Decisions counted"})
    contexts = fields.List(fields.Nested(ExplorerContextSchema), required=True)
