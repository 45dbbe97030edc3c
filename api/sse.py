"""The messages of the live streams (Server-Sent Events), as bytes: what the routes' iterators send
and what the play edge (:mod:`api.edge.view_push`) writes to a pushed stream's socket, so the two
send the same bytes. No Flask and no transport here."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
