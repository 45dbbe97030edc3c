"""Game ids: 20 characters of Crockford base32, time first (milliseconds), then a 50-bit part drawn as 49
random bits (the spare bit leaves room to count up within a millisecond). Sorting
ids sorts games by creation time, which the cross-game index uses for "newest first" paging."""

from __future__ import annotations

import re
import secrets
import threading
import time

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
GAME_ID_PATTERN = re.compile(r"^[0-9a-hjkmnp-tv-z]{20}$")


def _encode(number: int, length: int) -> str:
    chars = []
    for _ in range(length):
        chars.append(_ALPHABET[number & 31])
        number >>= 5
    return "".join(reversed(chars))


_lock = threading.Lock()
_last = (0, 0)


def new_game_id() -> str:
    """Monotonic within a process (as ULIDs): within one millisecond the random part counts up, so
    games created by one process list in creation order; across processes a millisecond may tie."""
    global _last
    with _lock:
        millis = time.time_ns() // 1_000_000
        last_millis, last_random = _last
        if millis <= last_millis and last_random + 1 < 2**50:
            millis, rand = last_millis, last_random + 1
        else:
            rand = secrets.randbits(49)  # leaves room to count up within the millisecond
        _last = (millis, rand)
    return _encode(millis, 10) + _encode(rand, 10)


def is_game_id(value: str) -> bool:
    return bool(GAME_ID_PATTERN.match(value))
