"""Reading an SSE response in tests with a bound that holds while only heartbeats arrive."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any


def events(response: Any) -> Iterator[tuple[str, str | None, Any] | None]:
    """(event, id, data) of each message with data; None for each comment (a heartbeat)."""
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            fields: dict[str, str] = {}
            for line in block.split("\n"):
                if line.startswith(":") or not line:
                    continue
                name, _, value = line.partition(":")
                fields[name] = value[1:] if value.startswith(" ") else value
            if "data" in fields:
                yield fields.get("event", "message"), fields.get("id"), json.loads(fields["data"])
            else:
                yield None


def first_of(response: Any, kind: str, bound: float = 60.0) -> Any:
    """The data of the first message of ``kind``: fails after ``bound`` seconds (heartbeats keep
    the check running)."""
    started = time.monotonic()
    for message in events(response):
        if message is not None and message[0] == kind:
            return message[2]
        assert time.monotonic() - started < bound, f"no {kind} within {bound} s"
    raise AssertionError(f"the stream ended before {kind}")
