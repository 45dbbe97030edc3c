"""Seats changing hands around a game's life: a seat left before the start, and the rematch offer of
a finished game. Each is one script on the game's own slot (``{g:<id>}``), so it is Cluster-safe.

``game:{g:<id>}:rematch`` (hash)
    ``seat:<s>`` -> ``1`` for each seat that accepted the rematch (bots are written with the first
    offer); ``token:<s>`` -> the hash of the token issued for seat ``s`` of the rematch (to the
    person who accepted for it); ``game`` -> the new game's id, from the acceptance that completed
    the set (the ``rematch`` follow-up creates it). Expires with the finished game's keys'
    horizon (``REMATCH_TTL_S``): an offer is for the players still at the table.
``game:{g:<id>}:rematch-news`` (stream, capped)
    one entry per change of the offer (an acceptance, the new game): what wakes the finished game's
    streams that follow the rematch (``service.live.LiveHub.follow_feed``); they read the hash.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import redis

from store.keys import game_keys
from store.outbox import HINTS, due_key, followup_args, now_ms, slot_of
from store.scripts import _WRITE_EVENTS, ScriptCall, bind

REMATCH_TTL_S = 24 * 3600


def rematch_key(game_id: str) -> str:
    return f"game:{{g:{game_id}}}:rematch"


def news_key(game_id: str) -> str:
    return f"game:{{g:{game_id}}}:rematch-news"


NEWS_KEPT = 16


# KEYS: meta, seats, outbox, due set of the game's slot. ARGV: 1 seat, 2 the seat's token hash as
# the caller read it, 3 now (ISO), then the follow-up (record_followups: ``lobby``, the live lobby
# told the seat is free). The hash is compared again here, so a seat claimed anew since the caller's
# read is never freed.
_LEAVE = (
    _WRITE_EVENTS
    + r"""
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
record_followups(KEYS[3], KEYS[4], 4)
return {'left', account}
"""
)

# KEYS: rematch, news, the finished game's outbox, its slot's due set. ARGV: 1 seat accepting, 2 ttl
# (s), 3 seat count, 4 the new game's id as this caller drew it (kept only by the acceptance that
# completes the set), 5 the accepting seat's seat in the rematch, 6 the hash of the token it gets for
# it, 7 number b of bot seats, the bot seats, then the follow-up (record_followups: ``rematch``).
# The acceptance that completes the set records the new game's id and the follow-up that creates it
# in this one step: a process killed after it leaves the creation to the janitor, never half-done.
# Returns the outcome ('accepted': others are awaited; 'completed': this acceptance completed the
# set; 'created': the set was complete before, nothing changed), the new game's id, the seats that
# accepted.
_ACCEPT = (
    _WRITE_EVENTS
    + r"""
local key = KEYS[1]
local count = tonumber(ARGV[3])
local function accepted_seats()
  local accepted = {}
  for s = 0, count - 1 do
    if redis.call('HEXISTS', key, 'seat:' .. s) == 1 then
      table.insert(accepted, s)
    end
  end
  return accepted
end
local made = redis.call('HGET', key, 'game')
if made then
  return {'created', made, accepted_seats()}
end
local bots = tonumber(ARGV[7])
for i = 8, 7 + bots do
  redis.call('HSET', key, 'seat:' .. ARGV[i], '1')
end
redis.call('HSET', key, 'seat:' .. ARGV[1], '1', 'token:' .. ARGV[5], ARGV[6])
redis.call('EXPIRE', key, tonumber(ARGV[2]))
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 16, '*', 'seat', ARGV[1])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[2]))
local accepted = accepted_seats()
if #accepted < count then
  return {'accepted', '', accepted}
end
redis.call('HSET', key, 'game', ARGV[4])
record_followups(KEYS[3], KEYS[4], 8 + bots)
return {'completed', ARGV[4], accepted}
"""
)


@dataclass(frozen=True, slots=True)
class LeaveCall(ScriptCall):
    """:data:`_LEAVE`: a seat of an open game freed if it still holds the token, with its follow-up."""

    SCRIPT: ClassVar[str] = _LEAVE
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("meta", "seats", "outbox", "due")
    meta: str
    seats: str
    outbox: str
    due: str
    seat: int
    token_hash: str
    now: str
    rest: Sequence[Any]  # the follow-up (followup_args)


@dataclass(frozen=True, slots=True)
class AcceptCall(ScriptCall):
    """:data:`_ACCEPT`: a seat's acceptance of a rematch (and, completing the set, its creation's
    follow-up)."""

    SCRIPT: ClassVar[str] = _ACCEPT
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("rematch", "news", "outbox", "due")
    rematch: str
    news: str
    outbox: str
    due: str
    seat: int
    ttl_s: int
    seat_count: int
    new_game_id: str
    new_seat: int
    token_hash: str
    bot_count: int
    rest: Sequence[Any]  # the bot seats, then the follow-up (followup_args)


@dataclass(frozen=True)
class Rematch:
    outcome: str  # accepted (others awaited), completed (by this call), created (before it), none
    game: str | None
    accepted: tuple[int, ...]
    token_hashes: dict[int, str] = field(default_factory=dict)  # rematch seat -> its token's hash


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class SeatChanges:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._leave = bind(client, LeaveCall)
        self._accept = bind(client, AcceptCall)

    def leave(
        self, game_id: str, seat: int, token_hash: str, now: str, followups: Mapping[str, Any], grace_ms: int
    ) -> tuple[str, str]:
        """Free ``seat`` of an open game if it still holds ``token_hash``, recording ``followups``
        with it: (outcome, its account or ''); outcome ``left``, ``not_found``, ``not_open`` or
        ``not_yours``."""
        keys = game_keys(game_id)
        reply = self._leave(
            LeaveCall(
                keys.meta,
                keys.seats,
                keys.outbox,
                due_key(game_id),
                seat,
                token_hash,
                now,
                followup_args(game_id, dict(followups), grace_ms),
            )
        )
        outcome = _text(reply[0])
        if outcome == "left":
            self.redis.zadd(HINTS, {str(slot_of(game_id)): now_ms() + grace_ms})
        return outcome, _text(reply[1]) if len(reply) > 1 else ""

    def accept_rematch(
        self,
        game_id: str,
        seat: int,
        seat_count: int,
        bots: Iterable[int],
        *,
        new_game_id: str,
        new_seat: int,
        token_hash: str,
        grace_ms: int,
    ) -> Rematch:
        """``seat`` accepts; its seat ``new_seat`` of the rematch gets ``token_hash``. The acceptance
        that completes the set records ``new_game_id`` and the ``rematch`` follow-up of ``game_id``
        (``service.rematch``: it creates that game) in the same step."""
        bot_seats = list(bots)
        keys = game_keys(game_id)
        reply = self._accept(
            AcceptCall(
                rematch_key(game_id),
                news_key(game_id),
                keys.outbox,
                due_key(game_id),
                seat,
                REMATCH_TTL_S,
                seat_count,
                new_game_id,
                new_seat,
                token_hash,
                len(bot_seats),
                [*bot_seats, *followup_args(game_id, {"rematch": 1}, grace_ms)],
            )
        )
        outcome = _text(reply[0])
        if outcome == "completed":
            # The slot's hint, after the script (store.outbox: a hint lost to a crash is found by
            # the janitor's full scan).
            self.redis.zadd(HINTS, {str(slot_of(game_id)): now_ms() + grace_ms})
        made = _text(reply[1])
        return Rematch(outcome, made or None, tuple(int(s) for s in reply[2]))

    def rematch_made(self, game_id: str, new_game_id: str) -> None:
        """Wake the finished game's streams that follow the offer: its rematch exists."""
        self.redis.xadd(news_key(game_id), {"game": new_game_id}, maxlen=NEWS_KEPT, approximate=True)

    def news_last_id(self, game_id: str) -> str:
        rows = self.redis.xrevrange(news_key(game_id), "+", "-", count=1)
        return _text(rows[0][0]) if rows else "0-0"

    def rematch(self, game_id: str, seat_count: int) -> Rematch:
        raw = {_text(k): _text(v) for k, v in self.redis.hgetall(rematch_key(game_id)).items()}
        accepted = tuple(s for s in range(seat_count) if f"seat:{s}" in raw)
        made = raw.get("game")
        hashes = {int(k[6:]): v for k, v in raw.items() if k.startswith("token:")}
        return Rematch("created" if made else "accepted" if accepted else "none", made, accepted, hashes)
