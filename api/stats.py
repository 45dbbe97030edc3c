"""Statistics: per game, per player across the archive, global. Without filters each is computed by
a job on the data version it depends on (the game's version, the archive's version): a request
answers ``200`` with the result when it is already computed for the current data, else ``202`` with
the job's ``Location`` (identical requests share that job). Under the archive's filters, and the
decision explorer, they are answered at once (``200``) from the analytical store
(``service.fact_queries``; docs/statistics.md)."""

from __future__ import annotations

import os
import tempfile
import unicodedata
from pathlib import Path
from typing import Any, cast

import marshmallow as ma
from flask import Response, current_app, request, send_file, stream_with_context, url_for
from flask.views import MethodView

from api.common import Blueprint, jobs, json_response, service, stats
from api.jobs import accepted
from api.problems import ProblemError
from games import game_names
from schemas.common import DISPLAY_NAME_FORMAT, display_name_problem
from schemas.jobs import JobSchema
from schemas.stats import (
    AccountStatsSchema,
    ExplorerQuery,
    ExplorerSchema,
    FilteredStatsQuery,
    GameStatsSchema,
    GlobalStatsSchema,
    PlayerStatsSchema,
    StatsQuery,
)
from service.fact_queries import situations_of
from service.filters import FilterProblem, Filters, parse, resolve
from store.facts import TABLES

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


def _filters(others: tuple[str, ...] = ("game",)) -> Filters | None:
    """The request's filters (service.filters), None when it gives none; a refused one is a 422
    with the filter's stable code. Their ``account`` is the handle asked for: :func:`_resolved`
    gives the filters a query reads."""
    raw = request.args.to_dict(flat=False)
    if not set(raw) - set(others):
        return None
    try:
        return parse(raw, others)
    except FilterProblem as problem:
        raise ProblemError(422, problem.code, "Invalid filter", problem.message) from None


def _resolved(filters: Filters) -> Filters:
    """``filters`` as the store reads them (service.filters.resolve): handles replaced by the
    accounts' ids, as the store keeps seats."""
    return resolve(filters, current_app.extensions["account_service"].account_id_of)


def _asked(body: dict[str, Any], filters: Filters) -> dict[str, Any]:
    """An answer echoing the filters as the request gave them (the handle, not the account's id)."""
    return {**body, "filters": filters.shown()}


def _answer(body: dict[str, Any]) -> Response:
    return json_response(body, 200, {"Cache-Control": "no-cache"})


ACCEPTED = {"Location": {"schema": {"type": "string"}, "description": "The job computing it"}}


@blp.route("/stats/global")
class GlobalStats(MethodView):
    @blp.arguments(FilteredStatsQuery, location="query", unknown=ma.EXCLUDE)
    @blp.response(200, GlobalStatsSchema)
    @blp.alt_response(202, schema=JobSchema, headers=ACCEPTED, description="Being computed: follow Location")
    @blp.problems(422, 429)
    def get(self, query: dict[str, Any]) -> Response:
        """Across the archive: first-seat advantage, win rate by seat, most contested regions, game
        length distribution, how games are won, leaders. Under any of the archive's filters
        (docs/statistics.md) answered at once from the analytical store, without the game's own
        ``counters`` (empty there)."""
        name = _game_name(query)
        filters = _filters()
        if filters is not None:
            return _answer(_asked(stats().facts.global_stats(name, _resolved(filters)), filters))
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
    @blp.arguments(FilteredStatsQuery, location="query", unknown=ma.EXCLUDE)
    @blp.response(200, PlayerStatsSchema)
    @blp.alt_response(202, schema=JobSchema, headers=ACCEPTED, description="Being computed: follow Location")
    @blp.problems(422, 429)
    def get(self, query: dict[str, Any], name: str) -> Response:
        """One player (by name, case-insensitive) across the archive: games, wins, win rate by seat
        and by number of players, regions taken, favourite regions, card usage. Under any of the
        archive's filters answered at once from the analytical store, without the game's own
        counters (a filter matching none of the player's games: zero games)."""
        # The rules of the names players can claim (%00 started a job for a name no claim can
        # have): anything else is refused before any work.
        name = unicodedata.normalize("NFC", name)
        if not 1 <= len(name) <= 64:
            raise ProblemError(422, "VALIDATION_ERROR", "Invalid request", "A name has 1 to 64 characters.")
        problem = display_name_problem(name)
        if problem:
            raise ProblemError(422, "VALIDATION_ERROR", "Invalid request", problem)
        game = _game_name(query)
        filters = _filters()
        if filters is not None:
            row = stats().facts.player_stats(game, name, _resolved(filters))
            if row is None:
                row = {
                    "name": name,
                    "game": game,
                    "filters": filters.shown(),
                    "games": 0,
                    "wins": 0,
                    "win_rate": None,
                    "by_seat": {},
                    "by_player_count": {},
                    "totals": {},
                    "counters": {},
                    "favourites": {},
                }
            return _answer(_asked(row, filters))
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


GAME = {
    "in": "path",
    "name": "game",
    "schema": {"type": "string", "maxLength": 64},
    "description": "A game's name",
}


def _path_game(game: str) -> str:
    if game not in game_names():
        raise ProblemError(422, "UNKNOWN_GAME", "No such game engine", f"Games: {', '.join(game_names())}.")
    return game


@blp.route("/stats/<string:game>/explorer", parameters=[GAME])
class Explorer(MethodView):
    @blp.arguments(ExplorerQuery, location="query", unknown=ma.EXCLUDE)
    @blp.response(200, ExplorerSchema)
    @blp.problems(422)
    def get(self, query: dict[str, Any], game: str) -> Response:
        """The decision explorer: for a situation the game declares (``situation``; omitted, the
        answer lists them) and the archive's filters, each move chosen, how often, how the seats
        that chose it finished (win rate, mean placement, with counts) and example games, by
        context (the battle, the year...). Answered at once from the analytical store."""
        name = _path_game(game)
        filters = _filters(("situation", "context")) or parse({})
        declared = situations_of(name)
        if query.get("situation") is None:
            body: dict[str, Any] = {
                "game": name,
                "situations": declared,
                "situation": None,
                "description": None,
                "context": None,
                "filters": filters.shown(),
                "decisions": 0,
                "contexts": [],
            }
            return _answer(body)
        try:
            body = stats().facts.explorer(name, query["situation"], query.get("context"), _resolved(filters))
        except FilterProblem as problem:
            raise ProblemError(422, problem.code, "Invalid filter", problem.message) from None
        return _answer({**_asked(body, filters), "situations": declared})


TABLE = {
    "in": "path",
    "name": "table",
    "schema": {"type": "string", "enum": sorted(TABLES)},
    "description": 'games, seats or decisions (docs/statistics.md, "Schema")',
}


class MonthQuery(ma.Schema):
    month = ma.fields.String(
        validate=ma.validate.Regexp(r"^[0-9]{4}-[0-9]{2}$"),
        metadata={"description": "Only the games finished in this month (YYYY-MM, UTC); omitted: all"},
    )


@blp.route("/stats/<string:game>/facts/<string:table>.parquet", parameters=[GAME, TABLE])
class FactsDownload(MethodView):
    @blp.arguments(MonthQuery, location="query", unknown=ma.RAISE)
    @blp.response(200, {"type": "string", "format": "binary"}, content_type="application/vnd.apache.parquet")
    @blp.problems(404, 422)
    def get(self, query: dict[str, Any], game: str, table: str) -> Response:
        """One table of the analytical store (docs/statistics.md: its schema) as one Parquet file, of
        ``game``'s archived games (of ``month``), with the partition columns ``game`` and ``month``:
        what DuckDB, pandas, Spark or Trino open as they are."""
        name = _path_game(game)
        if table not in TABLES:
            raise ProblemError(404, "NOT_FOUND", "No such table", f"Tables: {', '.join(sorted(TABLES))}.")
        handle, path = tempfile.mkstemp(suffix=".parquet")
        os.close(handle)
        try:
            stats().facts_store().export(table, name, query.get("month"), Path(path))
            response = send_file(path, mimetype="application/vnd.apache.parquet", max_age=0)
        except BaseException:
            os.unlink(path)
            raise
        response.headers["Content-Disposition"] = f'attachment; filename="{name}-{table}.parquet"'
        response.call_on_close(lambda: os.unlink(path))
        return response


class ObservationsQuery(ma.Schema):
    limit = ma.fields.Integer(
        validate=ma.validate.Range(min=1),
        metadata={"description": "At most this many games (newest first); omitted: every matching game"},
    )


@blp.route("/stats/<string:game>/observations.ndjson.gz", parameters=[GAME])
class ObservationsDownload(MethodView):
    @blp.arguments(ObservationsQuery, location="query", unknown=ma.EXCLUDE)
    @blp.response(200, {"type": "string", "format": "binary"}, content_type="application/gzip")
    @blp.problems(422)
    def get(self, query: dict[str, Any], game: str) -> Response:
        """Training data, streamed: every decision of ``game``'s archived games that match the
        archive's filters (docs/statistics.md), newest game first, one ``Observation`` per line of
        gzipped NDJSON (as the observation export job's), for any number of games: the games are
        found in the analytical store and each is sent as soon as it is folded."""
        name = _path_game(game)
        filters = _resolved(_filters(("limit",)) or parse({}))
        chunks = stats().observations(name, filters, query.get("limit"))
        response = Response(stream_with_context(chunks), mimetype="application/gzip")
        response.headers["Content-Disposition"] = f'attachment; filename="{name}-observations.ndjson.gz"'
        response.headers["Cache-Control"] = "no-store"
        return response
