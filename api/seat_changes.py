"""A game's seat changes around its life: leaving a seat before the start, and the rematch offer
of a finished game (``service.rematch``). Routes on the games blueprint (``api.games``)."""

from __future__ import annotations

from typing import Any

from flask import Response, url_for
from flask.views import MethodView

from api.common import bearer_token, json_response, service
from api.games import SEAT_AUTH, blp
from schemas.seat_changes import RematchAcceptedSchema, RematchOfferSchema
from service import rematch


@blp.route("/<string:game_id>/seats/<int:seat>")
class Seat(MethodView):
    @blp.response(204)
    @blp.problems(401, 403, 404, 409, 429)
    @blp.doc(security=SEAT_AUTH)
    def delete(self, game_id: str, seat: int) -> Response:
        """Leave your seat before the game starts: the seat is free again (anyone may claim it) and
        its token stops working. The seat's token, or the account token (scope `play`) of the
        account bound to it. 409 `GAME_STARTED` once the game has started (resign or abort
        instead); 403 `NOT_YOUR_SEAT` for another seat."""
        rematch.leave_seat(service(), game_id, seat, bearer_token(required=True))
        return Response(status=204, headers={"Cache-Control": "no-store"})


@blp.route("/<string:game_id>/rematch")
class Rematch(MethodView):
    @blp.response(200, RematchOfferSchema)
    @blp.problems(404, 429)
    def get(self, game_id: str) -> Response:
        """Who accepted the rematch of a finished game, and the new game once every seat did."""
        return json_response(rematch.rematch_state(service(), game_id), 200, {"Cache-Control": "no-cache"})

    @blp.response(200, RematchAcceptedSchema, description="Accepted; the answer says who is awaited")
    @blp.alt_response(
        201,
        schema=RematchAcceptedSchema,
        description="The rematch exists: its id, your seat in it and that seat's token",
        headers={"Location": {"schema": {"type": "string"}, "description": "The new game's URL"}},
    )
    @blp.problems(401, 403, 404, 409, 429, 503)
    @blp.doc(security=SEAT_AUTH)
    def post(self, game_id: str) -> Response:
        """Offer, or accept, a rematch of a finished game (your seat token, or your account token,
        scope `play`). Bot seats accept at once. Each acceptance is answered with your seat in the
        rematch and that seat's token. When every seat has accepted, the new game starts: the same
        game, configuration and clock with a fresh seed, every seat moved one place on (seat s
        plays seat s+1 mod n), bots at their level, each person's seat under the same name and
        account, holding the token issued at its acceptance; the completing call answers 201 with
        the rematch (as does accepting again, with a new token: the earlier one stops working).
        409 `GAME_NOT_OVER` while the game runs."""
        answer: dict[str, Any] = rematch.offer_rematch(service(), game_id, bearer_token(required=True))
        if answer["rematch"] is None:
            return json_response(answer, 200, {"Cache-Control": "no-store"})
        location = url_for("games.Game", game_id=answer["rematch"])
        return json_response(answer, 201, {"Cache-Control": "no-store", "Location": location})
