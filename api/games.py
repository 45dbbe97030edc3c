"""Core game routes: create, list, summary, claim a seat, view, move, events and the live stream.

Thin: parse and validate HTTP, call :class:`service.GameService`, shape the answer. Hot paths (view,
move) serialise with orjson directly; the marshmallow response schemas document them."""

from __future__ import annotations

from typing import Any

from flask import Response, request, url_for
from flask.views import MethodView

from api.accounts import claimant
from api.common import JSON_MIME, Blueprint, bearer_token, json_response, load_json_body, service
from api.moves import IDEMPOTENCY_KEY, IF_MATCH_PATTERN, answer_move, well_formed_move
from api.problems import ProblemError
from api.transport import transport
from api.webhooks import note_creator
from schemas.games import (
    ClaimSeatRequest,
    ClaimSeatResponse,
    CreateGameRequest,
    DeviceLinkRedeemSchema,
    DeviceLinkSchema,
    EventsPageSchema,
    EventsQuery,
    GameListSchema,
    GameSummarySchema,
    ListGamesQuery,
    MoveRequest,
    MoveResponse,
    RotatedTokenResponse,
    ViewResponse,
)
from service.changes import MoveOutcome

blp = Blueprint(
    "games", __name__, url_prefix="/v1/games", description="Games: create, join, view, play, follow"
)

SEAT_AUTH: list[dict[str, list[str]]] = [{"seatToken": []}]
# Routes a spectator may read without a token document no security requirement: `[{}, {seatToken}]`
# (OpenAPI's "optional") makes openapi-python-client demand an AuthenticatedClient. Their
# descriptions say what a seat token adds; any client with one (Authorization: Bearer) sends it.
OPTIONAL_AUTH: list[dict[str, list[str]]] = []
CREATE_GAME_REQUEST = "#/components/schemas/CreateGameRequest"
ETAG = {"schema": {"type": "string"}, "description": "The view's version and viewer"}


def header_param(name: str, description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """An optional request header; ``schema`` says what the route accepts (a pattern, a length)."""
    return {
        "name": name,
        "in": "header",
        "required": False,
        "schema": schema or {"type": "string"},
        "description": description,
    }


def _viewer_headers(seat: int | None) -> dict[str, str]:
    return {
        "Vary": "Authorization",
        # A seat's view is private: never stored by any cache. The spectator's may be, revalidated.
        "Cache-Control": "no-store" if seat is not None else "no-cache",
    }


@blp.route("")
class Games(MethodView):
    @blp.arguments(CreateGameRequest())
    @blp.response(
        201,
        GameSummarySchema,
        headers={"Location": {"schema": {"type": "string"}, "description": "The game's URL"}},
    )
    @blp.problems(400, 413, 415, 422, 429)
    @blp.doc(requestBody={"content": {"application/json": {"schema": {"$ref": CREATE_GAME_REQUEST}}}})
    def post(self, body: dict[str, Any]) -> Response:
        """Create a game (seats free, except those given to bots)."""
        summary = service().create_game(
            body["game"], body["config"], body["bots"], body.get("clock"), placed=transport().placement()
        )
        note_creator(summary["id"])  # Its creator may subscribe to the whole game
        location = url_for("games.Game", game_id=summary["id"])
        return json_response(summary, 201, {"Location": location})

    @blp.arguments(ListGamesQuery(), location="query")
    @blp.response(200, GameListSchema)
    @blp.problems(422)
    def get(self, query: dict[str, Any]) -> Response:
        """List games, newest first (cursor pagination; filters: status, game)."""
        games, cursor = service().list_games(
            status=query.get("status"),
            game=query.get("game"),
            cursor=query.get("cursor"),
            limit=query["limit"],
        )
        return json_response({"games": games, "next_cursor": cursor})


@blp.route("/<string:game_id>")
class Game(MethodView):
    @blp.response(200, GameSummarySchema)
    @blp.problems(404)
    def get(self, game_id: str) -> Response:
        """A game's public summary: status, version, seats (names are public), result."""
        return json_response(service().get_summary(game_id))


@blp.route("/<string:game_id>/seats")
class Seats(MethodView):
    @blp.arguments(ClaimSeatRequest())
    @blp.response(
        201,
        ClaimSeatResponse,
        headers={"Location": {"schema": {"type": "string"}, "description": "The game's URL"}},
    )
    @blp.problems(400, 401, 403, 404, 409, 413, 415, 422, 429)
    # An account token is optional here: no requirement documented (see OPTIONAL_AUTH).
    @blp.doc(security=OPTIONAL_AUTH)
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Claim a seat. The token in the answer is shown only once; the game starts when the last
        seat is claimed. With an account token (scope `play`) in Authorization the seat is also bound
        to the account (its handle is the name unless one is given): the account's token then acts
        for the seat too, and GET /v1/me/games lists it. A name that is another account's handle is
        refused (409 `SEAT_NAME_TAKEN`)."""
        account, name = claimant(body.get("name"), body.get("bot"))
        if name is None and body.get("bot") is None:
            # Schema-valid (the schema sees no Authorization): the claim names nobody, so a code
            # of its own rather than the schema's VALIDATION_ERROR.
            raise ProblemError(
                422,
                "NAME_REQUIRED",
                "A name is required",
                "Give a name or a bot level, or claim with an account token (its handle names the seat).",
                errors={"json": {"name": ["Give a name, or a bot level."]}},
            )
        outcome = service().claim_seat(
            game_id, name=name, seat=body.get("seat"), bot=body.get("bot"), account=account
        )
        return json_response(
            outcome.to_dict(),
            201,
            {"Location": url_for("games.Game", game_id=game_id), "Cache-Control": "no-store"},
        )


@blp.route("/<string:game_id>/view")
class View(MethodView):
    @blp.response(200, ViewResponse, headers={"ETag": ETAG})
    @blp.alt_response(304, description="Not modified (If-None-Match): no content", headers={"ETag": ETAG})
    @blp.problems(401, 404, 429)
    @blp.doc(
        security=OPTIONAL_AUTH,
        parameters=[header_param("If-None-Match", "An ETag from a previous view: 304 while unchanged")],
    )
    def get(self, game_id: str) -> Response:
        """The seat's view with its legal moves (Bearer token), or the spectator's (no token).
        Once the game is finished the spectator's view shows everything (hands included)."""
        game_view = service().get_view(game_id, bearer_token())
        headers = {"ETag": game_view.etag, **_viewer_headers(game_view.seat)}
        if _etag_matches(request.headers.get("If-None-Match"), game_view.etag):
            response = Response(status=304)
            response.headers.update(headers)
            return response
        return json_response(game_view.to_dict(), 200, headers)


def _etag_matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    candidates = [c.strip() for c in header.split(",")]
    return "*" in candidates or any(c.removeprefix("W/") == etag for c in candidates)


def _move_body() -> dict[str, Any]:
    """The move's body: :func:`well_formed_move`, else the schema's load (and its 422)."""
    parser = blp.ARGUMENTS_PARSER
    value = load_json_body(request)  # 413, 415, malformed, too deep, a token in the body
    body = well_formed_move(value)
    if body is not None:
        return body
    parsed: dict[str, Any] = parser.parse(MoveRequest(), request, location="json")
    return parsed


@blp.route("/<string:game_id>/moves")
class Moves(MethodView):
    @blp.hot(_move_body)
    @blp.arguments(MoveRequest())
    @blp.response(
        200,
        MoveResponse,
        headers={
            "ETag": {"schema": {"type": "string"}, "description": "ETag of the seat's new view"},
            "Idempotent-Replayed": {
                "schema": {"type": "string", "enum": ["true"]},
                "description": "Present on a retry answered from its Idempotency-Key (nothing applied again)",
            },
            "Preference-Applied": {
                "schema": {"type": "string", "enum": ["return=minimal"]},
                "description": "Present when the answer is the minimal one (Prefer: return=minimal)",
            },
        },
    )
    @blp.problems(400, 401, 404, 409, 412, 413, 415, 422, 429, 503)
    @blp.doc(
        security=SEAT_AUTH,
        parameters=[
            header_param(
                "Idempotency-Key",
                "Retry-safe key (1-255 visible ASCII): a retry returns the first answer. Send one on "
                "every move: a 503 may hide a move that was applied, and only the key makes its retry "
                "safe",
                {"type": "string", "pattern": IDEMPOTENCY_KEY.pattern},
            ),
            header_param(
                "If-Match",
                "A view ETag or a quoted version: apply only at that version (else 412)",
                {"type": "string", "pattern": IF_MATCH_PATTERN},
            ),
            header_param(
                "Prefer",
                "`return=minimal` (RFC 7240): answer only game_id and version (with `Preference-Applied: "
                "return=minimal`), for a client that follows its view stream and gets the view there",
            ),
        ],
    )
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Submit a move for the token's seat. Answers the new version, the events it caused
        (redacted for that seat) and the seat's new view; with `Prefer: return=minimal`, only the
        game id and the new version (the seat's view stream brings the view). A seat handed to the
        bot for good (too many timeouts, a tournament withdrawal) is moved by its token no more: 422
        `SEAT_HANDED_TO_BOT`, nothing changed.

        A 503 (`STORE_UNAVAILABLE`, with `Retry-After`) does not say the move was refused: the
        store may have applied it before the connection failed. Send moves with an
        `Idempotency-Key` and retry a 503 with the same key: an applied move is answered from the
        key (`Idempotent-Replayed: true`), never applied twice."""
        status, headers, encoded = answer_move(
            service(),
            game_id,
            bearer_token(required=True),
            body,
            if_match=request.headers.get("If-Match"),
            idempotency_key=request.headers.get("Idempotency-Key"),
            prefer=request.headers.get("Prefer"),
        )
        response = Response(encoded, status=status, mimetype=JSON_MIME)
        response.headers.update(headers)
        return response


@blp.route("/<string:game_id>/token")
class SeatToken(MethodView):
    @blp.response(200, RotatedTokenResponse)
    @blp.problems(401, 403, 404, 409, 422, 429, 503)
    @blp.doc(security=SEAT_AUTH)
    def post(self, game_id: str) -> Response:
        """Rotate the token's seat token: the answer carries a new token (shown only here) and the old
        one stops working at once. The log records it (`seat_token_rotated`, no secret in it)."""
        rotated = service().rotate_token(game_id, bearer_token(required=True))
        return json_response(rotated, 200, {"Cache-Control": "no-store"})


def _seat_action_answer(outcome: MoveOutcome) -> Response:
    view = outcome.body["view"]
    headers = {"Cache-Control": "no-store", "ETag": f'"{view["version"]}.s{view["seat"]}"'}
    return json_response(outcome.body, outcome.status_code, headers)


@blp.route("/<string:game_id>/resign")
class Resign(MethodView):
    @blp.response(200, MoveResponse)
    @blp.problems(401, 404, 409, 422, 429, 503)
    @blp.doc(security=SEAT_AUTH)
    def post(self, game_id: str) -> Response:
        """The token's seat resigns: it leaves the game for good, and the game's rules say what
        follows (Condottiere: RL-X17 in docs/rulings.md). Answers like a move."""
        return _seat_action_answer(service().resign(game_id, bearer_token(required=True)))


@blp.route("/<string:game_id>/abort")
class Abort(MethodView):
    @blp.response(200, MoveResponse)
    @blp.problems(401, 404, 409, 422, 429, 503)
    @blp.doc(security=SEAT_AUTH)
    def post(self, game_id: str) -> Response:
        """Abort the game while too little has been played for a result (Condottiere: before the
        first battle ends, RL-X18): it ends with no winner, reason `aborted`, `rated: false`.
        Later: 422 `TOO_LATE_TO_ABORT`. Answers like a move."""
        return _seat_action_answer(service().abort(game_id, bearer_token(required=True)))


@blp.route("/<string:game_id>/events")
class Events(MethodView):
    @blp.arguments(EventsQuery(), location="query")
    @blp.response(200, EventsPageSchema)
    @blp.problems(401, 404, 422, 429)
    @blp.doc(security=OPTIONAL_AUTH)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """The event log after ``after`` (a version), redacted for the token's seat or the
        spectator; the full log for everyone once the game is finished."""
        page = service().read_events(game_id, bearer_token(), after=query["after"], limit=query["limit"])
        return json_response(page.to_dict(), 200, _viewer_headers(page.seat))


@blp.route("/<string:game_id>/device-links")
class DeviceLinks(MethodView):
    @blp.response(201, DeviceLinkSchema)
    @blp.problems(401, 403, 404, 429)
    @blp.doc(security=SEAT_AUTH)
    def post(self, game_id: str) -> Response:
        """A one-time link that moves the token's seat to another device ("continue on another
        device"). The code travels in the page URL's fragment (``/continue/{id}#<code>``), which a
        browser never sends to a server, so it reaches no server log; the page redeems it with
        POST .../device-links/redeem. Valid for 10 minutes, once, for this game only. An account
        token needs scope `play` (the link hands the seat over). A seat holds at most 5 links at once
        (a newer one voids the oldest); made too often, 429."""
        code, seat, ttl = service().issue_device_link(game_id, bearer_token(required=True))
        body = {"code": code, "seat": seat, "expires_in": ttl, "page": f"/continue/{game_id}#{code}"}
        return json_response(body, 201, {"Cache-Control": "no-store"})


@blp.route("/<string:game_id>/device-links/redeem")
class RedeemDeviceLink(MethodView):
    @blp.arguments(DeviceLinkRedeemSchema())
    @blp.response(200, RotatedTokenResponse)
    @blp.problems(401, 404, 409, 422, 429, 503)
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Redeem a device link: the answer carries the seat's new token (shown only here) and the
        device that made the link is signed out of the seat (its token stops working), as a token
        rotation; the log records `seat_token_rotated`. The code is in the body, never in a URL."""
        rotated = service().redeem_device_link(game_id, body["code"])
        return json_response(rotated, 200, {"Cache-Control": "no-store"})
