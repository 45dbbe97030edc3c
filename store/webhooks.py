"""Webhooks in Redis: an account's subscriptions, its pending deliveries, their log.

Every key of one account's webhooks carries the account's hash tag ``{a:<account id>}``, the slot
of its feed (``store.accounts``), so the script that turns the feed's new entries into deliveries
(:data:`_FAN_OUT`) reads the feed and writes the deliveries in one atomic, single-slot step. The
only keys of another slot are the hints (``hooks:{hooks}:due``, account -> when its next delivery
is due) and the set of accounts with subscriptions (``hooks:{hooks}:accounts``), which a delivery
loop re-reads now and then so a hint lost to a crash only delays work.

A subscription's signing secret is stored as it is (an HMAC needs the key itself, unlike a token,
which is stored hashed): it is returned once, by the call that creates it, and never by a listing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from store.accounts import account_keys

HINTS = "hooks:{hooks}:due"
ACCOUNTS = "hooks:{hooks}:accounts"
# At most this many subscriptions per account, feed entries read per fan-out step.
MOST_SUBSCRIPTIONS = 20
FAN_OUT_BATCH = 100


@dataclass(frozen=True)
class HookKeys:
    subs: str  # hash: subscription id -> JSON {id, url, events, game_id, format, secret, paused, ...}
    cursor: str  # string: the last feed entry id turned into deliveries
    deliveries: str  # hash: delivery id -> JSON {id, sub, type, ms, data, attempts, created_ms}
    due: str  # sorted set: delivery id -> next attempt (ms); a taken one is leased forward
    feed: str  # the account's feed (store.accounts)
    told: str  # sorted set: finished jobs the account was told of (job id@record creation) -> ms
    pings: str  # string: test pings asked for in the current window (expires with it)

    def log(self, sub_id: str) -> str:
        """list: the subscription's last attempts, newest first (JSON)."""
        return self.subs.replace(":subs", f":log:{sub_id}")


def hook_keys(account_id: str) -> HookKeys:
    tag = f"{{a:{account_id}}}"
    return HookKeys(
        subs=f"hook:{tag}:subs",
        cursor=f"hook:{tag}:cursor",
        deliveries=f"hook:{tag}:deliveries",
        due=f"hook:{tag}:due",
        feed=account_keys(account_id).feed,
        told=f"hook:{tag}:told",
        pings=f"hook:{tag}:pings",
    )


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


def creator_key(game_id: str) -> str:
    """string: the account that created the game (in the game's slot)."""
    return f"hook:{{g:{game_id}}}:creator"


def watchers_key(game_id: str) -> str:
    """set: accounts with a game-wide subscription to the game (in the game's slot)."""
    return f"hook:{{g:{game_id}}}:watchers"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class WebhookStore:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._add = client.register_script(_ADD)
        self._fan_out = client.register_script(_FAN_OUT)
        self._take = client.register_script(_TAKE)
        self._settle = client.register_script(_SETTLE)
        self._update = client.register_script(_UPDATE)
        self._drop_hint = client.register_script(_DROP_HINT)
        self._game_event = client.register_script(_GAME_EVENT)
        self._job_event = client.register_script(_JOB_EVENT)
        self._count_ping = client.register_script(_COUNT_PING)

    # -- game-wide subscriptions --------------------------------------------------------------
    def set_creator(self, game_id: str, account_id: str) -> None:
        self.redis.set(creator_key(game_id), account_id, nx=True)

    def creator(self, game_id: str) -> str | None:
        raw = self.redis.get(creator_key(game_id))
        return _text(raw) if raw else None

    def add_watcher(self, game_id: str, account_id: str) -> None:
        self.redis.sadd(watchers_key(game_id), account_id)

    def watchers(self, game_id: str) -> list[str]:
        return sorted(_text(a) for a in self.redis.smembers(watchers_key(game_id)))

    def game_event(
        self, account_id: str, game_id: str, kind: str, data: Mapping[str, Any], now_ms: int
    ) -> int:
        keys = hook_keys(account_id)
        made = int(
            self._game_event(
                keys=[keys.subs, keys.deliveries, keys.due],
                args=[game_id, kind, orjson.dumps(dict(data)), now_ms],
            )
        )
        if made:
            self.hint(account_id, now_ms)
        return made

    # -- finished jobs (verified, export_ready) --------------------------------------
    def job_event(
        self,
        account_id: str,
        notice: str,
        kind: str,
        data: Mapping[str, Any],
        now_ms: int,
        feed_length: int,
        keep_ms: int,
    ) -> bool:
        """Put a finished job's notice on the account's feed unless it is there already (see
        :data:`_JOB_EVENT`); the caller then runs :meth:`fan_out`. True when this call added it."""
        keys = hook_keys(account_id)
        return bool(
            self._job_event(
                keys=[keys.told, keys.feed, account_keys(account_id).record],
                args=[notice, kind, orjson.dumps(dict(data)), now_ms, feed_length, now_ms - keep_ms, keep_ms],
            )
        )

    # -- subscriptions ----------------------------------------------------------------------
    def add(self, account_id: str, sub: Mapping[str, Any]) -> bool:
        keys = hook_keys(account_id)
        added = self._add(
            keys=[keys.subs, keys.cursor, keys.feed],
            args=[sub["id"], orjson.dumps(sub), MOST_SUBSCRIPTIONS],
        )
        if added:
            self.redis.sadd(ACCOUNTS, account_id)
        return bool(added)

    def subscriptions(self, account_id: str) -> dict[str, dict[str, Any]]:
        raw = self.redis.hgetall(hook_keys(account_id).subs)
        return {_text(k): orjson.loads(v) for k, v in raw.items()}

    def subscription(self, account_id: str, sub_id: str) -> dict[str, Any] | None:
        raw = self.redis.hget(hook_keys(account_id).subs, sub_id)
        return orjson.loads(raw) if raw else None

    def update(self, account_id: str, sub_id: str, fields: Mapping[str, Any]) -> dict[str, Any] | None:
        out = self._update(keys=[hook_keys(account_id).subs], args=[sub_id, orjson.dumps(dict(fields))])
        return orjson.loads(out) if out else None

    def delete(self, account_id: str, sub_id: str) -> bool:
        keys = hook_keys(account_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(keys.subs, sub_id)
        pipe.delete(keys.log(sub_id))
        return bool(pipe.execute()[0])  # its pending deliveries are dropped when next taken

    def log(self, account_id: str, sub_id: str, count: int) -> list[dict[str, Any]]:
        return [
            orjson.loads(row) for row in self.redis.lrange(hook_keys(account_id).log(sub_id), 0, count - 1)
        ]

    # -- deliveries -------------------------------------------------------------------------
    def fan_out(self, account_id: str, now_ms: int) -> int:
        """Turn the account's new feed entries into deliveries (idempotent); hint the delivery
        loop when any were made. Returns how many."""
        keys = hook_keys(account_id)
        made_total = 0
        for _ in range(50):  # bounded: FAN_OUT_BATCH entries a step, the feed holds ~200
            made, more = self._fan_out(
                keys=[keys.subs, keys.cursor, keys.feed, keys.deliveries, keys.due],
                args=[now_ms, FAN_OUT_BATCH],
            )
            made_total += int(made)
            if not int(more):
                break
        if made_total:
            self.hint(account_id, now_ms)
        return made_total

    def add_delivery(self, account_id: str, record: Mapping[str, Any], now_ms: int) -> bool:
        """A delivery made outside the feed (a test ping)."""
        keys = hook_keys(account_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hsetnx(keys.deliveries, record["id"], orjson.dumps(dict(record)))
        pipe.zadd(keys.due, {record["id"]: now_ms})
        pipe.execute()
        self.hint(account_id, now_ms)
        return True

    def count_ping(self, account_id: str, most: int, window_ms: int) -> int | None:
        """Count a test ping of the account: None when it may be sent, else the milliseconds until
        the window that holds ``most`` pings ends."""
        key = hook_keys(account_id).pings
        if self._count_ping(keys=[key], args=[most, window_ms]):
            return None
        return max(1, int(self.redis.pttl(key)))

    def hint(self, account_id: str, due_ms: int) -> None:
        self.redis.zadd(HINTS, {account_id: due_ms})

    def due_accounts(self, now_ms: int, most: int) -> list[tuple[str, float]]:
        rows = self.redis.zrangebyscore(HINTS, "-inf", now_ms, start=0, num=most, withscores=True)
        return [(_text(a), float(s)) for a, s in rows]

    def settle_hint(self, account_id: str, seen: float) -> None:
        """After a pass over the account: hint its next due delivery, or drop the hint (unless a
        writer moved it meanwhile)."""
        nxt = self.redis.zrange(hook_keys(account_id).due, 0, 0, withscores=True)
        if nxt:
            self.redis.zadd(HINTS, {account_id: int(nxt[0][1])})
        else:
            self._drop_hint(keys=[HINTS], args=[account_id, seen])

    def rehint_all(self) -> int:
        """The backstop for hints lost between a script and its hint: every account with
        subscriptions whose due set holds anything is hinted again."""
        accounts = [_text(a) for a in self.redis.smembers(ACCOUNTS)]
        pipe = self.redis.pipeline(transaction=False)
        for account_id in accounts:
            pipe.zrange(hook_keys(account_id).due, 0, 0, withscores=True)
        count = 0
        for account_id, first in zip(accounts, pipe.execute(), strict=True):
            if first:
                self.redis.zadd(HINTS, {account_id: int(first[0][1])}, nx=True)
                count += 1
        return count

    def take(self, account_id: str, now_ms: int, lease_ms: int, most: int) -> list[dict[str, Any]]:
        keys = hook_keys(account_id)
        rows = self._take(keys=[keys.deliveries, keys.due], args=[now_ms, lease_ms, most])
        return [orjson.loads(row) for row in rows]

    def settle(
        self,
        account_id: str,
        sub_id: str,
        delivery_id: str,
        outcome: str,
        next_ms: int,
        attempt: Mapping[str, Any],
        log_length: int,
        now_ms: int,
        pause_after_ms: int,
        feed_length: int,
    ) -> None:
        keys = hook_keys(account_id)
        self._settle(
            keys=[keys.deliveries, keys.due, keys.subs, keys.log(sub_id), keys.feed],
            args=[
                delivery_id,
                outcome,
                next_ms,
                orjson.dumps(dict(attempt)),
                log_length,
                now_ms,
                pause_after_ms,
                feed_length,
            ],
        )

    def pending(self, account_id: str) -> int:
        return int(self.redis.zcard(hook_keys(account_id).due))
