"""Challenge routes: make, read, accept, decline, cancel; the account's pending challenges and
the open ones. Thin: HTTP <-> :class:`service.challenges.ChallengeService`."""

from __future__ import annotations

from typing import Any, cast

from flask import Response, current_app, request, url_for
from flask.views import MethodView

from api.accounts import ACCOUNT_AUTH, NO_STORE, identity
from api.common import Blueprint, json_response, parse_bearer
from schemas.challenges import (
    AcceptChallengeRequest,
    AcceptChallengeResponse,
    ChallengeListSchema,
    ChallengeSchema,
    CreateChallengeRequest,
    DeclineChallengeRequest,
    OpenChallengeListSchema,
)
from service.account_tokens import Identity
from service.challenges import ChallengeService
from service.identity import is_account_token

blp = Blueprint(
    "challenges", __name__, url_prefix="/v1/challenges", description="Challenges: invite accounts to a game"
)


def challenges() -> ChallengeService:
    """The app's challenge service (built by the composition root, ``service.composition``)."""
    return cast(ChallengeService, current_app.extensions["challenge_service"])


def optional_identity() -> Identity | None:
    header = request.headers.get("Authorization")
    token = parse_bearer(header) if header is not None else None
    if token is None or not is_account_token(token):
        return None
    return identity()


@blp.route("")
class Challenges(MethodView):
    @blp.arguments(CreateChallengeRequest())
    @blp.response(201, ChallengeSchema)
    @blp.problems(400, 401, 403, 413, 415, 422, 429)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, body: dict[str, Any]) -> Response:
        """Challenge accounts to a game (scope `play`). Every party is told on GET /v1/me/stream
        (`event: challenge`) and by webhook. The answer that leaves no seat pending starts the game,
        whose id is the challenge's."""
        made = challenges().create(identity(), body)
        return json_response(
            made, 201, {"Location": url_for("challenges.Challenge", challenge_id=made["id"])}
        )

    @blp.response(200, ChallengeListSchema)
    @blp.problems(401, 403)
    @blp.doc(security=ACCOUNT_AUTH)
    def get(self) -> Response:
        """The pending challenges the account made (`outgoing`) and those it may answer (`incoming`)."""
        return json_response(challenges().mine(identity()), 200, NO_STORE)


@blp.route("/open")
class OpenChallenges(MethodView):
    @blp.response(200, OpenChallengeListSchema)
    def get(self) -> Response:
        """Pending challenges with an open seat anyone may take (newest first)."""
        return json_response({"challenges": challenges().open_challenges()})


@blp.route("/<string:challenge_id>")
class Challenge(MethodView):
    @blp.response(200, ChallengeSchema)
    @blp.problems(404)
    def get(self, challenge_id: str) -> Response:
        """A challenge (its link is what an open challenge is shared by)."""
        return json_response(challenges().get(challenge_id))


@blp.route("/<string:challenge_id>/accept")
class Accept(MethodView):
    @blp.arguments(AcceptChallengeRequest())
    @blp.response(200, AcceptChallengeResponse)
    @blp.problems(400, 401, 403, 404, 409, 413, 415, 422, 429)
    @blp.doc(security=[])
    def post(self, body: dict[str, Any], challenge_id: str) -> Response:
        """Accept (an invited account, scope `play`) or take an open seat (any account; without a
        token only when the challenge allows anonymous takers, who then get the seat's token once).
        The last answer creates the game with every seat bound and starts it, in one step."""
        answer = challenges().accept(challenge_id, optional_identity(), body.get("seat"), body.get("name"))
        return json_response(answer, 200, NO_STORE)


@blp.route("/<string:challenge_id>/decline")
class Decline(MethodView):
    @blp.arguments(DeclineChallengeRequest())
    @blp.response(200, ChallengeSchema)
    @blp.problems(400, 401, 403, 404, 409, 413, 415, 422, 429)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, body: dict[str, Any], challenge_id: str) -> Response:
        """Decline an invitation with a reason code (Lichess's); every party is told
        (`challenge_declined`)."""
        return json_response(challenges().decline(challenge_id, identity(), body["reason"]))


@blp.route("/<string:challenge_id>/cancel")
class Cancel(MethodView):
    @blp.response(200, ChallengeSchema)
    @blp.problems(401, 403, 404, 409, 429)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, challenge_id: str) -> Response:
        """The challenger withdraws its challenge; every party is told (`challenge_canceled`)."""
        return json_response(challenges().cancel(challenge_id, identity()))
