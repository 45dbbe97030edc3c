"""Quick pairing routes: seek a game, keep the seek alive, withdraw it, list the seeks. Thin:
HTTP <-> :class:`service.seeks.SeekService` (the matcher runs in the janitor)."""

from __future__ import annotations

from typing import Any, cast

from flask import Response, current_app, request
from flask.views import MethodView

from api.accounts import ACCOUNT_AUTH, identity
from api.common import Blueprint, bearer_token, json_response
from schemas.seeks import CreateSeekRequest, NewSeekSchema, SeekListSchema, SeekPairingSchema, SeekSchema
from service.account_tokens import Identity
from service.identity import is_account_token
from service.seeks import SeekService

# An account's token, or (anonymous seeks) the seek's own token.
SEEK_AUTH: list[dict[str, list[str]]] = [{"accountToken": []}, {"seatToken": []}]

blp = Blueprint("seeks", __name__, url_prefix="/v1/seeks", description="Quick pairing: seek a game")


def seeks() -> SeekService:
    """The app's seek service (built by the composition root, ``service.composition``)."""
    return cast(SeekService, current_app.extensions["seek_service"])


def _seeker() -> tuple[Identity | None, str | None]:
    """The account of an account token, else (None, the token: an anonymous seek's, or None)."""
    token = bearer_token(required=True)
    return (identity(), None) if is_account_token(token) else (None, token)


@blp.route("")
class Seeks(MethodView):
    @blp.arguments(CreateSeekRequest())
    @blp.response(201, NewSeekSchema)
    @blp.problems(400, 401, 403, 413, 415, 422, 429)
    @blp.doc(security=[*ACCOUNT_AUTH, {}])
    def post(self, body: dict[str, Any]) -> Response:
        """Seek a game ("Play now", scope `play`). The matcher pairs compatible seeks, closest
        ratings first, widening each seek's range while it waits (docs/api.md, "Quick pairing");
        the game starts with every seat bound and each seeker hears `game_started` on
        GET /v1/me/stream. The seek lives while the account has a stream open, or while kept
        alive (POST /v1/seeks/{id}/keep, every 30 s). Without a token (where the server allows
        anonymous seeks, `ANONYMOUS_SEEKS`): a casual seek under `name`, alive while kept alive,
        whose answer carries the `token` of the seat it will be paired into; its game is at
        GET /v1/seeks/{id}/game once paired."""
        if "Authorization" not in request.headers and current_app.config["ANONYMOUS_SEEKS"]:
            return json_response(seeks().seek(None, body), 201)
        return json_response(seeks().seek(identity(), body), 201)

    @blp.response(200, SeekListSchema)
    def get(self) -> Response:
        """The open seeks."""
        return json_response({"seeks": seeks().open_seeks()})


@blp.route("/<string:seek_id>")
class Seek(MethodView):
    @blp.response(200, SeekSchema)
    @blp.problems(404)
    def get(self, seek_id: str) -> Response:
        """A seek, while it waits (404 once paired, withdrawn or dead)."""
        return json_response(seeks().get(seek_id))

    @blp.response(204)
    @blp.problems(401, 403, 404)
    @blp.doc(security=SEEK_AUTH)
    def delete(self, seek_id: str) -> Response:
        """Withdraw one's seek (an account's token, or an anonymous seek's own)."""
        who, token = _seeker()
        seeks().cancel(who, seek_id, token)
        return Response(status=204)


@blp.route("/<string:seek_id>/game")
class SeekGame(MethodView):
    @blp.response(200, SeekPairingSchema)
    @blp.problems(404)
    def get(self, seek_id: str) -> Response:
        """The game a seek was paired into (for an hour after): how an anonymous seeker finds its
        table (404 while it waits, or for an unknown seek)."""
        return json_response(seeks().pairing(seek_id), 200, {"Cache-Control": "no-store"})


@blp.route("/<string:seek_id>/keep")
class Keep(MethodView):
    @blp.response(200, SeekSchema)
    @blp.problems(401, 403, 404)
    @blp.doc(security=SEEK_AUTH)
    def post(self, seek_id: str) -> Response:
        """Keep one's seek alive for 30 s more (not needed while a /v1/me/stream is open; an
        anonymous seek's own token keeps it)."""
        who, token = _seeker()
        return json_response(seeks().keep_alive(who, seek_id, token))
