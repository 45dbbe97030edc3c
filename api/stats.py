"""Statistics: per game, per player across the archive, global. Each is computed by a job on the
data version it depends on (the game's version, the archive's version): a request answers ``200``
with the result when it is already computed for the current data, else ``202`` with the job's
``Location`` (identical requests share that job)."""

from __future__ import annotations

import unicodedata
from typing import Any, cast

import marshmallow as ma
from flask import Response, current_app, url_for
from flask.views import MethodView

from api.common import Blueprint, jobs, json_response, service, stats
from api.jobs import accepted
from api.problems import ProblemError
from games import game_names
from schemas.common import DISPLAY_NAME_FORMAT, display_name_problem
from schemas.jobs import JobSchema
from schemas.stats import (
    AccountStatsSchema,
    GameStatsSchema,
    GlobalStatsSchema,
    PlayerStatsSchema,
    StatsQuery,
)

blp = Blueprint("stats", __name__, url_prefix="/v1", description="Statistics over finished games")


def _result_or_accepted(job_id: str) -> Response:
    body = jobs().finished_result(job_id)
    if body is None:
        return accepted(job_id)
    response = Response(body, status=200, content_type="application/json")
    response.headers["Content-Location"] = url_for("jobs.JobResult", job_id=job_id)
    response.headers["Cache-Control"] = "no-cache"
    return response


def _game_name(query: dict[str, Any]) -> str:
    if query["game"] not in game_names():
        raise ProblemError(422, "UNKNOWN_GAME", "No such game engine", f"Games: {', '.join(game_names())}.")
    return cast(str, query["game"])  # one of game_names(), just checked


ACCEPTED = {"Location": {"schema": {"type": "string"}, "description": "The job computing it"}}


@blp.route("/stats/global")
class GlobalStats(MethodView):
    @blp.arguments(StatsQuery, location="query", unknown=ma.RAISE)
    @blp.response(200, GlobalStatsSchema)
    @blp.alt_response(202, schema=JobSchema, headers=ACCEPTED, description="Being computed: follow Location")
    @blp.problems(422, 429)
    def get(self, query: dict[str, Any]) -> Response:
        """Across the archive: first-seat advantage, win rate by seat, most contested regions, game
        length distribution, how games are won, leaders."""
        name = _game_name(query)
        return _result_or_accepted(stats().global_stats(name))


# The names players can claim (schemas.common.DisplayName), up to 64 characters here.
PLAYER_NAME = {
    "in": "path",
    "name": "name",
    "schema": {"type": "string", "format": DISPLAY_NAME_FORMAT, "minLength": 1, "maxLength": 64},
    "description": "A player's name (case-insensitive)",
}


@blp.route("/stats/players/<string:name>", parameters=[PLAYER_NAME])
class PlayerStats(MethodView):
    @blp.arguments(StatsQuery, location="query", unknown=ma.RAISE)
    @blp.response(200, PlayerStatsSchema)
    @blp.alt_response(202, schema=JobSchema, headers=ACCEPTED, description="Being computed: follow Location")
    @blp.problems(422, 429)
    def get(self, query: dict[str, Any], name: str) -> Response:
        """One player (by name, case-insensitive) across the archive: games, wins, win rate by seat
        and by number of players, regions taken, favourite regions, card usage."""
        # The rules of the names players can claim (%00 started a job for a name no claim can
        # have): anything else is refused before any work.
        name = unicodedata.normalize("NFC", name)
        if not 1 <= len(name) <= 64:
            raise ProblemError(422, "VALIDATION_ERROR", "Invalid request", "A name has 1 to 64 characters.")
        problem = display_name_problem(name)
        if problem:
            raise ProblemError(422, "VALIDATION_ERROR", "Invalid request", problem)
        game = _game_name(query)
        return _result_or_accepted(stats().player_stats(name, game))


HANDLE = {
    "in": "path",
    "name": "handle",
    "schema": {"type": "string", "format": DISPLAY_NAME_FORMAT, "minLength": 1, "maxLength": 40},
    "description": "An account's handle (case-insensitive)",
}


@blp.route("/stats/accounts/<string:handle>", parameters=[HANDLE])
class AccountStats(MethodView):
    @blp.arguments(StatsQuery, location="query", unknown=ma.RAISE)
    @blp.response(200, AccountStatsSchema)
    @blp.problems(404, 422)
    def get(self, query: dict[str, Any], handle: str) -> Response:
        """One account (by handle, case-insensitive) across the archive: the games of the seats
        bound to it, whatever names they played under (the figures of `/v1/stats/players/{name}`;
        an account with no archived game has zero games). Kept as aggregates: answered at once,
        never a job. A deleted account has none (404), and a new account that takes its handle
        starts from zero."""
        game = _game_name(query)
        accounts = current_app.extensions["account_service"]
        account_id = accounts.account_id_of(handle)
        spelled = accounts.handle_of(account_id) if account_id is not None else None
        if account_id is None or spelled is None:
            raise ProblemError(404, "PLAYER_NOT_FOUND", "No player with that handle")
        body = stats().account_stats(account_id, spelled, game)
        return json_response(body, 200, {"Cache-Control": "no-cache"})


@blp.route("/games/<string:game_id>/stats")
class GameStats(MethodView):
    @blp.response(200, GameStatsSchema)
    @blp.alt_response(202, schema=JobSchema, headers=ACCEPTED, description="Being computed: follow Location")
    @blp.problems(404, 409, 429)
    def get(self, game_id: str) -> Response:
        """One finished game: battles (who won what with which strength), cards played by kind and
        how the battles that used them ended, regions taken."""
        summary = service().get_summary(game_id)
        if summary["status"] != "finished":
            raise ProblemError(409, "GAME_NOT_FINISHED", "Statistics are computed for finished games only")
        return _result_or_accepted(stats().game_stats(game_id))
