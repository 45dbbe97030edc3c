"""The live lobby's stream (Server-Sent Events). Thin: HTTP <-> :class:`service.lobby.LobbyService`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

from flask import Response, current_app, request
from flask.views import MethodView

from api.common import Blueprint, feed_resume_point
from api.sse import sse_content
from api.transport import transport
from schemas.common import STREAM_ID_PATTERN
from schemas.stream_messages import LOBBY_EVENTS
from service.lobby import LobbyService

blp = Blueprint("lobby", __name__, url_prefix="/v1/lobby", description="The live lobby")

LOBBY_STREAM = (
    "text/event-stream: first `event: lobby` (LobbySnapshot: open games, open challenges, seeks; no id), "
    "then `event: game` (LobbyGameEvent), `challenge` (LobbyChallengeEvent) and `seek` (LobbySeekEvent), "
    "each with an `id:` to resume from (`Last-Event-ID`)"
)


def lobby() -> LobbyService:
    """The app's lobby service (built by the composition root, ``service.composition``)."""
    return cast(LobbyService, current_app.extensions["lobby_service"])


@blp.route("/stream")
class LobbyStream(MethodView):
    @blp.response(200, description=LOBBY_STREAM, content_type="text/event-stream")
    @blp.problems(422, 429)
    @blp.doc(
        responses={
            200: sse_content(
                LOBBY_EVENTS,
                "Server-Sent Events; `retry:` and `: heartbeat` lines besides",
                STREAM_ID_PATTERN,
            )
        },
        parameters=[
            {
                "name": "Last-Event-ID",
                "in": "header",
                "required": False,
                "schema": {"type": "string"},
                "description": "Resume after this change (an `id:` the stream sent); an id no feed "
                "entry can have (parts beyond 64 bits) is a 422",
            }
        ],
    )
    def get(self) -> Response:
        """Open games, open challenges and seeks as they are added, change and go: one stream, so
        bots and browsers stop polling."""
        after = feed_resume_point("Not a lobby id.")
        heartbeat = float(current_app.config["SSE_HEARTBEAT_SECONDS"])
        environ, edge = request.environ, transport()
        response = Response(_sse(lobby(), after, heartbeat, environ, edge), mimetype="text/event-stream")
        response.headers.update({"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        return response


def _sse(svc: LobbyService, after: str | None, heartbeat: float, environ: Any, edge: Any) -> Iterator[bytes]:
    yield b"retry: 3000\n: the lobby\n\n"
    with svc.follow() as feed, edge.hang_up_watch(environ, feed.interrupt) as client:
        for item in svc.stream(after, heartbeat, feed, gone=lambda: client.gone):
            if item is None:
                yield b": heartbeat\n\n"
                continue
            kind, entry_id, data = item
            head = b"" if entry_id is None else b"id: %s\n" % entry_id.encode()
            yield head + b"event: %s\ndata: %s\n\n" % (kind.encode(), data)
