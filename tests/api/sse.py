"""A small Server-Sent Events reader for tests."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass
class Message:
    id: int | None
    event: str
    data: dict | None
    comment: str | None = None


def parse_block(block: str) -> Message:
    fields: dict[str, str] = {}
    comment = None
    for line in block.split("\n"):
        if line.startswith(":"):
            comment = line[1:].strip()
            continue
        name, _, value = line.partition(":")
        fields[name] = value[1:] if value.startswith(" ") else value
    return Message(
        id=int(fields["id"]) if "id" in fields else None,
        event=fields.get("event", "message"),
        data=json.loads(fields["data"]) if "data" in fields else None,
        comment=comment,
    )


def read_messages(chunks, stop=None):
    """Yield messages from an iterable of byte chunks (``stop(message)`` ends early)."""
    buffer = ""
    for chunk in chunks:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            message = parse_block(block)
            yield message
            if stop is not None and stop(message):
                return
