"""Responses of leaving a seat before the start and of the rematch offer."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields


class RematchOfferSchema(ma.Schema):
    game_id = fields.String(required=True, metadata={"description": "The finished game"})
    accepted = fields.List(
        fields.Integer(), required=True, metadata={"description": "Seats that accepted (bots at once)"}
    )
    waiting_for = fields.List(
        fields.Integer(), required=True, metadata={"description": "Seats yet to accept"}
    )
    rematch = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The new game's id once every seat accepted, else null"},
    )


class RematchAcceptedSchema(RematchOfferSchema):
    seat = fields.Integer(metadata={"description": "Your seat in the rematch (your old seat + 1, mod seats)"})
    token = fields.String(
        allow_none=True,
        metadata={
            "description": "Your seat's token in the rematch, shown only here: issued with your "
            "acceptance, valid once the rematch starts (accepting again before then issues another "
            "and drops this one; after it, a rotation: the earlier one stops working)"
        },
    )
