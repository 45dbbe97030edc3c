"""Account routes: sign-up, sessions, the account (``/v1/me``), its personal access
tokens, its games and its stream, seat token fetches, public profiles. Thin: HTTP <->
:class:`service.accounts.AccountService`.

Every token in ``Authorization`` here is an account's (a session or a personal access token); a
seat token is refused as an invalid account token. A token is shown once, in the answer that
creates it (``Cache-Control: no-store``), and never in any other answer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, cast

from flask import Response, current_app, request
from flask.views import MethodView

from api.common import Blueprint, bearer_token, feed_resume_point, json_response, parse_bearer, service
from api.problems import ProblemError
from api.sse import sse_content
from api.transport import PLAIN, HangUpWatch, transport
from schemas.accounts import (
    AccountSchema,
    CreateAccountRequest,
    CreateTokenRequest,
    DeleteAccountRequest,
    MeSchema,
    MyGamesQuery,
    MyGamesSchema,
    NewTokenSchema,
    PasswordChangeRequest,
    ProfileSchema,
    SessionSchema,
    SignInRequest,
    TokenListSchema,
)
from schemas.common import STREAM_ID_PATTERN
from schemas.games import RotatedTokenResponse
from schemas.me_stream import VARIANTS
from service.account_tokens import Identity
from service.accounts import AccountService
from service.identity import PLAY, READ, is_account_token

blp = Blueprint("accounts", __name__, url_prefix="/v1", description="Accounts, tokens, my games, profiles")

ACCOUNT_AUTH: list[dict[str, list[str]]] = [{"accountToken": []}]
NO_STORE = {"Cache-Control": "no-store"}


def accounts() -> AccountService:
    return cast(AccountService, current_app.extensions["account_service"])


def identity(scope: str | None = None) -> Identity:
    """The account of the request's bearer token (401 without one or with any other token)."""
    token = bearer_token(required=True)
    assert token is not None
    if not is_account_token(token):
        raise ProblemError(
            401,
            "INVALID_TOKEN",
            "Missing or invalid account token",
            "Send Authorization: Bearer <session or personal access token>.",
            headers={"WWW-Authenticate": 'Bearer realm="account"'},
        )
    return accounts().identify(token, scope)


def claimant(name: str | None, bot: str | None) -> tuple[str | None, str | None]:
    """(account id, display name) of a seat claim: the account of an account token in
    ``Authorization`` (scope ``play``), whose handle is the name unless one is given. Without an
    account token, (None, ``name``): anonymous claims are what they always were (any other
    Authorization header is ignored, as before accounts). Either way a name that is another
    account's handle is refused (409 ``SEAT_NAME_TAKEN``)."""
    header = request.headers.get("Authorization")
    token = parse_bearer(header) if header is not None else None
    if token is None or not is_account_token(token):
        if name is not None:
            accounts().check_seat_name(name, None)
        return None, name
    if bot is not None:
        raise ProblemError(
            422,
            "VALIDATION_ERROR",
            "Invalid request",
            "An account claims a seat for itself, not for a bot.",
            errors={"json": {"bot": ["Not with an account token."]}},
        )
    who = accounts().identify(token, PLAY)
    if name is not None:
        accounts().check_seat_name(name, who.account_id)
    return who.account_id, name if name is not None else accounts().handle_of(who.account_id)


@blp.route("/accounts")
class Accounts(MethodView):
    @blp.arguments(CreateAccountRequest())
    @blp.response(201, AccountSchema)
    @blp.problems(400, 409, 413, 415, 422, 429)
    def post(self, body: dict[str, Any]) -> Response:
        """Create an account: a handle (unique without regard to case) and a password (stored only
        as its Argon2id hash). Sign in (POST /v1/sessions) to get a token. A handle that passes for a
        bot or a placeholder (`bot:random`, `random bot`, `deleted player`, in any case or look-alike
        letters) is reserved: 422 `HANDLE_RESERVED`."""
        created = accounts().create_account(body["handle"], body["password"], bot=body["bot"])
        return json_response(created, 201, NO_STORE)


@blp.route("/sessions")
class Sessions(MethodView):
    @blp.arguments(SignInRequest())
    @blp.response(201, SessionSchema)
    @blp.problems(400, 401, 413, 415, 422, 429)
    def post(self, body: dict[str, Any]) -> Response:
        """Sign in: a session token (all scopes, 30 days), shown only here. A wrong handle and a
        wrong password get the same answer (401 `INVALID_CREDENTIALS`), after the same work. Rate
        limited per address and per handle."""
        return json_response(accounts().sign_in(body["handle"], body["password"]), 201, NO_STORE)


@blp.route("/sessions/current")
class CurrentSession(MethodView):
    @blp.response(204)
    @blp.problems(401)
    @blp.doc(security=ACCOUNT_AUTH)
    def delete(self) -> Response:
        """Sign out: the bearer's token stops working (a personal access token is revoked too)."""
        accounts().sign_out(identity())
        return Response(status=204)


@blp.route("/me")
class Me(MethodView):
    @blp.response(200, MeSchema)
    @blp.problems(401)
    @blp.doc(security=ACCOUNT_AUTH)
    def get(self) -> Response:
        """The token's account, and what the token may do."""
        return json_response(accounts().me(identity()), 200, NO_STORE)

    @blp.arguments(DeleteAccountRequest())
    @blp.response(204)
    @blp.problems(400, 401, 403, 413, 415, 422, 429)
    @blp.doc(security=ACCOUNT_AUTH)
    def delete(self, body: dict[str, Any]) -> Response:
        """Delete the account (scope `account`, and the password again: `{"password"}`; a wrong one
        is 401 `INVALID_CREDENTIALS`, a missing one 422 `VALIDATION_ERROR`, and nothing changes): its
        credentials and webhooks (subscriptions, pending deliveries) go at once, in one step, then its
        data, and its handle is free again; its games stay, its seats shown under a placeholder name."""
        accounts().delete(identity(), body["password"])
        return Response(status=204)


@blp.route("/me/password")
class Password(MethodView):
    @blp.arguments(PasswordChangeRequest())
    @blp.response(204)
    @blp.problems(400, 401, 403, 413, 415, 422, 429)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, body: dict[str, Any]) -> Response:
        """Change the password (scope `account`, and the current password): every other session of
        the account ends."""
        accounts().change_password(identity(), body["current"], body["new"])
        return Response(status=204)


@blp.route("/me/tokens")
class Tokens(MethodView):
    @blp.response(200, TokenListSchema)
    @blp.problems(401, 403)
    @blp.doc(security=ACCOUNT_AUTH)
    def get(self) -> Response:
        """The account's personal access tokens, by name and last use (never the tokens)."""
        return json_response({"tokens": accounts().list_tokens(identity())}, 200, NO_STORE)

    @blp.arguments(CreateTokenRequest())
    @blp.response(201, NewTokenSchema)
    @blp.problems(400, 401, 403, 409, 413, 415, 422)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, body: dict[str, Any]) -> Response:
        """A personal access token for a bot or a script (scope `account` needed to make one), with
        the scopes given, shown only here. A token never makes one with a scope it lacks itself
        (403 `INSUFFICIENT_SCOPE`). An account holds at most 50: the 51st is refused (409
        `TOO_MANY_TOKENS`, with `limit`) until one is revoked."""
        made = accounts().create_token(identity(), body["name"], body["scopes"])
        return json_response(made, 201, NO_STORE)


@blp.route("/me/tokens/<string:token_id>")
class Token(MethodView):
    @blp.response(204)
    @blp.problems(401, 403, 404)
    @blp.doc(security=ACCOUNT_AUTH)
    def delete(self, token_id: str) -> Response:
        """Revoke a personal access token: it stops working at once."""
        accounts().revoke_token(identity(), token_id)
        return Response(status=204)


@blp.route("/me/games")
class MyGames(MethodView):
    @blp.arguments(MyGamesQuery(), location="query")
    @blp.response(200, MyGamesSchema)
    @blp.problems(401, 403, 422)
    @blp.doc(security=ACCOUNT_AUTH)
    def get(self, query: dict[str, Any]) -> Response:
        """The account's games (scope `read`): running ones (those awaiting me first), then a page of
        finished ones (newest first; `before` = the previous page's `next_before`)."""
        games = accounts().my_games(identity(READ), query.get("before"), query["limit"])
        return json_response(games, 200, NO_STORE)


ME_STREAM_EVENTS = (
    "text/event-stream: first `event: open_games` (the running games, no id), then `event: "
    "game_started`, `your_turn` (with the deadline of a timed game) and `game_finished` (with the "
    "result), `challenge`, `challenge_canceled`, `challenge_declined`, `challenge_expired`, "
    "`verified`, `export_ready`, `webhook_paused`, `tournament_round_started` and "
    "`tournament_finished`, each with an `id:` to resume from "
    '(`Last-Event-ID`); `event: revoked` (`{"type": "revoked", "reason": "account_token_revoked"}`) '
    "and the end within a heartbeat of the token's revocation. Each `data:` is an "
    "`AccountStreamEvent`, discriminated by `type`"
)


@blp.route("/me/stream")
class MyStream(MethodView):
    @blp.response(200, description=ME_STREAM_EVENTS, content_type="text/event-stream")
    @blp.problems(401, 403, 422, 429)
    @blp.doc(
        security=ACCOUNT_AUTH,
        responses={
            200: sse_content(
                {kind: component for kind, (component, _) in VARIANTS.items()},
                "Server-Sent Events; `retry:` and `: heartbeat` lines besides. Every `data:` is one "
                "`AccountStreamEvent` (its `type` is the event's name)",
                STREAM_ID_PATTERN,
            )
        },
        parameters=[
            {
                "name": "Last-Event-ID",
                "in": "header",
                "required": False,
                "schema": {"type": "string"},
                "description": "Resume after this event (an `id:` the stream sent); an id no feed "
                "entry can have (parts beyond 64 bits) is a 422",
            }
        ],
    )
    def get(self) -> Response:
        """The account's own stream (scope `read`), Server-Sent Events. At most 8 streams of one
        account are open at once (429 `TOO_MANY_STREAMS` beyond); the feed keeps about the last 200
        events (a client away longer reads GET /v1/me/games)."""
        who = identity(READ)
        after = feed_resume_point("Not a feed id.")
        svc = accounts()
        stream_id = svc.open_stream(who)
        heartbeat = float(current_app.config["SSE_HEARTBEAT_SECONDS"])
        environ, edge = request.environ, transport()
        response = Response(
            _sse(svc, who, stream_id, after, heartbeat, lambda wake: edge.hang_up_watch(environ, wake)),
            mimetype="text/event-stream",
        )
        response.headers.update({**NO_STORE, "Vary": "Authorization", "X-Accel-Buffering": "no"})
        return response


def _sse(
    svc: AccountService,
    who: Identity,
    stream_id: str,
    after: str | None,
    heartbeat: float,
    watch_for: Callable[[Callable[[], None]], HangUpWatch] | None = None,
) -> Iterator[bytes]:
    """``watch_for(wake)`` is a watch on the stream's client (the transport's, which under gunicorn
    watches its socket): once the client hangs up it calls ``wake``, the feed's interrupt, so the
    stream ends, and gives its lease back, within a poll, not at its next write."""
    yield b"retry: 3000\n: following your games\n\n"
    watch_for = watch_for or (lambda wake: PLAIN.hang_up_watch({}, wake))
    with svc.follow_feed(who) as feed, watch_for(feed.interrupt) as client:
        for item in svc.stream(who, stream_id, after, heartbeat, gone=lambda: client.gone, feed=feed):
            if item is None:
                yield b": heartbeat\n\n"
                continue
            kind, entry_id, data = item
            head = b"" if entry_id is None else b"id: %s\n" % entry_id.encode()
            yield head + b"event: %s\ndata: %s\n\n" % (kind.encode(), data)


@blp.route("/games/<string:game_id>/seats/<int:seat>/token")
class AccountSeatToken(MethodView):
    @blp.response(200, RotatedTokenResponse)
    @blp.problems(401, 403, 404, 409, 422, 429, 503)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, game_id: str, seat: int) -> Response:
        """The seat token of one of my seats again, from any device (account token with scope
        `play`, which is all it needs): the seat gets a new token (shown only here) and its old one
        stops working."""
        token = bearer_token(required=True)
        assert token is not None
        identity(PLAY)  # 401/403 before anything is read of the game
        seated, _ = service().viewer_seat(game_id, token, PLAY)  # ``play`` alone is enough
        if seated != seat:
            raise ProblemError(403, "NOT_SEATED", "The token's account holds no such seat of this game")
        return json_response(service().rotate_token(game_id, token), 200, NO_STORE)


@blp.route("/players/<string:handle>")
class Player(MethodView):
    @blp.response(200, ProfileSchema)
    @blp.problems(404)
    def get(self, handle: str) -> Response:
        """A player's public profile: games played and won per game, recent finished games."""
        return json_response(accounts().profile(handle))
