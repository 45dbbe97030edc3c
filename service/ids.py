"""Game ids: 20 characters of Crockford base32, time first (milliseconds), then 50 random bits. Sorting
ids sorts games by creation time, which the cross-game index uses for "newest first" paging."""

from __future__ import annotations

import re
import secrets
import time

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
GAME_ID_PATTERN = re.compile(r"^[0-9a-hjkmnp-tv-z]{20}$")


def _encode(number: int, length: int) -> str:
    chars = []
    for _ in range(length):
        chars.append(_ALPHABET[number & 31])
        number >>= 5
    return "".join(reversed(chars))


def new_game_id() -> str:
    return _encode(time.time_ns() // 1_000_000, 10) + _encode(secrets.randbits(50), 10)


def is_game_id(value: str) -> bool:
    return bool(GAME_ID_PATTERN.match(value))
