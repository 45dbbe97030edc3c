"""The live routes of a game: its event stream, its view stream (a seat's own view, pushed at each
change) and the one-use tickets a browser opens a seat's stream with (``EventSource`` sends no
header). They sit on the games blueprint (``api.games.blp``), so the API lists them with the other
/v1/games routes; the app factory imports this module before it registers that blueprint."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import orjson
from flask import Response, current_app, request, url_for
from flask.views import MethodView

from api import sse
from api.common import bearer_token, json_response, service
from api.games import OPTIONAL_AUTH, SEAT_AUTH, blp, header_param
from api.problems import ProblemError
from api.transport import PLAIN, HangUpWatch, transport
from schemas.games import (
    LAST_EVENT_ID_PATTERN,
    EventStreamQuery,
    StreamQuery,
    StreamTicketSchema,
)
from service import rematch
from service.cache import CachedGame
from service.games import GameService
from service.queries import StreamGrant

LAST_EVENT_ID = {"type": "string", "pattern": LAST_EVENT_ID_PATTERN, "description": "A version (digits)"}


@blp.route("/<string:game_id>/stream")
class Stream(MethodView):
    @blp.arguments(EventStreamQuery(), location="query")
    @blp.response(
        200,
        description="text/event-stream: `id:` = version, `data:` = a `VersionedEvent`; a timed game's "
        "`event: clock` (`Clock`); `event: end` (`StreamEnd`) when the game is over; with "
        "`?rematch=true`, then `event: rematch` (`RematchOffer`) at each change of the rematch offer",
        content_type="text/event-stream",
    )
    @blp.problems(401, 404, 422, 429)
    @blp.doc(
        security=OPTIONAL_AUTH,
        parameters=[header_param("Last-Event-ID", "Resume after this version", LAST_EVENT_ID)],
        responses={
            200: sse.sse_content(
                {
                    "message": "VersionedEvent",
                    "clock": "Clock",
                    "end": "StreamEnd",
                    "rematch": "RematchOffer",
                },
                "Server-Sent Events; `retry:` and `: heartbeat` lines besides",
            )
        },
    )
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """Follow the game live (Server-Sent Events), redacted for the viewer; resumable. A seat
        follows with its token, or with a stream ticket (``?ticket=``) where it cannot send headers."""
        svc = service()
        grant, cached = _stream_viewer(svc, game_id, query)
        after = _last_event_id()
        if after is None:
            after = query.get("after")
        heartbeat = float(current_app.config["SSE_HEARTBEAT_SECONDS"])
        timed = cached.clock is not None
        watch = functools.partial(transport().hang_up_watch, request.environ)
        events = _sse(svc, game_id, cached.name, grant, after or 0, heartbeat, timed, watch)
        if query["rematch"]:
            events = _then_rematch(events, svc, game_id, heartbeat)
        return _event_stream(events)


def _then_rematch(
    events: Iterator[bytes], svc: GameService, game_id: str, heartbeat: float
) -> Iterator[bytes]:
    """``events``, then, only when they ended with the game's ``event: end`` (not a revocation or a
    client gone), the rematch offer as it changes (``event: rematch``), woken by each change; ends
    once the offer names the new game. A client that hangs up meanwhile ends it at the next write
    (a heartbeat at the latest)."""
    ended = False
    for chunk in events:
        yield chunk
        ended = chunk.startswith(b"event: end")
    if not ended:
        return
    with rematch.follow_rematch(svc, game_id) as news:
        shown = None
        while True:
            state = rematch.rematch_state(svc, game_id)
            if state != shown:
                shown = state
                yield b"event: rematch\ndata: %s\n\n" % orjson.dumps(state)
            if state["rematch"] is not None:
                return
            if not news.wait(heartbeat):
                yield b": heartbeat\n\n"


@blp.route("/<string:game_id>/view/stream")
class ViewStream(MethodView):
    @blp.arguments(StreamQuery(), location="query")
    @blp.response(
        200,
        description="text/event-stream of `event: view` messages: `id:` = version, `data:` = the same "
        "document as GET /view (`ViewResponse`: the viewer's whole view at that version); `event: end` "
        "(data `{}`) when the game is over",
        content_type="text/event-stream",
    )
    @blp.problems(401, 404, 422, 429)
    @blp.doc(
        security=OPTIONAL_AUTH,
        parameters=[
            header_param(
                "Last-Event-ID",
                "The version of the view the client holds: sent again only when newer",
                LAST_EVENT_ID,
            )
        ],
        responses={
            200: sse.sse_content(
                {"view": "ViewResponse", "end": "ViewStreamEnd"},
                "Server-Sent Events; `retry:` and `: heartbeat` lines besides",
            )
        },
    )
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """Follow the seat's view live (Server-Sent Events): the current view at once, then the new
        view after every change, so a client never polls GET /view. With a token (or a stream
        ticket, ``?ticket=``) the seat's view with its legal moves; without, the spectator's. A
        reconnecting client sends ``Last-Event-ID`` (or ``?after=``): the view it already holds is
        not sent again. Views in between two messages are skipped (each message is a whole view)."""
        svc = service()
        grant, current = _stream_viewer(svc, game_id, query)
        known = _last_event_id()
        if known is None:
            known = query.get("after")
        heartbeat = float(current_app.config["SSE_HEARTBEAT_SECONDS"])
        body = _view_sse(svc, game_id, grant, known, heartbeat, current)
        return _event_stream(transport().view_stream(body, svc, game_id, grant, known, heartbeat, current))


def _stream_viewer(svc: GameService, game_id: str, query: dict[str, Any]) -> tuple[StreamGrant, CachedGame]:
    ticket = query.get("ticket")
    if ticket is None:
        return svc.queries.stream_viewer(game_id, bearer_token())
    if request.headers.get("Authorization") is not None:
        raise ProblemError(
            422,
            "VALIDATION_ERROR",
            "Invalid request",
            "Send either a ticket or an Authorization header, not both.",
            errors={"query": {"ticket": ["Not with Authorization."]}},
        )
    return svc.redeem_stream_ticket(game_id, ticket)


def _last_event_id() -> int | None:
    last_event_id = (request.headers.get("Last-Event-ID") or "").strip()
    if not last_event_id:
        return None
    if not last_event_id.isdigit() or len(last_event_id) > 18:  # LAST_EVENT_ID_PATTERN
        raise ProblemError(
            422,
            "VALIDATION_ERROR",
            "Invalid request",
            "Last-Event-ID must be a version number.",
            errors={"headers": {"Last-Event-ID": ["Not a version."]}},
        )
    return int(last_event_id)


def _event_stream(body: Response | Iterable[bytes]) -> Response:
    response = body if isinstance(body, Response) else Response(body, mimetype="text/event-stream")
    response.headers.update({"Cache-Control": "no-store", "Vary": "Authorization", "X-Accel-Buffering": "no"})
    return response


@blp.route("/<string:game_id>/stream-tickets")
class StreamTickets(MethodView):
    @blp.response(201, StreamTicketSchema)
    @blp.problems(401, 403, 404, 429)
    @blp.doc(security=SEAT_AUTH)
    def post(self, game_id: str) -> Response:
        """A stream ticket for the token's seat: ``GET .../stream?ticket=<ticket>`` then follows the
        game as that seat without an Authorization header (the browser's EventSource cannot send
        one, and a seat token must never appear in a URL). Single-use (the stream's first request
        consumes it; reconnect with a new ticket and ``after=``), valid for 30 seconds, for this game
        and seat only; it can open a stream and nothing else. An account token needs scope `read`;
        a ticket it took opens nothing once it is revoked."""
        ticket, seat, ttl = service().issue_stream_ticket(game_id, bearer_token(required=True))
        stream = url_for("games.Stream", game_id=game_id, ticket=ticket)
        body = {"ticket": ticket, "seat": seat, "expires_in": ttl, "stream": stream}
        return json_response(body, 201, {"Cache-Control": "no-store"})


def _sse(
    svc: GameService,
    game_id: str,
    name: str,
    grant: StreamGrant,
    after: int,
    heartbeat: float,
    timed: bool = False,
    watch: Callable[[Callable[[], None]], HangUpWatch] | None = None,
) -> Iterator[bytes]:
    """Events after ``after``, from the process's live listener (no Redis connection of its own).
    A timed game's stream also sends ``event: clock`` (the public clock) at the start and after each
    batch of events. With a ``watch`` on its client (the transport's ``hang_up_watch``, which under
    gunicorn watches its socket) the stream ends as soon as its client hangs up, not at its next
    write. A seat's stream ends with ``event: revoked`` (and nothing it would have been sent since)
    once its token is no longer the seat's, or within a heartbeat once the account token that opened
    it is revoked."""
    seat = grant.seat
    yield f"retry: 3000\n: following game {game_id} after version {after}\n\n".encode()
    if timed:
        yield b"event: clock\ndata: %s\n\n" % orjson.dumps(svc.deadlines.clock_of(game_id))
    last = after
    check = svc.queries.credential_check(grant, heartbeat)
    with (
        svc.queries.follow(game_id, after) as subscription,
        (watch or _no_watch)(subscription.interrupt) as client,
        check.watching(subscription.interrupt),
    ):
        while not client.gone:
            items, status, version = svc.queries.wait_for_events(
                game_id, seat, last, check.bound(heartbeat), subscription, name
            )
            if client.gone:
                return
            revoked = check.due()
            if revoked is not None:
                yield sse.revoked_message(revoked)
                return
            if items and status != "finished":
                revoked = svc.queries.stream_revocation(game_id, grant, items[-1]["version"])
                if revoked is not None:
                    yield sse.revoked_message(revoked)
                    return
            chunks = []
            for item in items:
                last = item["version"]
                chunks.append(b"id: %d\ndata: %s\n\n" % (last, orjson.dumps(item)))
            if chunks:
                if timed:
                    chunks.append(
                        b"event: clock\ndata: %s\n\n" % orjson.dumps(svc.deadlines.clock_of(game_id))
                    )
                yield b"".join(chunks)
            if status == "finished" and last >= version:
                yield b"event: end\ndata: %s\n\n" % orjson.dumps({"status": status, "version": version})
                return
            if not items:
                yield b": heartbeat\n\n"


def _no_watch(wake: Callable[[], None]) -> HangUpWatch:
    return PLAIN.hang_up_watch({}, wake)


def _view_sse(
    svc: GameService,
    game_id: str,
    grant: StreamGrant,
    known: int | None,
    heartbeat: float,
    current: CachedGame | None = None,
) -> Iterator[bytes]:
    """The viewer's view now and after every change; each message is a whole view, encoded once per
    process for this viewer and version (never for another viewer). ``current``: the game as the
    request that authenticated the viewer read it (``GameService.open_view_stream``). Ends with
    ``event: revoked`` once the seat's token is no longer the one that opened the stream."""
    yield sse.RETRY
    last = None
    for update in svc.queries.view_updates(game_id, grant, known, heartbeat, current):
        if update is None:
            yield sse.HEARTBEAT
            continue
        if update.revoked is not None:
            yield sse.revoked_message(update.revoked)
            return
        last = update
        yield sse.view_message(update)
    if last is None or last.status == "finished":
        yield sse.END
