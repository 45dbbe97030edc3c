"""Computer analysis of finished games: ask for it (a job on the ``analysis`` queue), read it."""

from __future__ import annotations

from typing import Any, cast

from flask import Response, current_app
from flask.views import MethodView

from api.accounts import ACCOUNT_AUTH, NO_STORE, accounts, identity
from api.common import Blueprint, json_response
from api.jobs import accepted, requester
from api.problems import ProblemError
from schemas.analysis import AccountMistakesSchema, AnalysisSchema, MistakesQuery
from schemas.jobs import JobSchema
from service.analysis import AnalysisRefused, AnalysisService
from service.identity import READ

blp = Blueprint("analysis", __name__, url_prefix="/v1", description="Computer analysis of finished games")


def _service() -> AnalysisService:
    """The app's analysis service (built by the composition root, ``service.composition``)."""
    return cast(AnalysisService, current_app.extensions["analysis_service"])


def _refused(refused: AnalysisRefused) -> ProblemError:
    return ProblemError(refused.status, refused.code, refused.message)


@blp.route("/games/<string:game_id>/analysis")
class Analysis(MethodView):
    @blp.response(200, AnalysisSchema)
    @blp.problems(404, 409)
    def get(self, game_id: str) -> Response:
        """The stored analysis of a finished game: per decision the decider's chance before, the best
        move and its chance, the chance after the move played, the loss and its judgement; per seat
        accuracy and the luck split. 404 (``ANALYSIS_NOT_FOUND``) until it has been computed; 409
        while the game runs (nothing about a running game is analysed)."""
        try:
            found = _service().document(game_id)
        except AnalysisRefused as refused:
            raise _refused(refused) from None
        if found is None:
            raise ProblemError(404, "ANALYSIS_NOT_FOUND", "Not analysed yet: POST to this address")
        return json_response(found, 200, {"Cache-Control": "no-store"})

    @blp.response(
        202, JobSchema, headers={"Location": {"schema": {"type": "string"}, "description": "The job"}}
    )
    @blp.alt_response(200, schema=AnalysisSchema)
    @blp.problems(404, 409, 429)
    def post(self, game_id: str) -> Response:
        """Analyse a finished game (a job on its own queue, behind every move and bot turn). An
        analysis already stored for the current rules is answered at once (200) and never
        recomputed; a request while the job runs joins it. 409 while the game runs. A signed-in
        account may start a limited number of analyses per hour (429 ``ANALYSIS_LIMIT``)."""
        service = _service()
        try:
            job = service.request(game_id, requester())
            if job is None:
                return json_response(service.document(game_id), 200, {"Cache-Control": "no-store"})
        except AnalysisRefused as refused:
            raise _refused(refused) from None
        return accepted(job)


@blp.route("/me/mistakes")
class MyMistakes(MethodView):
    @blp.arguments(MistakesQuery(), location="query")
    @blp.response(200, AccountMistakesSchema)
    @blp.problems(401, 403, 422)
    @blp.doc(security=ACCOUNT_AUTH)
    def get(self, query: dict[str, Any]) -> Response:
        """The biggest mistakes of the account (scope `read`) in its `games` most recent finished
        games that have a stored computer analysis: its own moves judged an inaccuracy or worse, the
        biggest loss of chance first (at most `limit`), each with the replay's address at that
        event. Games not analysed yet are passed over (`POST /v1/games/{id}/analysis`)."""
        who = identity(READ)
        finished = accounts().my_games(who, None, query["games"])["finished"]
        pairs = [(game["game_id"], int(game["seat"])) for game in finished]
        return json_response(_service().biggest_mistakes(pairs, query["limit"]), 200, NO_STORE)
