"""Seeks in Redis: pools of players asking for a game, and the tables the matcher claims from them.

A pool is every seek of one game, public configuration, clock and rated flag (so one table size);
its keys share the hash tag ``{p:<pool id>}`` (one Cluster slot), so the matcher claims a table's
seeks in ONE script (``_CLAIM``): each seek leaves the pool in the step that records the table it
went to (``tables``: game id -> the table). A killed matcher leaves claimed tables behind, never
a seek in two tables nor a seek lost: the next pass (any process) creates each table's game
(``_CREATE_STARTED``, in the game's slot, refused when the game exists: once), then drops the table.

Keys of a pool: ``seek:{p:<id>}:seeks`` hash (seek id -> JSON), ``seek:{p:<id>}:owners`` hash
(account -> its seek id: one seek per account and pool), ``seek:{p:<id>}:tables`` hash (game id
-> JSON of a claimed table). ``seeks:pools`` hash: pool id -> its description (JSON), the pools
a matcher visits.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson
import redis

from store.keys import game_keys
from store.outbox import HINTS, due_key, followup_args, now_ms, slot_of
from store.records import flatten, snapshot_bytes
from store.scripts import _WRITE_EVENTS, ScriptCall, bind

POOLS = "seeks:pools"


def pool_id(description: Mapping[str, Any]) -> str:
    return hashlib.sha256(orjson.dumps(dict(description), option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]


def _pool_keys(pool: str) -> list[str]:
    tag = f"{{p:{pool}}}"
    return [f"seek:{tag}:seeks", f"seek:{tag}:owners", f"seek:{tag}:tables"]


# KEYS: seeks, owners. ARGV: 1 seek id, 2 account, 3 JSON. One seek per account and pool.
_ADD = r"""
local other = redis.call('HGET', KEYS[2], ARGV[2])
if other then
  return {'duplicate', other}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
return {'ok'}
"""

# KEYS: seeks, owners. ARGV: 1 seek id, 2 account ('' = whoever owns it). Removes the seek.
_REMOVE = r"""
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then
  return 0
end
local seek = cjson.decode(raw)
if ARGV[2] ~= '' and seek.account ~= ARGV[2] then
  return -1
end
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('HGET', KEYS[2], seek.account) == ARGV[1] then
  redis.call('HDEL', KEYS[2], seek.account)
end
return 1
"""

# KEYS: seeks. ARGV: 1 seek id, 2 account, 3 alive until (ms). A keep-alive.
_KEEP = r"""
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then
  return 0
end
local seek = cjson.decode(raw)
if seek.account ~= ARGV[2] then
  return -1
end
seek.alive_until = tonumber(ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(seek))
return 1
"""

# KEYS: seeks, owners, tables. ARGV: 1 game id, 2 table JSON, 3.. the seek ids. All or nothing.
_CLAIM = r"""
for i = 3, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then
    return 0
  end
end
for i = 3, #ARGV do
  local seek = cjson.decode(redis.call('HGET', KEYS[1], ARGV[i]))
  redis.call('HDEL', KEYS[1], ARGV[i])
  if redis.call('HGET', KEYS[2], seek.account) == ARGV[i] then
    redis.call('HDEL', KEYS[2], seek.account)
  end
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return 1
"""

# KEYS: meta, seats, events, snapshot, config, outbox, due set. ARGV: 1 full config JSON, 2 number
# s of seat/token-hash pairs, the pairs, then the follow-ups (record_followups), then m meta pairs
# and the genesis events (write_events). A game made from a table: once (refused when it exists).
_CREATE_STARTED = (
    _WRITE_EVENTS
    + r"""
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {'exists'}
end
redis.call('SET', KEYS[5], ARGV[1])
local s = tonumber(ARGV[2])
local pairs = {}
for i = 3, 2 + 2 * s do pairs[#pairs + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], unpack(pairs))
local after = record_followups(KEYS[6], KEYS[7], 3 + 2 * s)
local version = write_events(KEYS[3], KEYS[4], KEYS[1], 0, ARGV[after], after + 2)
return {'started', version}
"""
)


@dataclass(frozen=True, slots=True)
class AddCall(ScriptCall):
    """:data:`_ADD`: a seek added, one per account and pool."""

    SCRIPT: ClassVar[str] = _ADD
    KEYS: ClassVar[tuple[str, ...]] = ("seeks", "owners")
    seeks: str
    owners: str
    seek_id: str
    account: str
    seek_json: bytes
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class RemoveCall(ScriptCall):
    """:data:`_REMOVE`: a seek removed."""

    SCRIPT: ClassVar[str] = _REMOVE
    KEYS: ClassVar[tuple[str, ...]] = ("seeks", "owners")
    seeks: str
    owners: str
    seek_id: str
    account: str  # '' = whoever owns it
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class KeepCall(ScriptCall):
    """:data:`_KEEP`: a seek kept alive."""

    SCRIPT: ClassVar[str] = _KEEP
    KEYS: ClassVar[tuple[str, ...]] = ("seeks",)
    seeks: str
    seek_id: str
    account: str
    until_ms: int
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class ClaimCall(ScriptCall):
    """:data:`_CLAIM`: seeks taken out of the pool into a table, all or none."""

    SCRIPT: ClassVar[str] = _CLAIM
    KEYS: ClassVar[tuple[str, ...]] = ("seeks", "owners", "tables")
    seeks: str
    owners: str
    tables: str
    game_id: str
    table_json: bytes
    rest: Sequence[Any]  # the seek ids


@dataclass(frozen=True, slots=True)
class CreateStartedCall(ScriptCall):
    """:data:`_CREATE_STARTED`: a started game made from a table, once."""

    SCRIPT: ClassVar[str] = _CREATE_STARTED
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("meta", "seats", "events", "snapshot", "config", "outbox", "due")
    meta: str
    seats: str
    events: str
    snapshot: str
    config: str
    outbox: str
    due: str
    config_json: bytes
    seat_pairs: int
    rest: Sequence[Any]  # the seat/token-hash pairs, the follow-ups, the snapshot, meta pairs, events


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class SeekStore:
    def __init__(self, client: redis.Redis, followup_grace_ms: int):
        self.redis = client
        self.grace_ms = followup_grace_ms
        self._add = bind(client, AddCall)
        self._remove = bind(client, RemoveCall)
        self._keep = bind(client, KeepCall)
        self._claim = bind(client, ClaimCall)
        self._create_started = bind(client, CreateStartedCall)

    def add(self, pool: str, description: Mapping[str, Any], seek: Mapping[str, Any]) -> str | None:
        """Add a seek (its pool first made known). None, or the id of the account's seek there."""
        self.redis.hset(POOLS, pool, orjson.dumps(dict(description)))
        seeks, owners, _ = _pool_keys(pool)
        reply = self._add(AddCall(seeks, owners, seek["id"], seek["account"], orjson.dumps(dict(seek))))
        return None if _text(reply[0]) == "ok" else _text(reply[1])

    def remove(self, pool: str, seek_id: str, account: str = "") -> int:
        """1 removed, 0 no such seek, -1 another account's."""
        seeks, owners, _ = _pool_keys(pool)
        return int(self._remove(RemoveCall(seeks, owners, seek_id, account)))

    def keep_alive(self, pool: str, seek_id: str, account: str, until_ms: int) -> int:
        return int(self._keep(KeepCall(_pool_keys(pool)[0], seek_id, account, until_ms)))

    def get(self, pool: str, seek_id: str) -> dict[str, Any] | None:
        raw = self.redis.hget(_pool_keys(pool)[0], seek_id)
        return orjson.loads(raw) if raw else None

    def pools(self) -> dict[str, dict[str, Any]]:
        return {_text(k): orjson.loads(v) for k, v in self.redis.hgetall(POOLS).items()}

    def seeks(self, pool: str) -> list[dict[str, Any]]:
        return [orjson.loads(v) for v in self.redis.hvals(_pool_keys(pool)[0])]

    def tables(self, pool: str) -> dict[str, dict[str, Any]]:
        return {_text(k): orjson.loads(v) for k, v in self.redis.hgetall(_pool_keys(pool)[2]).items()}

    def claim(self, pool: str, game_id: str, table: Mapping[str, Any], seek_ids: Sequence[str]) -> bool:
        """Take the seeks out of the pool into a table, all or none (False: one is gone)."""
        seeks, owners, tables = _pool_keys(pool)
        return bool(
            self._claim(ClaimCall(seeks, owners, tables, game_id, orjson.dumps(dict(table)), seek_ids))
        )

    def table_done(self, pool: str, game_id: str) -> None:
        self.redis.hdel(_pool_keys(pool)[2], game_id)

    def has_open_stream(self, stream_key: str, now: int) -> bool:
        """Whether an account's stream lease set (``store.accounts``) holds a live lease."""
        return bool(self.redis.zcount(stream_key, now, "+inf"))

    def create_started(
        self,
        game_id: str,
        *,
        config: Mapping[str, Any],
        token_hashes: Mapping[int, str],
        snapshot: Mapping[str, Any] | bytes,
        meta: Mapping[str, Any],
        genesis: Sequence[Mapping[str, Any]],
        followups: Mapping[str, Any],
    ) -> bool:
        """Create a started game with every seat bound, in one script. False: it exists already."""
        keys = game_keys(game_id)
        pairs: list[Any] = []
        for seat, token_hash in token_hashes.items():
            pairs.extend((str(seat), token_hash))
        meta_pairs = flatten(meta)
        call = CreateStartedCall(
            meta=keys.meta,
            seats=keys.seats,
            events=keys.events,
            snapshot=keys.snapshot,
            config=keys.config,
            outbox=keys.outbox,
            due=due_key(game_id),
            config_json=orjson.dumps(dict(config)),
            seat_pairs=len(pairs) // 2,
            rest=[
                *pairs,
                *followup_args(game_id, dict(followups), self.grace_ms),
                snapshot_bytes(snapshot),
                len(meta_pairs) // 2,
                *meta_pairs,
                *(orjson.dumps(dict(e)) for e in genesis),
            ],
        )
        reply = self._create_started(call)
        self.redis.zadd(HINTS, {str(slot_of(game_id)): now_ms() + self.grace_ms})
        return _text(reply[0]) == "started"
