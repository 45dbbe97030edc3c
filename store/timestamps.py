"""The one timestamp format of the API: RFC 3339, UTC, millisecond precision, ``Z`` suffix
(``2026-11-30T17:51:00.123Z``). Every stored or served moment goes through here, so a client parses
one format everywhere (game summaries, the archive, jobs)."""

from __future__ import annotations

import time
from datetime import UTC, datetime

# The last second formatted: every accepted move stamps the time, and strftime costs more than the
# rest of the stamp; moves within one second share the formatted part. (seconds, text), replaced whole.
_last_second: tuple[int, str] = (-1, "")


def from_ms(ms: int) -> str:
    """The RFC 3339 form of ``ms`` milliseconds since the epoch."""
    global _last_second
    seconds, millis = divmod(int(ms), 1000)
    cached_seconds, text = _last_second
    if cached_seconds != seconds:
        text = datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")
        _last_second = (seconds, text)
    return f"{text}.{millis:03d}Z"


def now() -> str:
    return from_ms(time.time_ns() // 1_000_000)


def to_ms(value: str) -> int:
    """Milliseconds since the epoch of an ISO 8601 / RFC 3339 time (naive means UTC)."""
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return round(moment.timestamp() * 1000)


def normalize(value: str | None) -> str | None:
    """``value`` in the API's format (for times stored before it was the only one)."""
    if not value:
        return value
    return from_ms(to_ms(value))
