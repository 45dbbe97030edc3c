"""The archive and replays: search finished games, import a log, replay any version, the chapter
(battle) index, and the jobs that verify and export games.

Viewer rule (replays/core.py): a finished game is public in full; a running game is shown to the
token's seat (``Authorization: Bearer``) or to a spectator, redacted, like its live view.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
import orjson
from flask import Response, current_app, request, url_for
from flask.views import MethodView
from webargs.flaskparser import is_json_request

from api.common import (
    Blueprint,
    archive,
    bearer_token,
    json_response,
    load_json_body,
    read_body,
    service,
    stats,
)
from api.games import OPTIONAL_AUTH
from api.jobs import accepted, requester
from api.problems import ProblemError
from games import get_game
from games.base import Event, Game
from replays import core
from schemas.archive import (
    ArchiveEntrySchema,
    ArchivePageSchema,
    ArchiveQuery,
    BulkExportRequest,
    ChapterIndexSchema,
    ExportRequest,
    ObservationExportRequest,
    ReplayQuery,
    ReplaySchema,
)
from schemas.jobs import JobSchema
from service.filters import FilterProblem, Filters, moment_ms, parse, resolve
from service.ids import is_game_id
from store.archive import FILTER_FIELDS, BadCursor
from store.game_logs import GameLog

blp = Blueprint(
    "archive", __name__, url_prefix="/v1", description="Archive, replays, verification and exports"
)


# -- helpers ---------------------------------------------------------------------------------------


def _when(value: str | None, field: str, end_of_day: bool = False) -> int | None:
    if value is None:
        return None
    try:
        return moment_ms(value, end_of_day)
    except ValueError:
        raise ProblemError(
            422,
            "VALIDATION_ERROR",
            "Invalid request",
            f"{field} must be an ISO date or date-time.",
            errors={"query": {field: ["Not an ISO date or date-time."]}},
        ) from None


def _filters(query: dict[str, Any]) -> dict[str, list[Any]]:
    filters: dict[str, list[Any]] = {}
    for field in FILTER_FIELDS:
        value = query.get(field)
        if value is None:
            continue
        filters[field] = list(value) if isinstance(value, list) else [value]
    return filters


def _game_and_viewer(game_id: str, events: bool = True) -> tuple[GameLog, int | None]:
    """The stored game (its log unless ``events`` is false) and the viewer the request may see it
    as (a wrong token is a 401)."""
    svc = service()
    summary = svc.get_summary(game_id)  # 404 for an unknown or malformed id
    if summary["status"] == "open":
        raise ProblemError(409, "GAME_NOT_STARTED", "The game has not started: seats are still free")
    seat, _ = svc.viewer_seat(game_id, bearer_token())
    log = archive().log(game_id) if events else archive().meta(game_id)
    if log is None:
        raise ProblemError(404, "GAME_NOT_FOUND", "No such game")
    return log, seat


def _shown_events(game: Game[Any], log: GameLog, seat: int | None) -> list[Event]:
    if log.finished:
        return log.events
    return [game.redact(event, seat) for event in log.events]


# A whole log is far larger than a move: a long points match runs to a few hundred kilobytes.
IMPORT_MAX_BYTES = 8 * 1024 * 1024


@blp.before_request
def _larger_bodies_for_imports() -> None:
    if request.endpoint == "archive.ArchiveImport":
        request.max_content_length = IMPORT_MAX_BYTES


# -- archive ---------------------------------------------------------------------------------------


@blp.route("/archive")
class ArchiveSearch(MethodView):
    @blp.arguments(ArchiveQuery, location="query", unknown=ma.EXCLUDE)
    @blp.response(200, ArchivePageSchema)
    @blp.problems(422)
    def get(self, query: dict[str, Any]) -> Response:
        """Search finished games, newest first: by player names, account, game, ruleset, options,
        number of players, winner, outcome, finish date, prearranged, the players' rating band and
        the kind of table (docs/statistics.md, "Filters": the statistics' grammar too); cursor
        pagination (``next_cursor``)."""
        try:
            checked = parse(request.args.to_dict(flat=False), ("game", "cursor", "limit"))
        except FilterProblem as problem:
            raise ProblemError(422, problem.code, "Invalid filter", problem.message) from None
        filters = _filters(query)
        for name in filters.get("player", []):
            # A name that is an account's handle finds that account's seats, not every seat that
            # took the same name (an anonymous seat, or one from before the handle was taken).
            owner = current_app.extensions["account_service"].account_id_of(name)
            if owner is not None:
                filters.setdefault("account", []).append(owner)
        if query.get("account") is not None:
            account_id = current_app.extensions["account_service"].account_id_of(query["account"])
            if account_id is None:  # no such account: no game of it
                return json_response({"games": [], "next_cursor": None}, 200, {"Cache-Control": "no-cache"})
            filters.setdefault("account", []).append(account_id)
        if checked.rating_min is not None or checked.rating_max is not None or checked.table is not None:
            accounts = current_app.extensions["account_service"]
            return _search_facts(query, resolve(checked, accounts.account_id_of))
        try:
            page = archive().search(
                filters=filters,
                finished_from=checked.finished_from,
                finished_to=checked.finished_to,
                cursor=query.get("cursor"),
                limit=query["limit"],
            )
        except BadCursor:
            raise ProblemError(
                422, "INVALID_CURSOR", "Invalid cursor", "Use next_cursor from a previous page."
            ) from None
        return json_response(
            {"games": page.items, "next_cursor": page.next_cursor}, 200, {"Cache-Control": "no-cache"}
        )


def _search_facts(query: dict[str, Any], filters: Filters) -> Response:
    """A search under the filters only the analytical store holds (the players' ratings, the kind
    of table): its ids, newest first, then their archive entries. Cursor: ``f<ms>.<id>``."""
    after = None
    if query.get("cursor") is not None:
        head, _, game_id = str(query["cursor"]).partition(".")
        if not head.startswith("f") or not head[1:].isdigit() or not is_game_id(game_id):
            raise ProblemError(
                422, "INVALID_CURSOR", "Invalid cursor", "Use next_cursor from a previous page."
            )
        after = (int(head[1:]), game_id)
    limit = int(query["limit"])
    found = stats().facts.search(query.get("game"), filters, after, limit + 1)
    entries = archive().entries([game_id for _, game_id in found[:limit]])
    last = found[limit - 1] if len(found) > limit else None
    cursor = f"f{last[0]}.{last[1]}" if last is not None else None
    return json_response({"games": entries, "next_cursor": cursor}, 200, {"Cache-Control": "no-cache"})


@blp.route("/archive/<string:game_id>")
class ArchiveEntry(MethodView):
    @blp.response(200, ArchiveEntrySchema)
    @blp.problems(404)
    def get(self, game_id: str) -> Response:
        """One finished game's archive entry (what a search lists), by its game id."""
        entry = archive().entry(game_id) if is_game_id(game_id) else None
        if entry is None:
            raise ProblemError(
                404,
                "NOT_IN_ARCHIVE",
                "No such game in the archive",
                "The archive holds finished games only; GET /v1/games/{id} shows a running one.",
            )
        return json_response(entry, 200, {"Cache-Control": "public, max-age=3600"})


@blp.route("/archive/import")
class ArchiveImport(MethodView):
    # The body is documented, not parsed here: the job checks it (see post). What the POST itself
    # takes is any JSON object; an ExchangeDocument is what the job accepts.
    @blp.doc(
        requestBody={
            "required": True,
            "content": {
                "application/json": {
                    "schema": {
                        "anyOf": [
                            {"$ref": "#/components/schemas/ExchangeDocument"},
                            {"type": "object", "additionalProperties": True},
                        ],
                        "description": "An ExchangeDocument. Any other JSON object is taken too, and "
                        "its job fails with the problem (400, 422) the document has",
                    }
                }
            },
        }
    )
    @blp.response(
        202, JobSchema, headers={"Location": {"schema": {"type": "string"}, "description": "The job"}}
    )
    @blp.problems(400, 413, 415, 422, 429)
    def post(self) -> Response:
        """Import a complete log (job): the ``log`` export of this or another instance, or one
        written down from a table (an ``ExchangeDocument``, up to 8 MiB). The answer is ``202``
        with the job's ``Location`` (or 400/413/415/422 for a body that is not JSON, too large, or
        not a JSON object): replaying a long log takes seconds, never in the web process. The job's
        ``params.game_id`` names the game the import will have; its result is
        ``{"id", "game": <archive entry>}`` (``Imported``). A refused document fails the job with
        the problem the request would have had: 400 (``MALFORMED_JSON``, ``JSON_TOO_DEEP``), 422
        (``VALIDATION_ERROR`` with ``errors``, or the rules' refusal with the first offending
        event's ``index`` and the ``rule`` it breaks); nothing is stored."""
        body = read_body(request)
        if not is_json_request(request):
            raise ProblemError(
                415, "UNSUPPORTED_MEDIA_TYPE", "Unsupported media type", "Send the log as application/json."
            )
        # Parsing is cheap (orjson: milliseconds for the largest log), replaying is not: a body that
        # is not a JSON object is refused here (400 MALFORMED_JSON, JSON_TOO_DEEP; 422), the document
        # itself is checked by the job.
        value = load_json_body(request)
        if not isinstance(value, dict):
            raise ProblemError(
                422,
                "VALIDATION_ERROR",
                "Invalid request",
                "The log is a JSON object (an ExchangeDocument).",
                errors={"json": {"_schema": ["Not an object."]}},
            )
        return accepted(archive().start_import(body))


# -- replay ----------------------------------------------------------------------------------------


@blp.route("/games/<string:game_id>/replay")
class Replay(MethodView):
    @blp.arguments(ReplayQuery, location="query", unknown=ma.RAISE)
    @blp.response(200, ReplaySchema)
    @blp.problems(401, 404, 409, 422)
    @blp.doc(security=OPTIONAL_AUTH)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """The state at any version: complete once the game is over; while it runs, the token's
        seat view (or the spectator's)."""
        version = query.get("version")
        if query.get("as_seat") is not None:
            return _replay_as_seat(game_id, version, query["as_seat"])
        field = f"replay:{'last' if version is None else version}"
        cached = _finished_and_cached(game_id, field)
        if cached is not None:
            return _cached_response(cached)
        running = _running_replay(game_id, version)
        if running is not None:
            return json_response(running, 200, _headers(False))
        log, seat = _game_and_viewer(game_id)
        game = get_game(log.name)
        _check_version(version, log.version)
        replay = core.replay_at(game, log.events, version, seat, finished=log.finished)
        # Like every view, a replay says whether the creator fixed the shuffles
        body = {"game_id": game_id, "prearranged": log.meta.get("prearranged") == "true", **replay}
        if log.finished:
            return _cache_and_respond(game_id, field, body)
        return json_response(body, 200, _headers(False))


def _replay_as_seat(game_id: str, version: int | None, seat: int) -> Response:
    """A finished game as ``seat`` saw it at ``version``. Refused while the game runs: a seat's view
    holds its hand, which only its token may see then. Not kept like the full replays: one answer
    per version and seat would hold a game's every state several times over in Redis."""
    summary = service().get_summary(game_id)  # 404 for an unknown or malformed id
    if summary["status"] != "finished":
        raise ProblemError(
            409,
            "GAME_NOT_FINISHED",
            "The game is not over",
            "A replay as a seat is for finished games; while it runs, a seat sees its view with its token.",
        )
    if seat >= summary["seat_count"]:
        raise ProblemError(
            422, "NO_SUCH_SEAT", "No such seat", f"Seats of this game are 0..{summary['seat_count'] - 1}."
        )
    last = summary["version"]
    _check_version(version, last)
    at = last if version is None else version
    game = get_game(summary["game"])
    # Folded from the nearest checkpoint, as a running game's replay is: at most 64 events a request.
    state = archive().state_at(game, game_id, at)
    replay = core.replay_as_seat(game, state, at, last, seat)
    body = {"game_id": game_id, "prearranged": summary["prearranged"], **replay}
    return json_response(body, 200, _headers(True))


def _check_version(version: int | None, last: int) -> None:
    if version is not None and version > last:
        raise ProblemError(
            422,
            "VERSION_OUT_OF_RANGE",
            "No such version",
            f"Versions of this game are 0..{last}.",
            last_version=last,
        )


def _running_replay(game_id: str, version: int | None) -> dict[str, Any] | None:
    """A running game's replay, without reading or folding its whole log: its current
    version is the service's current state; an earlier one is folded from the nearest checkpoint
    (``ArchiveService.state_at``). None for a game that is not running (finished: the full log,
    computed once and kept)."""
    svc = service()
    summary = svc.get_summary(game_id)  # 404 for an unknown or malformed id
    if summary["status"] == "open":
        raise ProblemError(409, "GAME_NOT_STARTED", "The game has not started: seats are still free")
    seat, current = svc.viewer_seat(game_id, bearer_token())
    if current.status != "active":
        return None
    last = current.version
    _check_version(version, last)
    game = get_game(current.name)
    at = last if version is None else version
    state = current.state if at == last else archive().state_at(game, game_id, at)
    replay = core.replay_of(game, state, at, last, seat, finished=False)
    # Like every view, a replay says whether the creator fixed the shuffles
    return {"game_id": game_id, "prearranged": current.prearranged, **replay}


@blp.route("/games/<string:game_id>/battles")
class Battles(MethodView):
    @blp.response(200, ChapterIndexSchema)
    @blp.problems(401, 404, 409)
    @blp.doc(security=OPTIONAL_AUTH)
    def get(self, game_id: str) -> Response:
        """The chapter index (for Condottiere: battle by battle) with each chapter's start and end
        versions, region, winner and strengths; step through them with ``/replay?version=``."""
        cached = _finished_and_cached(game_id, "battles")
        if cached is not None:
            return _cached_response(cached)
        log, seat = _game_and_viewer(game_id)
        game = get_game(log.name)
        chapters = core.chapters(game, _shown_events(game, log, seat))
        for chapter in chapters:
            chapter["replay"] = url_for("archive.Replay", game_id=game_id, version=chapter["end"])
        body = {"game_id": game_id, "version": log.version, "finished": log.finished, "chapters": chapters}
        if log.finished:
            return _cache_and_respond(game_id, "battles", body)
        return json_response(body, 200, _headers(False))


# A finished game never changes and is public in full: its replays and chapter index are computed
# once (a fold of up to the whole log, the costliest read there is) and kept (store/replay_cache.py).


def _headers(finished: bool) -> dict[str, str]:
    return {"Cache-Control": "public, max-age=3600" if finished else "no-store", "Vary": "Authorization"}


def _finished_and_cached(game_id: str, field: str) -> bytes | None:
    """The kept answer for a finished game, after the same checks as a computed one (404 for an
    unknown game, 401 for a wrong token), or None."""
    svc = service()
    summary = svc.get_summary(game_id)
    if summary["status"] != "finished":
        return None
    svc.viewer_seat(game_id, bearer_token())
    return archive().kept_answer(game_id, field)


def _cached_response(body: bytes) -> Response:
    response = json_response(None, 200, _headers(True))
    response.set_data(body)
    return response


def _cache_and_respond(game_id: str, field: str, body: dict[str, Any]) -> Response:
    raw = orjson.dumps(body)
    archive().keep_answer(game_id, field, raw)
    return _cached_response(raw)


# -- jobs ------------------------------------------------------------------------------------------


@blp.route("/games/<string:game_id>/verify")
class Verify(MethodView):
    @blp.response(
        202, JobSchema, headers={"Location": {"schema": {"type": "string"}, "description": "The job"}}
    )
    @blp.problems(404, 409, 429)
    def post(self, game_id: str) -> Response:
        """Verify a game (job): replay its log through the rules and compare its fold, up to the
        stored snapshot's version, with the snapshot (a live game's may be a few versions behind its
        log; a finished game's is at its end). A divergence is reported in the result, never fixed."""
        summary = service().get_summary(game_id)
        if summary["status"] == "open":
            raise ProblemError(409, "GAME_NOT_STARTED", "The game has not started: seats are still free")
        return accepted(archive().verify_game(game_id, requester()))


@blp.route("/games/<string:game_id>/exports")
class Exports(MethodView):
    @blp.arguments(ExportRequest)
    @blp.response(
        202, JobSchema, headers={"Location": {"schema": {"type": "string"}, "description": "The job"}}
    )
    @blp.problems(400, 401, 404, 409, 415, 422, 429)
    @blp.doc(security=OPTIONAL_AUTH)
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Export a game (job) as the importable log, an annotated JSON history, Markdown or one
        self-contained HTML page. A running game's export is redacted for the token's seat (or the
        spectator)."""
        log, seat = _game_and_viewer(game_id, events=False)
        viewer = "full" if log.finished else ("spectator" if seat is None else seat)
        return accepted(archive().export_game(game_id, body["format"], viewer, requester()))


@blp.route("/exports/bulk")
class BulkExport(MethodView):
    @blp.arguments(BulkExportRequest)
    @blp.response(
        202, JobSchema, headers={"Location": {"schema": {"type": "string"}, "description": "The job"}}
    )
    @blp.problems(400, 415, 422, 429)
    def post(self, body: dict[str, Any]) -> Response:
        """Export many finished games (job) as NDJSON, one importable log per line; the same
        filters as the archive search (at most 10,000 games, newest first)."""
        params = {
            "format": body["format"],
            "filters": _filters(body),
            "finished_from": _when(body.get("finished_from"), "finished_from"),
            "finished_to": _when(body.get("finished_to"), "finished_to", end_of_day=True),
        }
        return accepted(archive().export_many(params, requester()))


@blp.route("/exports/observations")
class ObservationExport(MethodView):
    @blp.arguments(ObservationExportRequest)
    @blp.response(
        202, JobSchema, headers={"Location": {"schema": {"type": "string"}, "description": "The job"}}
    )
    @blp.problems(400, 415, 422, 429)
    def post(self, body: dict[str, Any]) -> Response:
        """Export finished games as training data (job): for every decision a seat made, its view
        exactly as it was served, its legal moves, the move it chose and the game's result, one
        ``Observation`` per line of gzipped NDJSON (the result's content type is
        ``application/gzip``). The same filters as the archive search; at most ``limit`` games
        (1,000), newest first. Finished games only: nothing of a running game is in the archive."""
        params = {
            "format": body["format"],
            "filters": _filters(body),
            "finished_from": _when(body.get("finished_from"), "finished_from"),
            "finished_to": _when(body.get("finished_to"), "finished_to", end_of_day=True),
            "limit": body["limit"],
        }
        return accepted(archive().export_observations(params, requester()))
