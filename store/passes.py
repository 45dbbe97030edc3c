"""Short-lived passes to a seat: stream tickets (``EventSource`` cannot send a header, so a seat's
stream is opened with a one-use ticket) and device links (a code that moves a seat to another
device). Both are kept as "seat:token hash" under a key that Redis expires, and are taken with
GETDEL, so one pass is used once even when two requests race for it; the token hash lets the
service void a pass whose token was rotated since it was made, and the credential (an account
token's ``<account id>.<token id>``, empty for a seat token) one whose account token was revoked.

A seat's device links are also listed (a sorted set by expiry, under the game's hash tag) so that a
seat holds at most :data:`MOST_DEVICE_LINKS` at once: a new one beyond it voids the oldest."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import redis

from store.keys import device_link, device_links_of_seat, stream_ticket
from store.scripts import ScriptCall, bind

MOST_DEVICE_LINKS = 5

# KEYS: the link, the seat's list of links; ARGV: 1 value, 2 ttl (s), 3 now (ms), 4 the most kept,
# 5 the link's key prefix (the list holds code hashes). Stores the link and voids the oldest beyond
# the bound (and the list's expired members).
_PUT_DEVICE_LINK = r"""
local ttl = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local code = string.sub(KEYS[1], #ARGV[5] + 1)
-- Scores are expiries and order the links by age: a link put in the same millisecond as the newest
-- one expires a millisecond after it, so "the oldest" is never a tie broken by the codes' letters.
local expiry = now + ttl * 1000
local newest = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if newest[2] and tonumber(newest[2]) >= expiry then expiry = tonumber(newest[2]) + 1 end
redis.call('ZADD', KEYS[2], expiry, code)
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if extra > 0 then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, extra - 1)
  for _, old in ipairs(oldest) do
    redis.call('DEL', ARGV[5] .. old)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
end
redis.call('PEXPIRE', KEYS[2], ttl * 1000)
return 1
"""


@dataclass(frozen=True, slots=True)
class PutDeviceLinkCall(ScriptCall):
    """:data:`_PUT_DEVICE_LINK`: a device link stored, the oldest beyond the bound voided."""

    SCRIPT: ClassVar[str] = _PUT_DEVICE_LINK
    KEYS: ClassVar[tuple[str, ...]] = ("link", "links")
    link: str
    links: str  # the seat's list of links
    value: str
    ttl_seconds: int
    now_ms: int
    most: int
    prefix: str  # the link's key prefix (the list holds code hashes)
    rest: Sequence[Any] = ()


class SeatPasses:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._put_device_link = bind(client, PutDeviceLinkCall)

    def put_stream_ticket(
        self,
        game_id: str,
        ticket_hash: str,
        seat: int,
        token_hash: str,
        ttl_seconds: int,
        credential: str = "",
    ) -> None:
        key = stream_ticket(game_id, ticket_hash)
        self.redis.set(key, _value(seat, token_hash, credential), ex=ttl_seconds)

    def take_stream_ticket(self, game_id: str, ticket_hash: str) -> tuple[int, str, str | None] | None:
        """The ticket's seat, token hash and credential (None: issued to a seat token); ``None``
        when unknown, expired or already used (or kept in the old form, a seat alone: such a ticket
        names no token, and lives 30 s)."""
        return self._take(stream_ticket(game_id, ticket_hash))

    def put_device_link(
        self, game_id: str, code_hash: str, seat: int, token_hash: str, ttl_seconds: int, credential: str = ""
    ) -> None:
        prefix = device_link(game_id, "")
        self._put_device_link(
            PutDeviceLinkCall(
                link=device_link(game_id, code_hash),
                links=device_links_of_seat(game_id, seat),
                value=_value(seat, token_hash, credential),
                ttl_seconds=ttl_seconds,
                now_ms=int(time.time() * 1000),
                most=MOST_DEVICE_LINKS,
                prefix=prefix,
            )
        )

    def take_device_link(self, game_id: str, code_hash: str) -> tuple[int, str, str | None] | None:
        """The link's seat, token hash and credential; ``None`` when unknown, expired or used."""
        return self._take(device_link(game_id, code_hash))

    def _take(self, key: str) -> tuple[int, str, str | None] | None:
        raw = self.redis.getdel(key)
        if raw is None:
            return None
        seat, _, rest = (raw.decode() if isinstance(raw, bytes) else raw).partition(":")
        token_hash, _, credential = rest.partition(":")
        if not token_hash:
            return None
        return int(seat), token_hash, credential or None


def _value(seat: int, token_hash: str, credential: str) -> str:
    return f"{seat}:{token_hash}:{credential}" if credential else f"{seat}:{token_hash}"
