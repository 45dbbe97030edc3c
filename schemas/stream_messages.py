"""One message of the live lobby's stream (GET /v1/lobby/stream) and of a chat room's
(GET /v1/games/{id}/chat/{room}/stream) as a client holds it once read: the SSE ``event:`` name,
its ``id:`` and its ``data:`` decoded into the event's component. The lobby's payloads carry no
``type`` of their own (their ``event:`` line names them, and a withdrawal's ``data`` is null in
each), so the lobby's union is discriminated by the message's ``event``: a generated client
narrows a message by its name, never by guessing from the payload's shape.

The routes' ``sse_content`` documents each answer from the same tables (:data:`LOBBY_EVENTS`,
:data:`CHAT_EVENTS`), so the stream and its message components cannot name different payloads."""

from __future__ import annotations

from typing import Any

# Event name -> the component of its `data`.
LOBBY_EVENTS = {
    "lobby": "LobbySnapshot",
    "game": "LobbyGameEvent",
    "challenge": "LobbyChallengeEvent",
    "seek": "LobbySeekEvent",
}
CHAT_EVENTS = {"chat": "ChatMessage"}

COMPONENTS = "#/components/schemas/"


def _message(event: str, data: str, identifier: dict[str, Any], description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "description": description,
        "properties": {
            "event": {"type": "string", "const": event},
            "id": identifier,
            "data": {"$ref": COMPONENTS + data},
        },
        "required": ["event", "id", "data"],
    }


def _lobby_message_name(event: str) -> str:
    return LOBBY_EVENTS[event].removesuffix("Event") + "Message"  # LobbySnapshotMessage, LobbyGameMessage


def components() -> dict[str, dict[str, Any]]:
    """The message components, by name: one per lobby event, their union (``LobbyStreamMessage``)
    and the chat room's (``ChatStreamMessage``)."""
    found: dict[str, dict[str, Any]] = {}
    for event, data in LOBBY_EVENTS.items():
        # The snapshot has no id (it is no change to resume after); every change has one.
        identifier = {"type": "null"} if event == "lobby" else {"type": "string"}
        found[_lobby_message_name(event)] = _message(
            event, data, identifier, f"`event: {event}` of GET /v1/lobby/stream, `data` decoded"
        )
    found["LobbyStreamMessage"] = {
        "description": "One message of GET /v1/lobby/stream, by its `event:` name",
        "oneOf": [{"$ref": COMPONENTS + _lobby_message_name(event)} for event in LOBBY_EVENTS],
        "discriminator": {
            "propertyName": "event",
            "mapping": {event: COMPONENTS + _lobby_message_name(event) for event in LOBBY_EVENTS},
        },
    }
    found["ChatStreamMessage"] = _message(
        "chat",
        CHAT_EVENTS["chat"],
        {"type": "string"},
        "One message of GET /v1/games/{game_id}/chat/{room}/stream, `data` decoded (its `id` is the "
        "message's, what `Last-Event-ID` takes)",
    )
    return found
