"""Seats changing hands around a game's life: a seat left before the start, and the rematch offer of
a finished game. Each is one script on the game's own slot (``{g:<id>}``), so it is Cluster-safe.

``game:{g:<id>}:rematch`` (hash)
    ``seat:<s>`` -> ``1`` for each seat that accepted the rematch (bots are written with the first
    offer); ``creating`` -> ms when the acceptance that completed the set began creating the new
    game; ``game`` -> the new game's id once it exists. Expires with the finished game's keys'
    horizon (``REMATCH_TTL_S``): an offer is for the players still at the table.
``game:{g:<id>}:rematch-news`` (stream, capped)
    one entry per change of the offer (an acceptance, the new game): what wakes the finished game's
    streams that follow the rematch (``service.live.LiveHub.follow_feed``); they read the hash.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import redis

from store.keys import game_keys
from store.scripts import ScriptCall, bind

REMATCH_TTL_S = 24 * 3600


def rematch_key(game_id: str) -> str:
    return f"game:{{g:{game_id}}}:rematch"


def news_key(game_id: str) -> str:
    return f"game:{{g:{game_id}}}:rematch-news"


NEWS_KEPT = 16


# KEYS: meta, seats. ARGV: 1 seat, 2 the seat's token hash as the caller read it, 3 now (ISO).
# The hash is compared again here, so a seat claimed anew since the caller's read is never freed.
_LEAVE = r"""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then
  return {'not_found'}
end
if status ~= 'open' then
  return {'not_open'}
end
local stored = redis.call('HGET', KEYS[2], ARGV[1])
if (not stored) or stored ~= ARGV[2] then
  return {'not_yours'}
end
local account = redis.call('HGET', KEYS[1], 'account:' .. ARGV[1]) or ''
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[1], 'name:' .. ARGV[1], 'kind:' .. ARGV[1], 'bot:' .. ARGV[1], 'account:' .. ARGV[1])
redis.call('HSET', KEYS[1], 'updated', ARGV[3])
return {'left', account}
"""

# KEYS: rematch, news. ARGV: 1 seat accepting, 2 now (ms), 3 stale-creation age (ms), 4 ttl (s), 5 seat
# count, then the bot seats. Returns the outcome ('accepted', 'create' for the one acceptance that
# must create the game, 'created' with its id), then the seats that accepted.
_ACCEPT = r"""
local key = KEYS[1]
for i = 6, #ARGV do
  redis.call('HSET', key, 'seat:' .. ARGV[i], '1')
end
redis.call('HSET', key, 'seat:' .. ARGV[1], '1')
redis.call('EXPIRE', key, tonumber(ARGV[4]))
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 16, '*', 'seat', ARGV[1])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[4]))
local made = redis.call('HGET', key, 'game')
local accepted = {}
for s = 0, tonumber(ARGV[5]) - 1 do
  if redis.call('HEXISTS', key, 'seat:' .. s) == 1 then
    table.insert(accepted, s)
  end
end
if made then
  return {'created', made, accepted}
end
if #accepted < tonumber(ARGV[5]) then
  return {'accepted', '', accepted}
end
local creating = tonumber(redis.call('HGET', key, 'creating') or '0')
if creating > 0 and tonumber(ARGV[2]) - creating < tonumber(ARGV[3]) then
  return {'accepted', '', accepted}
end
redis.call('HSET', key, 'creating', ARGV[2])
return {'create', '', accepted}
"""


@dataclass(frozen=True, slots=True)
class LeaveCall(ScriptCall):
    """:data:`_LEAVE`: a seat of an open game freed if it still holds the token."""

    SCRIPT: ClassVar[str] = _LEAVE
    KEYS: ClassVar[tuple[str, ...]] = ("meta", "seats")
    meta: str
    seats: str
    seat: int
    token_hash: str
    now: str
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class AcceptCall(ScriptCall):
    """:data:`_ACCEPT`: a seat's acceptance of a rematch."""

    SCRIPT: ClassVar[str] = _ACCEPT
    KEYS: ClassVar[tuple[str, ...]] = ("rematch", "news")
    rematch: str
    news: str
    seat: int
    now_ms: int
    stale_ms: int
    ttl_s: int
    seat_count: int
    rest: Sequence[Any]  # the bot seats


@dataclass(frozen=True)
class Rematch:
    outcome: str  # accepted (waiting for others), create (this caller creates it), created
    game: str | None
    accepted: tuple[int, ...]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class SeatChanges:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._leave = bind(client, LeaveCall)
        self._accept = bind(client, AcceptCall)

    def leave(self, game_id: str, seat: int, token_hash: str, now: str) -> tuple[str, str]:
        """Free ``seat`` of an open game if it still holds ``token_hash``: (outcome, its account or
        ''); outcome ``left``, ``not_found``, ``not_open`` or ``not_yours``."""
        keys = game_keys(game_id)
        reply = self._leave(LeaveCall(keys.meta, keys.seats, seat, token_hash, now))
        return _text(reply[0]), _text(reply[1]) if len(reply) > 1 else ""

    def accept_rematch(
        self, game_id: str, seat: int, seat_count: int, bots: Iterable[int], now_ms: int, stale_ms: int
    ) -> Rematch:
        reply = self._accept(
            AcceptCall(
                rematch_key(game_id),
                news_key(game_id),
                seat,
                now_ms,
                stale_ms,
                REMATCH_TTL_S,
                seat_count,
                list(bots),
            )
        )
        made = _text(reply[1])
        return Rematch(_text(reply[0]), made or None, tuple(int(s) for s in reply[2]))

    def rematch_made(self, game_id: str, new_game_id: str) -> None:
        with self.redis.pipeline(transaction=True) as pipe:  # one slot: the game's
            pipe.hset(rematch_key(game_id), "game", new_game_id)
            pipe.xadd(news_key(game_id), {"game": new_game_id}, maxlen=NEWS_KEPT, approximate=True)
            pipe.execute()

    def news_last_id(self, game_id: str) -> str:
        rows = self.redis.xrevrange(news_key(game_id), "+", "-", count=1)
        return _text(rows[0][0]) if rows else "0-0"

    def rematch(self, game_id: str, seat_count: int) -> Rematch:
        raw = {_text(k): _text(v) for k, v in self.redis.hgetall(rematch_key(game_id)).items()}
        accepted = tuple(s for s in range(seat_count) if f"seat:{s}" in raw)
        made = raw.get("game")
        return Rematch("created" if made else "accepted" if accepted else "none", made, accepted)
