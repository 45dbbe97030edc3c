"""Ratings: leaderboards per game, a player's rating and history, head-to-head. Read
from the rating keys the archive's entry script keeps (``service.ratings``): no job, a few reads."""

from __future__ import annotations

from typing import Any, cast

import marshmallow as ma
from flask import current_app
from flask.views import MethodView

from api.common import Blueprint
from api.problems import ProblemError
from games import game_names
from schemas.ratings import (
    GameRatingsQuery,
    GameRatingsSchema,
    HeadToHeadSchema,
    LeaderboardSchema,
    RatingHistorySchema,
    RatingQuery,
)
from service.ratings import RatingService

blp = Blueprint("ratings", __name__, url_prefix="/v1", description="Ratings, leaderboards, head-to-head")


def ratings() -> RatingService:
    return cast(RatingService, current_app.extensions["rating_service"])


def _game(name: str) -> str:
    if name not in game_names():
        raise ProblemError(422, "UNKNOWN_GAME", "No such game engine", f"Games: {', '.join(game_names())}.")
    return name


def _not_found(player: str) -> ProblemError:
    return ProblemError(404, "PLAYER_NOT_FOUND", "No such player", f"No account or bot {player!r}.")


@blp.route("/ratings/<string:game>")
class Leaderboard(MethodView):
    @blp.arguments(RatingQuery, location="query", unknown=ma.RAISE)
    @blp.response(200, LeaderboardSchema)
    @blp.problems(422, 429)
    def get(self, query: dict[str, Any], game: str) -> dict[str, Any]:
        """The top players of a game by ordinal (mu - 3 sigma), with their games played."""
        return ratings().leaderboard(_game(game), query["limit"])


@blp.route("/ratings/<string:game>/players/<string:player>")
class PlayerRating(MethodView):
    @blp.arguments(RatingQuery, location="query", unknown=ma.RAISE)
    @blp.response(200, RatingHistorySchema)
    @blp.problems(404, 422, 429)
    def get(self, query: dict[str, Any], game: str, player: str) -> dict[str, Any]:
        """A player's rating (an account's handle, or `bot:<level>`) and its history, newest first:
        each rated game's rating before and after and the seats it was rated against."""
        found = ratings().history(_game(game), player, query["limit"])
        if found is None:
            raise _not_found(player)
        return found


@blp.route("/h2h/<string:first>/<string:second>")
class HeadToHead(MethodView):
    @blp.response(200, HeadToHeadSchema)
    @blp.problems(404, 429)
    def get(self, first: str, second: str) -> dict[str, Any]:
        """Two players' rated games together, per game: how often each finished ahead."""
        found = ratings().head_to_head(game_names(), first, second)
        if found is None:
            raise _not_found(second if ratings().rater_of(first) else first)
        return found


@blp.route("/games/<string:game_id>/ratings")
class GameRatings(MethodView):
    @blp.arguments(GameRatingsQuery, location="query", unknown=ma.RAISE)
    @blp.response(200, GameRatingsSchema)
    @blp.problems(404, 422, 429)
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Each seat's player and rating (a finished rated game: before and after it) and, until the
        game is over, each seat's chance to win when every seat is rated; `joining` counts that
        account in the first free seat (what a player about to join would face)."""
        found = ratings().table(game_id, query.get("joining"))
        if found is None:
            raise ProblemError(404, "GAME_NOT_FOUND", "No such game", f"No game {game_id!r}.")
        return found
