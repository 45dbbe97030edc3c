"""The computer analysis of a finished game (``GET /v1/games/{id}/analysis``)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields


class AnalysedDecisionSchema(ma.Schema):
    version = fields.Integer(required=True, metadata={"description": "Events before the decision"})
    seat = fields.Integer(required=True)
    before = fields.Float(required=True, metadata={"description": "The decider's chance to win before it"})
    best_move = fields.Dict(required=True, metadata={"description": "The best move the search found"})
    best = fields.Float(required=True, metadata={"description": "The decider's chance after the best move"})
    played = fields.Dict(required=True)
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
