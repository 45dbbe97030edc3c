"""The messages of the live streams (Server-Sent Events), as bytes: what the routes' iterators send
and what the play edge (:mod:`api.edge.view_push`) writes to a pushed stream's socket, so the two
send the same bytes; and how OpenAPI describes a stream's answer (:func:`sse_content`). No Flask and
no transport here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from service.games import ViewUpdate

RETRY = b"retry: 3000\n\n"
HEARTBEAT = b": heartbeat\n\n"
END = b"event: end\ndata: {}\n\n"


def revoked_message(reason: str) -> bytes:
    """The last message of a seat's stream whose token is no longer the seat's (rotated, the seat
    resigned or handed to a bot): the client stops, and reconnects only with the new token."""
    return b"event: revoked\ndata: %s\n\n" % orjson.dumps({"reason": reason})


def view_message(update: ViewUpdate) -> bytes:
    return b"id: %d\nevent: view\ndata: %s\n\n" % (update.version, update.body)


def sse_content(events: dict[str, str], description: str, id_pattern: str = "^[0-9]+$") -> dict[str, Any]:
    """A ``text/event-stream`` answer's content: ``schema`` is one event (as schemathesis and
    OpenAPI 3.2's ``itemSchema`` read a stream), by its ``event:`` name (``message`` for an event
    without one), its ``data:`` a JSON document of the named component. Blocks without data
    (``retry:``) are events too."""
    variants: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {
                "event": {"type": "string", "const": name},
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": {"$ref": f"#/components/schemas/{component}"},
                },
                "id": {"type": "string", "pattern": id_pattern},
                "retry": {"type": "integer"},
            },
            "required": ["event", "data"],
        }
        for name, component in events.items()
    ]
    variants.append(
        {
            "type": "object",
            "properties": {
                "event": {"type": "string"},
                "id": {"type": "string"},
                "retry": {"type": "integer", "description": "Milliseconds before a reconnection"},
            },
            "additionalProperties": False,  # no data: the stream's first block (retry:)
        }
    )
    return {
        "content": {
            "text/event-stream": {"schema": {"anyOf": variants, "description": description}},
        }
    }
