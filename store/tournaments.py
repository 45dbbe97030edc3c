"""Tournaments in Redis: the record, the entrants and the rounds of one tournament under one hash tag
(``{t:<id>}``), so every change that must check and write together (a join against the capacity and
the status, the start against the entrants it paired) is one script in one Cluster slot.

Keys of one tournament (all ``{t:<id>}``):

- ``tour:{t:<id>}:record`` hash: ``status`` (open, running, finished), ``organiser`` (account id),
  ``config`` (JSON: game, configuration, clock, table size, rounds, format, entry, bots, rated,
  capacity), ``version`` (counts every change to the entrants: a start pairs the entrants of one
  version, and is refused when a join or withdrawal came in between), ``round`` (the last round
  recorded), ``created`` (ms);
- ``tour:{t:<id>}:entrants`` hash: account id -> JSON ``{name, rating, bot, joined, withdrawn}``;
- ``tour:{t:<id>}:rounds`` hash: round number -> JSON ``{tables: [{game, players}]}``.

``tournaments:all`` (sorted set: id -> created ms) lists them, written after the record: a listing
skips an id whose record is missing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson
import redis

from store.scripts import ScriptCall, bind

ALL = "tournaments:all"


@dataclass(frozen=True)
class TournamentKeys:
    record: str
    entrants: str
    rounds: str


def tournament_keys(tournament_id: str) -> TournamentKeys:
    tag = f"{{t:{tournament_id}}}"
    return TournamentKeys(f"tour:{tag}:record", f"tour:{tag}:entrants", f"tour:{tag}:rounds")


@dataclass(frozen=True)
class StoredTournament:
    id: str
    record: dict[str, str]
    entrants: dict[str, dict[str, Any]]
    rounds: dict[int, dict[str, Any]]


# KEYS: record, entrants; ARGV: account, entrant JSON, capacity. Returns an outcome word.
_JOIN = r"""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
if status ~= 'open' then return 'not_open' end
local had = redis.call('HGET', KEYS[2], ARGV[1])
if had and not string.find(had, '"withdrawn":true', 1, true) then return 'already_entered' end
local active = 0
for _, v in ipairs(redis.call('HVALS', KEYS[2])) do
  if not string.find(v, '"withdrawn":true', 1, true) then active = active + 1 end
end
if tonumber(ARGV[3]) > 0 and active >= tonumber(ARGV[3]) then return 'full' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[1], 'version', 1)
return 'joined'
"""

# KEYS: record, entrants; ARGV: account, entrant JSON (withdrawn). Open or between rounds.
_WITHDRAW = r"""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
if status == 'finished' then return 'finished' end
local had = redis.call('HGET', KEYS[2], ARGV[1])
if not had or string.find(had, '"withdrawn":true', 1, true) then return 'not_entered' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[1], 'version', 1)
return 'withdrawn'
"""

# KEYS: record, rounds; ARGV: round, round JSON, the version paired ('' = any), status after.
# Records round ``ARGV[1]`` only if it is the next one: a scheduler that runs twice records it once.
_RECORD_ROUND = r"""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
local last = tonumber(redis.call('HGET', KEYS[1], 'round') or '0')
if last >= tonumber(ARGV[1]) then return 'recorded_before' end
if last + 1 ~= tonumber(ARGV[1]) then return 'out_of_order' end
if ARGV[3] ~= '' and redis.call('HGET', KEYS[1], 'version') ~= ARGV[3] then return 'changed' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], 'round', ARGV[1], 'status', ARGV[4])
return 'recorded'
"""


# KEYS: record, rounds; ARGV: round, table index, placing JSON. Writes a table's placing once (the
# first result stands: a follow-up run twice cannot change it). Returns an outcome word.
_RESULT = r"""
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return 'no_round' end
local data = cjson.decode(raw)
local t = data['tables'][tonumber(ARGV[2]) + 1]
if not t then return 'no_table' end
if t['placing'] then return 'recorded_before' end
t['placing'] = cjson.decode(ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(data))
return 'recorded'
"""


@dataclass(frozen=True, slots=True)
class JoinCall(ScriptCall):
    """:data:`_JOIN`: an account enters (or re-enters) a tournament with room."""

    SCRIPT: ClassVar[str] = _JOIN
    KEYS: ClassVar[tuple[str, ...]] = ("record", "entrants")
    record: str
    entrants: str
    account: str
    entrant_json: bytes
    capacity: int
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class WithdrawCall(ScriptCall):
    """:data:`_WITHDRAW`: an entrant withdrawn."""

    SCRIPT: ClassVar[str] = _WITHDRAW
    KEYS: ClassVar[tuple[str, ...]] = ("record", "entrants")
    record: str
    entrants: str
    account: str
    entrant_json: bytes
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class RecordRoundCall(ScriptCall):
    """:data:`_RECORD_ROUND`: the next round recorded, once."""

    SCRIPT: ClassVar[str] = _RECORD_ROUND
    KEYS: ClassVar[tuple[str, ...]] = ("record", "rounds")
    record: str
    rounds: str
    number: int
    round_json: bytes
    version: str  # the version paired ('' = any)
    status: str  # the status after
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class ResultCall(ScriptCall):
    """:data:`_RESULT`: a table's placing written once."""

    SCRIPT: ClassVar[str] = _RESULT
    KEYS: ClassVar[tuple[str, ...]] = ("record", "rounds")
    record: str
    rounds: str
    number: int
    table: int
    placing_json: bytes
    rest: Sequence[Any] = ()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class TournamentStore:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._join = bind(client, JoinCall)
        self._withdraw = bind(client, WithdrawCall)
        self._record_round = bind(client, RecordRoundCall)
        self._result = bind(client, ResultCall)

    def create(self, tournament_id: str, organiser: str, config: Mapping[str, Any], created: int) -> None:
        keys = tournament_keys(tournament_id)
        self.redis.hset(
            keys.record,
            mapping={
                "status": "open",
                "organiser": organiser,
                "config": orjson.dumps(dict(config)),
                "version": 0,
                "round": 0,
                "created": created,
            },
        )
        self.redis.zadd(ALL, {tournament_id: created})

    def load(self, tournament_id: str) -> StoredTournament | None:
        keys = tournament_keys(tournament_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(keys.record)
        pipe.hgetall(keys.entrants)
        pipe.hgetall(keys.rounds)
        record, entrants, rounds = pipe.execute()
        if not record:
            return None
        return StoredTournament(
            tournament_id,
            {_text(k): _text(v) for k, v in record.items()},
            {_text(k): orjson.loads(v) for k, v in entrants.items()},
            {int(k): orjson.loads(v) for k, v in rounds.items()},
        )

    def ids(self, limit: int = 100) -> list[str]:
        return [_text(i) for i in self.redis.zrevrange(ALL, 0, limit - 1)]

    def join(self, tournament_id: str, account: str, entrant: Mapping[str, Any], capacity: int) -> str:
        keys = tournament_keys(tournament_id)
        return _text(
            self._join(JoinCall(keys.record, keys.entrants, account, orjson.dumps(dict(entrant)), capacity))
        )

    def withdraw(self, tournament_id: str, account: str, entrant: Mapping[str, Any]) -> str:
        keys = tournament_keys(tournament_id)
        return _text(
            self._withdraw(WithdrawCall(keys.record, keys.entrants, account, orjson.dumps(dict(entrant))))
        )

    def record_round(
        self, tournament_id: str, number: int, data: Mapping[str, Any], version: str, status: str
    ) -> str:
        keys = tournament_keys(tournament_id)
        return _text(
            self._record_round(
                RecordRoundCall(keys.record, keys.rounds, number, orjson.dumps(dict(data)), version, status)
            )
        )

    def record_result(self, tournament_id: str, number: int, table: int, placing: list[list[str]]) -> str:
        keys = tournament_keys(tournament_id)
        return _text(self._result(ResultCall(keys.record, keys.rounds, number, table, orjson.dumps(placing))))

    def finish(self, tournament_id: str) -> None:
        self.redis.hset(tournament_keys(tournament_id).record, "status", "finished")
