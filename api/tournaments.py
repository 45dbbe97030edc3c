"""Tournament routes: list, create, read, join, withdraw, start, standings. Thin: HTTP <->
:class:`service.tournament.service.TournamentService`."""

from __future__ import annotations

from typing import Any, cast

from flask import Response, current_app, url_for
from flask.views import MethodView

from api.accounts import ACCOUNT_AUTH, accounts, identity
from api.common import Blueprint, json_response
from schemas.tournaments import (
    AddBotRequest,
    CreateTournamentRequest,
    JoinTournamentRequest,
    TournamentListSchema,
    TournamentSchema,
)
from service.tournament.service import TournamentService

blp = Blueprint(
    "tournaments", __name__, url_prefix="/v1/tournaments", description="Tournaments: Swiss and elimination"
)


def tournaments() -> TournamentService:
    """The app's tournament service (built by the composition root, ``service.composition``)."""
    return cast(TournamentService, current_app.extensions["tournament_service"])


@blp.route("")
class Tournaments(MethodView):
    @blp.arguments(CreateTournamentRequest())
    @blp.response(201, TournamentSchema)
    @blp.problems(400, 401, 403, 415, 422, 429)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, body: dict[str, Any]) -> Response:
        """Organise a tournament (scope `play`): the caller is its organiser.

        An invitation list (`entry: list`) names accounts by handle (or id): 422 UNKNOWN_ACCOUNT
        (its `unknown`: the names no account has). `starts_at`: 422 INVALID_START_TIME,
        START_TIME_PASSED."""
        who = identity()
        if body.get("entry") == "list":
            body = {**body, "accounts": accounts().ids_of(body.get("accounts") or [])}
        made = tournaments().create(who, body)
        return json_response(
            made, 201, {"Location": url_for("tournaments.Tournament", tournament_id=made["id"])}
        )

    @blp.response(200, TournamentListSchema)
    def get(self) -> Response:
        """The newest tournaments."""
        return json_response({"tournaments": tournaments().listing()})


@blp.route("/<string:tournament_id>")
class Tournament(MethodView):
    @blp.response(200, TournamentSchema)
    @blp.problems(404)
    def get(self, tournament_id: str) -> Response:
        """A tournament: settings, entrants, rounds with pairings and results, standings."""
        return json_response(tournaments().view(tournament_id))


@blp.route("/<string:tournament_id>/export")
class Export(MethodView):
    @blp.response(200, description="NDJSON: the tournament, one line per table's game, the standings")
    @blp.problems(404)
    @blp.doc(
        responses={
            200: {
                "content": {
                    "application/x-ndjson": {
                        "schema": {
                            "type": "string",
                            "description": "A `tournament` line (settings, entrants), one `game` line per "
                            "table (round, table, game_id, players, placing, the game's summary with its "
                            "commitment and result, its events as anyone may read them), a `standings` line",
                        }
                    }
                }
            }
        }
    )
    def get(self, tournament_id: str) -> Response:
        """Every game of the tournament plus the standings, as NDJSON (a finished game's log whole,
        as it is public once the game ended; a running one's as a spectator sees it)."""
        lines = tournaments().export(tournament_id)
        response = Response(lines, status=200, content_type="application/x-ndjson")
        response.headers["Content-Disposition"] = f'attachment; filename="tournament-{tournament_id}.ndjson"'
        return response


@blp.route("/<string:tournament_id>/join")
class Join(MethodView):
    @blp.arguments(JoinTournamentRequest())
    @blp.response(200, TournamentSchema)
    @blp.problems(401, 403, 404, 409, 415, 422)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, body: dict[str, Any], tournament_id: str) -> Response:
        """Enter (until the start; with `late_entry`, until the end: paired from the next round):
        409 TOURNAMENT_FULL, TOURNAMENT_NOT_OPEN, ALREADY_ENTERED; 403 NOT_ADMITTED (entry list,
        join code, bot accounts)."""
        who = identity()
        me = accounts().me(who)
        return json_response(
            tournaments().join(tournament_id, who, me["handle"], bot=me["bot"], code=body["code"])
        )


@blp.route("/<string:tournament_id>/bots")
class Bots(MethodView):
    @blp.arguments(AddBotRequest())
    @blp.response(200, TournamentSchema)
    @blp.problems(401, 403, 404, 409, 415, 422)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, body: dict[str, Any], tournament_id: str) -> Response:
        """The organiser enters a server bot of the game (until the start): it plays its tables on
        the server (403 NOT_ORGANISER, NOT_ADMITTED when bots may not enter; 409 as a join)."""
        return json_response(tournaments().add_bot(tournament_id, identity(), body["level"]))


@blp.route("/<string:tournament_id>/withdraw")
class Withdraw(MethodView):
    @blp.response(200, TournamentSchema)
    @blp.problems(401, 403, 404, 409)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, tournament_id: str) -> Response:
        """Withdraw: never paired again (409 NOT_ENTERED)."""
        return json_response(tournaments().withdraw(tournament_id, identity()))


@blp.route("/<string:tournament_id>/start")
class Start(MethodView):
    @blp.response(200, TournamentSchema)
    @blp.problems(401, 403, 404, 409, 422)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, tournament_id: str) -> Response:
        """The organiser starts it: round 1 is paired (403 NOT_ORGANISER; 409 TOURNAMENT_NOT_OPEN,
        TOURNAMENT_CHANGED when an entrant came or went meanwhile)."""
        return json_response(tournaments().start(tournament_id, identity()))
