"""The bot ladder's standings (``service.ladder``): bot accounts and the server's levels on one
rating scale."""

from __future__ import annotations

from typing import Any, cast

from flask import current_app
from flask.views import MethodView

from api.common import Blueprint
from api.problems import ProblemError
from schemas.ladder import LadderSchema
from service.ladder import LadderService

blp = Blueprint("ladder", __name__, url_prefix="/v1", description="The bot ladder")


def ladder() -> LadderService:
    return cast(LadderService, current_app.extensions["ladder_service"])


@blp.route("/ladder/<string:game>")
class Ladder(MethodView):
    @blp.response(200, LadderSchema)
    @blp.problems(404, 429)
    def get(self, game: str) -> dict[str, Any]:
        """The bot ladder of a game: the bot accounts online (an open /v1/me/stream) that are in
        no ladder game are paired on the server's tick, closest ratings together, into rated games
        whose other seats are the server's levels; the standings list every bot account that
        played it and the levels, on the game's rating scale (GET /v1/ratings/{game}), best
        ordinal first, with their ladder games and wins; `playing`: the ladder's games not yet
        tallied. 404 `LADDER_NOT_FOUND`: no ladder for that game."""
        found = ladder().standings(game)
        if found is None:
            raise ProblemError(
                404, "LADDER_NOT_FOUND", "No ladder for this game", f"No bot ladder for {game!r}."
            )
        return found
