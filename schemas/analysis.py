"""The computer analysis of a finished game (``GET /v1/games/{id}/analysis``)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields


class AnalysedDecisionSchema(ma.Schema):
    version = fields.Integer(required=True, metadata={"description": "Events before the decision"})
    seat = fields.Integer(required=True)
    before = fields.Float(required=True, metadata={"description": "The decider's chance to win before it"})
    best_move = fields.Dict(required=True, metadata={"description": "The best move the search found"})
    best_text = fields.String(required=True, metadata={"description": "The best move in the game's words"})
    best = fields.Float(required=True, metadata={"description": "The decider's chance after the best move"})
    played = fields.Dict(required=True)
    played_text = fields.String(
        required=True, metadata={"description": "The move played in the game's words"}
    )
    after = fields.Float(
        required=True, metadata={"description": "The decider's chance after the move played"}
    )
    loss = fields.Float(required=True)
    judgement = fields.String(
        required=True, allow_none=True, metadata={"enum": ["inaccuracy", "mistake", "blunder", None]}
    )
    chances = fields.List(
        fields.Float(),
        required=True,
        metadata={"description": "Every seat's chance before the decision, every card known (the graph)"},
    )


class AnalysedSeatSchema(ma.Schema):
    seat = fields.Integer(required=True)
    accuracy = fields.Float(required=True, allow_none=True)
    decisions = fields.Integer(required=True)
    inaccuracy = fields.Integer(required=True)
    mistake = fields.Integer(required=True)
    blunder = fields.Integer(required=True)
    decisions_moved = fields.Float(required=True, metadata={"description": "Chance moved by decisions"})
    luck = fields.Float(required=True, metadata={"description": "Chance moved by draws and dice"})
    result = fields.Float(required=True)


class AnalysisSchema(ma.Schema):
    game_id = fields.String(required=True)
    game = fields.String(required=True)
    stored_bytes = fields.Integer(required=True)
    analysis_version = fields.Integer(required=True)
    thresholds = fields.Dict(keys=fields.String(), values=fields.Float(), required=True)
    decisions = fields.List(fields.Nested(AnalysedDecisionSchema), required=True)
    seats = fields.List(fields.Nested(AnalysedSeatSchema), required=True)


class MistakeSchema(ma.Schema):
    game_id = fields.String(required=True)
    game = fields.String(required=True)
    seat = fields.Integer(required=True)
    event = fields.Integer(
        required=True,
        metadata={"description": "The event the move made (1-based, as the replay numbers them)"},
    )
    url = fields.String(required=True, metadata={"description": "The replay at that event"})
    judgement = fields.String(required=True, metadata={"enum": ["inaccuracy", "mistake", "blunder"]})
    loss = fields.Float(required=True, metadata={"description": "The drop in the seat's chance to win"})
    before = fields.Float(required=True)
    after = fields.Float(required=True)
    played_text = fields.String(required=True)
    best_text = fields.String(required=True)


class MistakesSchema(ma.Schema):
    mistakes = fields.List(
        fields.Nested(MistakeSchema), required=True, metadata={"description": "Biggest loss first"}
    )
    games_analysed = fields.Integer(
        required=True, metadata={"description": "Recent finished games of the account with a stored analysis"}
    )
    games_looked_at = fields.Integer(required=True)


class MistakesQuery(ma.Schema):
    games = fields.Integer(load_default=20, validate=ma.validate.Range(min=1, max=50))
    limit = fields.Integer(load_default=10, validate=ma.validate.Range(min=1, max=50))
