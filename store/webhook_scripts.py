"""The Lua scripts of the webhooks (``store.webhooks``) and their typed calls: each names the
script's KEYS and its ARGV in the order the Lua reads them (tests/store/test_script_calls.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from store.scripts import ScriptCall

# KEYS: subs, cursor, feed; ARGV: 1 id, 2 JSON, 3 most. Adds a subscription; the cursor starts at
# the feed's newest entry the first time (a new subscription is not sent the account's past).
_ADD = r"""
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
if redis.call('EXISTS', KEYS[2]) == 0 then
  local last = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
  redis.call('SET', KEYS[2], last[1] and last[1][1] or '0-0')
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""

# KEYS: subs, cursor, feed, deliveries, due; ARGV: 1 now (ms), 2 batch. Turns the feed's entries
# after the cursor into one delivery per active subscription of the account's own (not a
# game-wide one) that wants the entry's kind (and its game, for a subscription to one game), and
# moves the cursor past them, in one step: a re-run (the follow-up runs again after a crash) finds
# nothing new. Delivery ids are the subscription's and the entry's, so even a cursor put back could
# not make a second delivery of one event.
_FAN_OUT = r"""
local subs = redis.call('HVALS', KEYS[1])
local cursor = redis.call('GET', KEYS[2])
if #subs == 0 or not cursor then
  return {0, 0}
end
local parsed = {}
for i = 1, #subs do
  local s = cjson.decode(subs[i])
  -- A game-wide subscription is fed by _GAME_EVENT only (spectator events): its owner's feed
  -- entries (their seat, whether they won) would reach it a second time, with a seat's facts.
  if not s.paused and s.game_wide ~= true then
    local wants = {}
    for _, e in ipairs(s.events) do wants[e] = true end
    s.wants = wants
    parsed[#parsed + 1] = s
  end
end
local entries = redis.call('XRANGE', KEYS[3], cursor, '+', 'COUNT', tonumber(ARGV[2]) + 1)
local made = 0
local last = cursor
for _, entry in ipairs(entries) do
  local id = entry[1]
  if id ~= cursor then
    last = id
    local fields = {}
    for j = 1, #entry[2], 2 do fields[entry[2][j]] = entry[2][j + 1] end
    local data = cjson.decode(fields.d)
    for _, s in ipairs(parsed) do
      if s.wants[fields.t] and (s.game_id == nil or s.game_id == cjson.null or s.game_id == data.game_id) then
        local did = 'msg_' .. s.id .. '_' .. string.gsub(id, '-', '_')
        local ms = tonumber(string.match(id, '^(%d+)'))
        local record = cjson.encode({id = did, sub = s.id, type = fields.t, ms = ms, data = data,
                                     attempts = 0, created_ms = tonumber(ARGV[1])})
        if redis.call('HSETNX', KEYS[4], did, record) == 1 then
          redis.call('ZADD', KEYS[5], ARGV[1], did)
          made = made + 1
        end
      end
    end
  end
end
redis.call('SET', KEYS[2], last)
return {made, #entries > tonumber(ARGV[2]) and 1 or 0}
"""

# KEYS: deliveries, due; ARGV: 1 now (ms), 2 lease (ms), 3 most. Takes the due deliveries and
# leases each forward by ``lease``: a sender killed mid-delivery leaves it due again after that.
_TAKE = r"""
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  local record = redis.call('HGET', KEYS[1], id)
  if record then
    redis.call('ZADD', KEYS[2], tonumber(ARGV[1]) + tonumber(ARGV[2]), id)
    out[#out + 1] = record
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
return out
"""

# KEYS: deliveries, due, subs, log, feed; ARGV: 1 delivery id, 2 outcome (ok/retry/failed/drop),
# 3 next attempt (ms), 4 attempt JSON (for the log), 5 log length, 6 now (ms), 7 pause after (ms),
# 8 feed length. Records one attempt; a subscription failing for longer than ``pause after`` is
# paused and its owner told on its feed (``webhook_paused``), in the same step.
_SETTLE = r"""
local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then
  return 0
end
local d = cjson.decode(record)
local outcome = ARGV[2]
if outcome ~= 'drop' then
  redis.call('LPUSH', KEYS[4], ARGV[4])
  redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[5]) - 1)
end
if outcome == 'retry' then
  d.attempts = d.attempts + 1
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(d))
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
else
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
end
local raw = redis.call('HGET', KEYS[3], d.sub)
if not raw or outcome == 'drop' then
  return 1
end
local s = cjson.decode(raw)
local now = tonumber(ARGV[6])
if outcome == 'ok' then
  if s.failing_since ~= nil and s.failing_since ~= cjson.null then
    s.failing_since = cjson.null
    redis.call('HSET', KEYS[3], d.sub, cjson.encode(s))
  end
  return 1
end
if s.failing_since == nil or s.failing_since == cjson.null then
  s.failing_since = now
elseif not s.paused and now - tonumber(s.failing_since) >= tonumber(ARGV[7]) then
  s.paused = true
  redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[8], '*', 't', 'webhook_paused',
             'd', cjson.encode({webhook_id = s.id, url = s.url, failing_since_ms = s.failing_since}))
end
redis.call('HSET', KEYS[3], d.sub, cjson.encode(s))
return 1
"""

# KEYS: subs; ARGV: 1 id, 2 JSON of the fields to change. Updates a subscription if it exists.
_UPDATE = r"""
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then
  return false
end
local s = cjson.decode(raw)
for k, v in pairs(cjson.decode(ARGV[2])) do s[k] = v end
local out = cjson.encode(s)
redis.call('HSET', KEYS[1], ARGV[1], out)
return out
"""

# KEYS: subs, deliveries, due; ARGV: 1 game id, 2 kind, 3 data JSON, 4 now (ms). A game-wide
# event (a status change of a game the account created): one delivery per active game-wide
# subscription of that game that wants it, its id the subscription's and the kind's, so a re-run
# of the follow-up makes none twice.
_GAME_EVENT = r"""
local made = 0
for _, raw in ipairs(redis.call('HVALS', KEYS[1])) do
  local s = cjson.decode(raw)
  local wants = false
  for _, e in ipairs(s.events) do if e == ARGV[2] then wants = true end end
  if s.game_wide == true and s.game_id == ARGV[1] and not s.paused and wants then
    local did = 'msg_' .. s.id .. '_' .. ARGV[2]
    local record = cjson.encode({id = did, sub = s.id, type = ARGV[2], ms = tonumber(ARGV[4]),
                                 data = cjson.decode(ARGV[3]), attempts = 0, created_ms = tonumber(ARGV[4])})
    if redis.call('HSETNX', KEYS[2], did, record) == 1 then
      redis.call('ZADD', KEYS[3], ARGV[4], did)
      made = made + 1
    end
  end
end
return made
"""

# KEYS: see below; ARGV: 1 the notice's key (job id@record creation), 2 kind, 3 data JSON, 4 now
# (ms), 5 feed length, 6 forget notices older than this (ms), 7 how long to remember them (ms: the
# key expires with its last notice, so a deleted account leaves nothing for good). A finished
# job's notice goes to the account's feed once, however often the job's completion is announced
# (a worker killed after the finish and before the announcement, a retried run): the fan-out then
# makes its deliveries from the feed entry, with ids of the entry's, so a retried completion makes
# no second delivery. An account deleted (or being deleted) meanwhile is told nothing: its feed
# would outlive it. KEYS: told, feed, the account's record.
_JOB_EVENT = r"""
if redis.call('EXISTS', KEYS[3]) == 0 or redis.call('HEXISTS', KEYS[3], 'deleting') == 1 then
  return 0
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[6])
if redis.call('ZADD', KEYS[1], 'NX', ARGV[4], ARGV[1]) == 0 then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 't', ARGV[2], 'd', ARGV[3])
return 1
"""

# KEYS: pings; ARGV: 1 most, 2 window (ms). Counts one test ping in the window that the first one
# opened; 0 (and not counted) when the window already holds ``most``.
_COUNT_PING = r"""
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then
  return 0
end
if redis.call('INCR', KEYS[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
"""

# KEYS: hints; ARGV: 1 account, 2 the score the reader saw. Removes the hint unless a writer moved it.
_DROP_HINT = r"""
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
return 0
"""


# -- the typed calls ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AddCall(ScriptCall):
    """:data:`_ADD`: a subscription added (at most ``most`` per account)."""

    SCRIPT: ClassVar[str] = _ADD
    KEYS: ClassVar[tuple[str, ...]] = ("subs", "cursor", "feed")
    subs: str
    cursor: str
    feed: str
    sub_id: str
    sub_json: bytes
    most: int
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class FanOutCall(ScriptCall):
    """:data:`_FAN_OUT`: one batch of the feed's new entries turned into deliveries."""

    SCRIPT: ClassVar[str] = _FAN_OUT
    KEYS: ClassVar[tuple[str, ...]] = ("subs", "cursor", "feed", "deliveries", "due")
    subs: str
    cursor: str
    feed: str
    deliveries: str
    due: str
    now_ms: int
    batch: int
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class TakeCall(ScriptCall):
    """:data:`_TAKE`: the due deliveries, leased forward."""

    SCRIPT: ClassVar[str] = _TAKE
    KEYS: ClassVar[tuple[str, ...]] = ("deliveries", "due")
    deliveries: str
    due: str
    now_ms: int
    lease_ms: int
    most: int
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class SettleCall(ScriptCall):
    """:data:`_SETTLE`: one delivery attempt recorded."""

    SCRIPT: ClassVar[str] = _SETTLE
    KEYS: ClassVar[tuple[str, ...]] = ("deliveries", "due", "subs", "log", "feed")
    deliveries: str
    due: str
    subs: str
    log: str
    feed: str
    delivery_id: str
    outcome: str
    next_ms: int
    attempt_json: bytes
    log_length: int
    now_ms: int
    pause_after_ms: int
    feed_length: int
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class UpdateCall(ScriptCall):
    """:data:`_UPDATE`: a subscription's fields changed."""

    SCRIPT: ClassVar[str] = _UPDATE
    KEYS: ClassVar[tuple[str, ...]] = ("subs",)
    subs: str
    sub_id: str
    fields_json: bytes
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class GameEventCall(ScriptCall):
    """:data:`_GAME_EVENT`: a game-wide event's deliveries."""

    SCRIPT: ClassVar[str] = _GAME_EVENT
    KEYS: ClassVar[tuple[str, ...]] = ("subs", "deliveries", "due")
    subs: str
    deliveries: str
    due: str
    game_id: str
    kind: str
    data_json: bytes
    now_ms: int
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class JobEventCall(ScriptCall):
    """:data:`_JOB_EVENT`: a finished job's notice on the account's feed, once."""

    SCRIPT: ClassVar[str] = _JOB_EVENT
    KEYS: ClassVar[tuple[str, ...]] = ("told", "feed", "record")
    told: str
    feed: str
    record: str
    notice: str
    kind: str
    data_json: bytes
    now_ms: int
    feed_length: int
    forget_before_ms: int
    keep_ms: int
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class CountPingCall(ScriptCall):
    """:data:`_COUNT_PING`: one test ping counted in its window."""

    SCRIPT: ClassVar[str] = _COUNT_PING
    KEYS: ClassVar[tuple[str, ...]] = ("pings",)
    pings: str
    most: int
    window_ms: int
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class DropHintCall(ScriptCall):
    """:data:`_DROP_HINT`: an account's hint removed unless a writer moved it."""

    SCRIPT: ClassVar[str] = _DROP_HINT
    KEYS: ClassVar[tuple[str, ...]] = ("hints",)
    hints: str
    account_id: str
    seen: float
    rest: Sequence[Any] = ()
