"""A game's chat rooms in Redis, beside the game in its slot (``{g:<id>}``).

``game:{g:<id>}:chat:<room>`` (stream, capped at about :data:`ROOM_LENGTH` messages) per room
(``players``, ``spectators``); ``game:{g:<id>}:chat:rate:<sender>`` (counter) the sender's recent
messages; ``game:{g:<id>}:chat:muted:<seat>`` (set) the seats a player muted. A message is
written by one script that counts it against the sender's rate first: a refused message writes
nothing, and no two processes can both let a flood through.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson
import redis

from store.scripts import ScriptCall, bind

ROOM_LENGTH = 500


def room_key(game_id: str, room: str) -> str:
    return f"game:{{g:{game_id}}}:chat:{room}"


def rate_key(game_id: str, sender: str) -> str:
    return f"game:{{g:{game_id}}}:chat:rate:{sender}"


def muted_key(game_id: str, seat: int) -> str:
    return f"game:{{g:{game_id}}}:chat:muted:{seat}"


# KEYS: room, rate. ARGV: 1 most messages per window, 2 window (ms), 3 message JSON, 4 room length.
_POST = r"""
local sent = tonumber(redis.call('GET', KEYS[2]) or '0')
if sent >= tonumber(ARGV[1]) then
  return {'flood', redis.call('PTTL', KEYS[2])}
end
if redis.call('INCR', KEYS[2]) == 1 then
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return {'ok', redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[4], '*', 'm', ARGV[3])}
"""


@dataclass(frozen=True, slots=True)
class PostCall(ScriptCall):
    """:data:`_POST`: a message posted unless its sender floods the room."""

    SCRIPT: ClassVar[str] = _POST
    KEYS: ClassVar[tuple[str, ...]] = ("room", "rate")
    room: str
    rate: str
    most: int
    window_ms: int
    message_json: bytes
    room_length: int
    rest: Sequence[Any] = ()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class ChatStore:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._post = bind(client, PostCall)

    def post(
        self, game_id: str, room: str, sender: str, message: Mapping[str, Any], most: int, window_ms: int
    ) -> tuple[str, Any]:
        """('ok', entry id) or ('flood', ms until the sender may write again)."""
        reply = self._post(
            PostCall(
                room_key(game_id, room),
                rate_key(game_id, sender),
                most,
                window_ms,
                orjson.dumps(dict(message)),
                ROOM_LENGTH,
            )
        )
        return _text(reply[0]), (_text(reply[1]) if isinstance(reply[1], bytes) else reply[1])

    def after(
        self, game_id: str, room: str, after: str | None, count: int = 100
    ) -> list[tuple[str, dict[str, Any]]]:
        low = f"({after}" if after else "-"
        rows = self.redis.xrange(room_key(game_id, room), low, "+", count=count)
        return [(_text(i), orjson.loads(f[b"m"] if b"m" in f else f["m"])) for i, f in rows]

    def last_id(self, game_id: str, room: str) -> str:
        rows = self.redis.xrevrange(room_key(game_id, room), "+", "-", count=1)
        return _text(rows[0][0]) if rows else "0-0"

    def set_muted(self, game_id: str, seat: int, other: int, muted: bool) -> None:
        if muted:
            self.redis.sadd(muted_key(game_id, seat), other)
        else:
            self.redis.srem(muted_key(game_id, seat), other)

    def muted(self, game_id: str, seat: int) -> set[int]:
        return {int(m) for m in self.redis.smembers(muted_key(game_id, seat))}
