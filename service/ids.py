"""Game ids: 20 characters of Crockford base32, time first (milliseconds), then a 50-bit part drawn as 49
random bits (the spare bit leaves room to count up within a millisecond). Sorting
ids sorts games by creation time, which the cross-game index uses for "newest first" paging."""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections.abc import Callable

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
# A placement hint that no id satisfies (a bug, or a slot count past what ids spread over) must
# never stall a create: after this many draws (about a millisecond; with 32 workers one create in
# 3,400 gets that far) the last id is taken whatever the hint says.
PLACEMENT_DRAWS = 256


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


def new_placed_game_id(placed: Callable[[str], bool]) -> str:
    """A new game id for which ``placed`` holds (the web server's choice of the worker that will serve
    the game, ``api.edge.affinity``), drawn again until it does: a hint, so after ``PLACEMENT_DRAWS``
    draws the last id is kept. Each draw is a new id, so the ids stay monotonic within a process."""
    game_id = new_game_id()
    for _ in range(PLACEMENT_DRAWS - 1):
        if placed(game_id):
            break
        game_id = new_game_id()
    return game_id


def derived_game_id(text: str) -> str:
    """A game id derived from ``text`` (the same text, the same id): for a game whose creation may
    be attempted twice, such as a tournament's table. Not time-ordered, which only the index's
    "newest first" paging notices."""
    digest = hashlib.sha256(text.encode()).digest()
    return _encode(int.from_bytes(digest[:13], "big"), 20)


def is_game_id(value: str) -> bool:
    return bool(GAME_ID_PATTERN.match(value))
