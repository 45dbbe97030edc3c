"""Seeks in Redis: pools of players asking for a game, and the tables the matcher claims from them.

A pool is every seek of one game, public configuration, clock and rated flag (so one table size);
its keys share the hash tag ``{p:<pool id>}`` (one Cluster slot), so the matcher claims a table's
seeks in ONE script (``_CLAIM``): each seek leaves the pool in the step that records the table it
went to (``tables``: game id -> the table). A killed matcher leaves claimed tables behind, never
a seek in two tables nor a seek lost: the next pass (any process) creates each table's game
(``store.bound_games``, in the game's slot, refused when the game exists: once), then drops the table.

Keys of a pool: ``seek:{p:<id>}:seeks`` hash (seek id -> JSON), ``seek:{p:<id>}:owners`` hash
(account -> its seek id: one seek per account and pool; an anonymous seek is its own owner,
``anon:<seek id>``), ``seek:{p:<id>}:tables`` hash (game id -> JSON of a claimed table),
``seek:{p:<id>}:paired`` hash (seek id -> the game it went to, written by the claim).
``seeks:pools`` hash: pool id -> its description (JSON), the pools
a matcher visits.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson
import redis

from store.scripts import ScriptCall, bind

POOLS = "seeks:pools"


def pool_id(description: Mapping[str, Any]) -> str:
    return hashlib.sha256(orjson.dumps(dict(description), option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]


def _pool_keys(pool: str) -> list[str]:
    tag = f"{{p:{pool}}}"
    return [f"seek:{tag}:seeks", f"seek:{tag}:owners", f"seek:{tag}:tables", f"seek:{tag}:paired"]


# How long a paired seek still names its game (``paired``): its owner polls for it meanwhile.
PAIRED_TTL_S = 3600


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

# KEYS: seeks, owners, tables, paired. ARGV: 1 game id, 2 table JSON, 3 ttl of ``paired`` (s), 4..
# the seek ids. All or nothing; each seek then names its game in ``paired`` (an anonymous seeker
# learns its game there).
_CLAIM = r"""
for i = 4, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then
    return 0
  end
end
for i = 4, #ARGV do
  local seek = cjson.decode(redis.call('HGET', KEYS[1], ARGV[i]))
  redis.call('HDEL', KEYS[1], ARGV[i])
  if redis.call('HGET', KEYS[2], seek.account) == ARGV[i] then
    redis.call('HDEL', KEYS[2], seek.account)
  end
  redis.call('HSET', KEYS[4], ARGV[i], ARGV[1])
end
redis.call('EXPIRE', KEYS[4], tonumber(ARGV[3]))
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return 1
"""


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
    KEYS: ClassVar[tuple[str, ...]] = ("seeks", "owners", "tables", "paired")
    seeks: str
    owners: str
    tables: str
    paired: str
    game_id: str
    table_json: bytes
    paired_ttl_s: int
    rest: Sequence[Any]  # the seek ids


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class SeekStore:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._add = bind(client, AddCall)
        self._remove = bind(client, RemoveCall)
        self._keep = bind(client, KeepCall)
        self._claim = bind(client, ClaimCall)

    def add(self, pool: str, description: Mapping[str, Any], seek: Mapping[str, Any]) -> str | None:
        """Add a seek (its pool first made known). None, or the id of the account's seek there."""
        self.redis.hset(POOLS, pool, orjson.dumps(dict(description)))
        seeks, owners = _pool_keys(pool)[:2]
        reply = self._add(AddCall(seeks, owners, seek["id"], seek["account"], orjson.dumps(dict(seek))))
        return None if _text(reply[0]) == "ok" else _text(reply[1])

    def remove(self, pool: str, seek_id: str, account: str = "") -> int:
        """1 removed, 0 no such seek, -1 another account's."""
        seeks, owners = _pool_keys(pool)[:2]
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
        seeks, owners, tables, paired = _pool_keys(pool)
        return bool(
            self._claim(
                ClaimCall(
                    seeks, owners, tables, paired, game_id, orjson.dumps(dict(table)), PAIRED_TTL_S, seek_ids
                )
            )
        )

    def paired(self, pool: str, seek_id: str) -> str | None:
        """The game a seek was paired into (for ``PAIRED_TTL_S`` after), else None."""
        found = self.redis.hget(_pool_keys(pool)[3], seek_id)
        return _text(found) if found else None

    def table_done(self, pool: str, game_id: str) -> None:
        self.redis.hdel(_pool_keys(pool)[2], game_id)

    def has_open_stream(self, stream_key: str, now: int) -> bool:
        """Whether an account's stream lease set (``store.accounts``) holds a live lease."""
        return bool(self.redis.zcount(stream_key, now, "+inf"))
