"""The Lua scripts of the accounts (``store.accounts``) and their typed calls: each names the
script's KEYS and its ARGV in the order the Lua reads them (tests/store/test_script_calls.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from store.scripts import ScriptCall

# KEYS: handle key, ARGV: 1 account id, 2 the id the caller saw there ('' = none). Claims the handle
# when it is free or still names ``ARGV[2]`` (a dangling handle whose record expired).
_CLAIM_HANDLE = r"""
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[2] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1])
return 1
"""

# KEYS: handle key; ARGV: 1 the account id it must still name. Frees the handle (account deletion).
_RELEASE_HANDLE = r"""
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""

# KEYS: tokens, record; ARGV: 1 token id, 2 JSON, 3 kind, 4 the most tokens of that kind kept,
# 5 '1' to refuse a token beyond the bound (returns -1, nothing written), '0' to make room for it.
# Adds a token; when the account holds more than the bound of its kind, the oldest of that kind go.
_ADD_TOKEN = r"""
if redis.call('EXISTS', KEYS[2]) == 0 then
  return 0
end
local entries = redis.call('HGETALL', KEYS[1])
local mine = {}
for i = 1, #entries, 2 do
  local t = cjson.decode(entries[i + 1])
  if t.kind == ARGV[3] then
    mine[#mine + 1] = {entries[i], t.created}
  end
end
local bound = tonumber(ARGV[4])
if ARGV[5] == '1' and #mine >= bound then
  return -1
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
mine[#mine + 1] = {ARGV[1], cjson.decode(ARGV[2]).created}
if #mine > bound then
  table.sort(mine, function(a, b) return a[2] < b[2] end)
  for i = 1, #mine - bound do
    redis.call('HDEL', KEYS[1], mine[i][1])
  end
end
return 1
"""

# KEYS: games, finished, stats, feed, record, and the account's webhook subscriptions and fan-out
# cursor (``store.webhooks``: subs, cursor). ARGV: 1 game id, 2 JSON of the game as it is now
# for this account {seat, game, status, turn, version, deadline, result, won, finished_ms},
# 3 feed length. Compares it with what the account was last told (the ``games`` entry) and
# appends to the feed only what changed: game_started, your_turn, game_finished. Idempotent (an
# older or equal version changes nothing), so the follow-up that calls it may run twice.
# Returns {fed, the new entries' ids...}: fed is 1 when the fan-out has something to feed (a
# subscription and a cursor, the fan-out's own test), 0 when it would return at once; read in
# this step, whether or not anything was appended (a re-run after a crash still fans out).
_RECORD_GAME = r"""
if redis.call('EXISTS', KEYS[5]) == 0 then
  return {0}
end
local fed = 0
if redis.call('HLEN', KEYS[6]) > 0 and redis.call('EXISTS', KEYS[7]) == 1 then
  fed = 1
end
local now = cjson.decode(ARGV[2])
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local before = nil
if raw then
  before = cjson.decode(raw)
  if tonumber(before.version) > tonumber(now.version) then
    return {fed}
  end
  if tonumber(before.version) == tonumber(now.version) and before.status == now.status then
    return {fed}
  end
end
local was = before and before.status or 'none'
local ids = {fed}
local function emit(kind, body)
  local id = redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], '*', 't', kind, 'd', cjson.encode(body))
  ids[#ids + 1] = id
end
if now.status ~= 'open' and (was == 'open' or was == 'none') then
  emit('game_started', {game_id = ARGV[1], game = now.game, seat = now.seat, version = now.version})
end
if now.status == 'active' and now.turn and not (before and before.turn and was == 'active') then
  emit('your_turn', {game_id = ARGV[1], game = now.game, seat = now.seat, version = now.version,
                     deadline = now.deadline})
end
if now.status == 'finished' and was ~= 'finished' then
  emit('game_finished', {game_id = ARGV[1], game = now.game, seat = now.seat, version = now.version,
                         result = now.result, won = now.won})
  redis.call('ZADD', KEYS[2], now.finished_ms, ARGV[1])
  redis.call('HINCRBY', KEYS[3], 'played:' .. now.game, 1)
  if now.won then
    redis.call('HINCRBY', KEYS[3], 'won:' .. now.game, 1)
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return ids
"""

# KEYS: streams; ARGV: 1 stream id, 2 now (ms), 3 lease (ms), 4 the most streams open at once.
# Takes (or renews) a stream's lease; expired leases (a process killed with a stream open) are
# dropped first. Returns 1 when the stream may stay open.
_LEASE_STREAM = r"""
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('ZADD', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""


# KEYS: tokens, used; ARGV: token id, time pairs. A revoked token's last use is not written back.
_NOTE_USES = r"""
for i = 1, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  end
end
return 1
"""


# -- the typed calls ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClaimHandleCall(ScriptCall):
    """:data:`_CLAIM_HANDLE`: a handle pointed at an account when free (or dangling)."""

    SCRIPT: ClassVar[str] = _CLAIM_HANDLE
    KEYS: ClassVar[tuple[str, ...]] = ("handle",)
    handle: str
    account_id: str
    seen: str
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class ReleaseHandleCall(ScriptCall):
    """:data:`_RELEASE_HANDLE`: a handle freed if it still names the account."""

    SCRIPT: ClassVar[str] = _RELEASE_HANDLE
    KEYS: ClassVar[tuple[str, ...]] = ("handle",)
    handle: str
    account_id: str
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class AddTokenCall(ScriptCall):
    """:data:`_ADD_TOKEN`: a token added, the oldest of its kind dropped beyond the bound."""

    SCRIPT: ClassVar[str] = _ADD_TOKEN
    KEYS: ClassVar[tuple[str, ...]] = ("tokens", "record")
    tokens: str
    record: str
    token_id: str
    entry_json: bytes
    kind: str
    bound: int
    refuse_beyond: str  # '1' or '0'
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class RecordGameCall(ScriptCall):
    """:data:`_RECORD_GAME`: a game of the account recorded, its feed told of the change."""

    SCRIPT: ClassVar[str] = _RECORD_GAME
    KEYS: ClassVar[tuple[str, ...]] = ("games", "finished", "stats", "feed", "record", "subs", "cursor")
    games: str
    finished: str
    stats: str
    feed: str
    record: str
    subs: str
    cursor: str
    game_id: str
    now_json: bytes
    feed_length: int
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class LeaseStreamCall(ScriptCall):
    """:data:`_LEASE_STREAM`: an event stream of the account leased, at most ``most`` at once."""

    SCRIPT: ClassVar[str] = _LEASE_STREAM
    KEYS: ClassVar[tuple[str, ...]] = ("streams",)
    streams: str
    stream_id: str
    now_ms: int
    lease_ms: int
    most: int
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class NoteUsesCall(ScriptCall):
    """:data:`_NOTE_USES`: tokens' last uses written, for the tokens that still exist."""

    SCRIPT: ClassVar[str] = _NOTE_USES
    KEYS: ClassVar[tuple[str, ...]] = ("tokens", "used")
    tokens: str
    used: str
    rest: Sequence[Any]  # token id, ISO time pairs
