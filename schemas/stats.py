"""Statistics responses (one finished game, one player, a game's whole archive) and their query."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from schemas.common import StrictSchema


class StatsQuery(StrictSchema):
    game = fields.String(load_default="condottiere", validate=validate.Length(1, 64))


class GameStatsSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    seats = fields.Integer(required=True)
    first_seat = fields.Integer(allow_none=True)
    winners = fields.List(fields.Integer(), required=True)
    outcome = fields.String(required=True)
    chapters = fields.Integer(required=True, metadata={"description": "Battles fought"})
    events = fields.Integer(required=True)
    seat_counters = fields.List(
        fields.Dict(), metadata={"description": "Per seat: regions_taken, cards_played..."}
    )
    seat_totals = fields.List(
        fields.Dict(), metadata={"description": "Per seat: battles, battles_won, regions_taken..."}
    )
    counters = fields.Dict()
    detail = fields.Dict(
        metadata={
            "description": "battles (region, strengths, winner, cards), cards (played, battles won/lost)"
        }
    )


class PlayerStatsSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    name = fields.String(required=True)
    game = fields.String(required=True)
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    win_rate = fields.Float(allow_none=True)
    by_seat = fields.Dict(metadata={"description": "seat -> games, wins, win_rate"})
    by_player_count = fields.Dict(metadata={"description": "number of players -> games, wins, win_rate"})
    totals = fields.Dict()
    counters = fields.Dict(metadata={"description": "regions_taken, cards_played"})
    favourites = fields.Dict(metadata={"description": "top 3 of each counter"})


class GlobalStatsSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    game = fields.String(required=True)
    games = fields.Integer(required=True)
    first_seat_advantage = fields.Dict(required=True)
    win_rate_by_seat = fields.Dict(required=True)
    outcomes = fields.Dict(required=True, metadata={"description": "How games are won"})
    length = fields.Dict(
        required=True, metadata={"description": "Distributions of battles and events per game"}
    )
    counters = fields.Dict(
        required=True, metadata={"description": "contested_regions, captured_regions, cards_played..."}
    )
    leaders = fields.List(fields.Dict())
