"""A game's chat: post, read, follow (SSE) a room; mute a seat. Thin: HTTP <->
:class:`service.chat.ChatService`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import orjson
from flask import Response, current_app, request
from flask.views import MethodView

from api.common import Blueprint, bearer_token, feed_resume_point, json_response
from api.sse import sse_content
from api.transport import transport
from schemas.chat import (
    ChatMessageSchema,
    ChatPageSchema,
    ChatQuery,
    MutedSeatsSchema,
    MuteRequest,
    PostChatRequest,
)
from schemas.common import STREAM_ID_PATTERN
from schemas.stream_messages import CHAT_EVENTS
from service.chat import ChatService

blp = Blueprint("chat", __name__, url_prefix="/v1/games", description="Chat at a game")

ROOM = "<any(players, spectators):room>"
AUTH: list[dict[str, list[str]]] = [{"seatToken": []}, {"accountToken": []}]


def chat() -> ChatService:
    """The app's chat service (built by the composition root, ``service.composition``)."""
    return cast(ChatService, current_app.extensions["chat_service"])


@blp.route(f"/<string:game_id>/chat/{ROOM}")
class Room(MethodView):
    @blp.arguments(ChatQuery(), location="query")
    @blp.response(200, ChatPageSchema)
    @blp.problems(401, 403, 404, 422, 429)
    @blp.doc(security=[])
    def get(self, query: dict[str, Any], game_id: str, room: str) -> Response:
        """A room's messages after `after` (oldest first, at most 100). The players' room: the
        game's seats only (a seat token or a seated account's token); a seat you muted is left out."""
        messages = chat().read(game_id, bearer_token(), room, query.get("after"))
        return json_response({"messages": messages}, 200, {"Cache-Control": "no-store"})

    @blp.arguments(PostChatRequest())
    @blp.response(201, ChatMessageSchema)
    @blp.problems(400, 401, 403, 404, 413, 415, 422, 429)
    @blp.doc(security=AUTH)
    def post(self, body: dict[str, Any], game_id: str, room: str) -> Response:
        """Write in a room: the players' room as a seat, the spectators' room as a signed-in
        account holding no seat. 1-300 characters, no control characters; at most 5 messages
        every 10 s (429 `CHAT_RATE_LIMITED`)."""
        return json_response(chat().post(game_id, bearer_token(), room, body["text"]), 201)


@blp.route(f"/<string:game_id>/chat/{ROOM}/stream")
class RoomStream(MethodView):
    @blp.response(
        200,
        description="text/event-stream: `event: chat` (ChatMessage) with an `id:` to resume from",
        content_type="text/event-stream",
    )
    @blp.problems(401, 403, 404, 422)
    @blp.doc(
        security=[],
        responses={
            200: sse_content(
                CHAT_EVENTS,
                "Server-Sent Events; `retry:` and `: heartbeat` lines besides",
                STREAM_ID_PATTERN,
            )
        },
    )
    def get(self, game_id: str, room: str) -> Response:
        """A room's new messages as they come (Server-Sent Events); `Last-Event-ID` resumes."""
        token = bearer_token()
        svc = chat()
        after = feed_resume_point("Not a message id.")
        svc.read(game_id, token, room, "9999999999999-0")  # may this reader read the room? (reads nothing)
        heartbeat = float(current_app.config["SSE_HEARTBEAT_SECONDS"])
        environ, edge = request.environ, transport()
        last = after or svc.store.last_id(game_id, room)

        def stream() -> Iterator[bytes]:
            position = last
            yield b"retry: 3000\n: chat\n\n"
            with svc.follow(game_id, room) as feed, edge.hang_up_watch(environ, feed.interrupt) as client:
                while not client.gone:
                    messages = svc.read(game_id, token, room, position)
                    for message in messages:
                        position = message["id"]
                        yield b"id: %s\nevent: chat\ndata: %s\n\n" % (
                            message["id"].encode(),
                            orjson.dumps(message),
                        )
                    if not messages and not feed.wait(heartbeat):
                        yield b": heartbeat\n\n"

        response = Response(stream(), mimetype="text/event-stream")
        response.headers.update(
            {"Cache-Control": "no-store", "X-Accel-Buffering": "no", "Vary": "Authorization"}
        )
        return response


@blp.route("/<string:game_id>/chat/mute")
class Mute(MethodView):
    @blp.arguments(MuteRequest())
    @blp.response(200, MutedSeatsSchema)
    @blp.problems(400, 401, 403, 404, 413, 415, 422, 429)
    @blp.doc(security=AUTH)
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """A player mutes (or, with `muted: false`, unmutes) another seat in its reading of the rooms."""
        return json_response({"muted": chat().mute(game_id, bearer_token(), body["seat"], body["muted"])})
