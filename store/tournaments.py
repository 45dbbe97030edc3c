"""Tournaments in Redis: the record, the entrants and the rounds of one tournament under one hash tag,
so every change that must check and write together (a join against the capacity and the status, the
start against the entrants it paired, a round's record with the follow-up that starts its tables) is
one script in one Cluster slot.

The tag is ``{g:T<id>}``: the slot of the pseudo-game ``T<id>`` (game ids are lower-case base32,
never starting with ``T``), whose outbox (``store.outbox``) holds the tournament's own follow-up,
``tournament`` (``service.tournament.runner``). A round's record and the completion of a round
record it in the same script, so a killed scheduler leaves it pending for the janitor, which runs
it like any game's follow-up: it starts the round's tables (games created once each,
``store.bound_games``), pairs the next round, or finishes the tournament.

Keys of one tournament (all ``{g:T<id>}``):

A tournament created with a start time records, with its record in one script, its follow-up
``s`` due at that time (the janitor's sweep runs it then: ``service.tournament.schedule``); while it
is open, a join or withdrawal that leaves enough entrants records it again with the entrant
(``s<token>``, due then or, past that time, at once).

- ``tour:{g:T<id>}:record`` hash: ``status`` (open, running, finished), ``organiser`` (account id),
  ``config`` (JSON: game, configuration, clock, table size, rounds, format, entry, bots, rated,
  capacity), ``version`` (counts every change to the entrants: a start pairs the entrants of one
  version, and is refused when a join or withdrawal came in between), ``round`` (the last round
  recorded), ``created`` (ms);
- ``tour:{g:T<id>}:entrants`` hash: entrant id (an account id, or ``bot.<level>.<n>`` for a server
  bot the organiser entered) -> JSON ``{name, rating, bot, level, joined, withdrawn}``;
- ``tour:{g:T<id>}:rounds`` hash: round number -> JSON ``{tables: [{game, players, placing}]}``
  (``placing``: groups of tied entrant ids, best first, once the table's game has finished).

``tournaments:all`` (sorted set: id -> created ms) lists them, written after the record: a listing
skips an id whose record is missing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson
import redis

from store.outbox import HINTS, due_key, followup_args, now_ms, slot_of
from store.scripts import _WRITE_EVENTS, ScriptCall, bind

ALL = "tournaments:all"
ACTION = "tournament"  # the follow-up action, in the tournament's outbox and in a table game's
WITHDRAWAL = "w"  # its value recorded by a running tournament's withdrawal (WITHDRAW)


@dataclass(frozen=True)
class TournamentKeys:
    record: str
    entrants: str
    rounds: str
    outbox: str
    due: str


def outbox_id(tournament_id: str) -> str:
    """The pseudo-game id whose outbox holds the tournament's follow-up (the module's docstring)."""
    return f"T{tournament_id}"


def tournament_id_of(outbox: str) -> str | None:
    return outbox[1:] if outbox.startswith("T") else None


def tournament_keys(tournament_id: str) -> TournamentKeys:
    pseudo = outbox_id(tournament_id)
    tag = f"{{g:{pseudo}}}"
    return TournamentKeys(
        f"tour:{tag}:record",
        f"tour:{tag}:entrants",
        f"tour:{tag}:rounds",
        f"game:{tag}:outbox",
        due_key(pseudo),
    )


@dataclass(frozen=True)
class TimedStart:
    """What a join or withdrawal of an open tournament with a start time records with it when the
    active entrants are at least ``minimum``: the tournament's follow-up ``value`` (a new one per
    change, so a sweep that ran an older start and found too few acknowledges only that one), due
    in ``due_in_ms``."""

    minimum: int
    value: str
    due_in_ms: int


@dataclass(frozen=True)
class StoredTournament:
    id: str
    record: dict[str, str]
    entrants: dict[str, dict[str, Any]]
    rounds: dict[int, dict[str, Any]]


# KEYS: record, outbox, due set; ARGV: the record's field/value pairs (count, pairs), then the
# follow-ups (record_followups: a start time's, due then). The record and its timed start together:
# a tournament with a start time is never without the follow-up that starts it.
CREATE = (
    _WRITE_EVENTS
    + r"""
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
local n = tonumber(ARGV[1])
local fields = {}
for i = 2, 1 + 2 * n do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
record_followups(KEYS[2], KEYS[3], 2 + 2 * n)
return 'created'
"""
)

# KEYS: record, entrants, outbox, due set; ARGV: account, entrant JSON, capacity, late ('1': a
# running tournament admits entrants, paired from its next round), the timed start's minimum ('0':
# none), then the follow-ups (record_followups: the start's). Returns an outcome word: 'joined', or
# 'joined_start' when this join left an open tournament with a start time at least the minimum
# entrants and so recorded its start follow-up with the entrant (``service.tournament.schedule``).
JOIN = (
    _WRITE_EVENTS
    + r"""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
if status ~= 'open' and not (status == 'running' and ARGV[4] == '1') then return 'not_open' end
local had = redis.call('HGET', KEYS[2], ARGV[1])
if had and not string.find(had, '"withdrawn":true', 1, true) then return 'already_entered' end
local active = 0
for _, v in ipairs(redis.call('HVALS', KEYS[2])) do
  if not string.find(v, '"withdrawn":true', 1, true) then active = active + 1 end
end
if tonumber(ARGV[3]) > 0 and active >= tonumber(ARGV[3]) then return 'full' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[1], 'version', 1)
local minimum = tonumber(ARGV[5])
if status == 'open' and minimum > 0 and active + 1 >= minimum then
  record_followups(KEYS[3], KEYS[4], 6)
  return 'joined_start'
end
return 'joined'
"""
)

# KEYS: record, entrants, outbox, due set; ARGV: account, entrant JSON (withdrawn), the timed start's
# minimum ('0': none), then the follow-ups: open, the start's (as JOIN's: a withdrawal can leave a
# field that splits into tables where it did not), 'withdrawn' or 'withdrawn_start'; running, the one
# handing its seat at a running table to the bot (runner), 'withdrawn_running' ('changed': read open).
WITHDRAW = (
    _WRITE_EVENTS
    + r"""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
if status == 'finished' then return 'finished' end
local had = redis.call('HGET', KEYS[2], ARGV[1])
if not had or string.find(had, '"withdrawn":true', 1, true) then return 'not_entered' end
local minimum = tonumber(ARGV[3])
if status == 'running' and minimum > 0 then return 'changed' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[1], 'version', 1)
if status == 'running' then record_followups(KEYS[3], KEYS[4], 4) return 'withdrawn_running' end
if status == 'open' and minimum > 0 then
  local active = 0
  for _, v in ipairs(redis.call('HVALS', KEYS[2])) do
    if not string.find(v, '"withdrawn":true', 1, true) then active = active + 1 end
  end
  if active >= minimum then
    record_followups(KEYS[3], KEYS[4], 4)
    return 'withdrawn_start'
  end
end
return 'withdrawn'
"""
)

# KEYS: record, rounds, outbox, due set; ARGV: round, round JSON, the version paired ('' = any),
# status after, then the follow-ups (record_followups: the tournament's, which starts the tables).
# Records round ``ARGV[1]`` only if it is the next one: a scheduler that runs twice records it once.
RECORD_ROUND = (
    _WRITE_EVENTS
    + r"""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
if status == 'finished' then return 'finished' end
local last = tonumber(redis.call('HGET', KEYS[1], 'round') or '0')
if last >= tonumber(ARGV[1]) then return 'recorded_before' end
if last + 1 ~= tonumber(ARGV[1]) then return 'out_of_order' end
if ARGV[3] ~= '' and redis.call('HGET', KEYS[1], 'version') ~= ARGV[3] then return 'changed' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], 'round', ARGV[1], 'status', ARGV[4])
record_followups(KEYS[3], KEYS[4], 5)
return 'recorded'
"""
)

# KEYS: record, rounds, outbox, due set; ARGV: round, table index, placing JSON, then the follow-ups
# recorded when this result completes the round (record_followups). Writes a table's placing once
# (the first result stands: a follow-up run twice cannot change it). Returns an outcome word:
# 'complete' when this result was the round's last.
RESULT = (
    _WRITE_EVENTS
    + r"""
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return 'no_round' end
local data = cjson.decode(raw)
local t = data['tables'][tonumber(ARGV[2]) + 1]
if not t then return 'no_table' end
if t['placing'] then return 'recorded_before' end
t['placing'] = cjson.decode(ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(data))
for _, other in ipairs(data['tables']) do
  if not other['placing'] then return 'recorded' end
end
record_followups(KEYS[3], KEYS[4], 4)
return 'complete'
"""
)

# KEYS: record, outbox, due set; ARGV: the round that was the last, then the follow-ups
# (record_followups: the tournament's, which tells the entrants). Once, after that round.
FINISH = (
    _WRITE_EVENTS
    + r"""
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'running' then return status or 'not_found' end
if redis.call('HGET', KEYS[1], 'round') ~= ARGV[1] then return 'not_last' end
redis.call('HSET', KEYS[1], 'status', 'finished')
record_followups(KEYS[2], KEYS[3], 2)
return 'finished_now'
"""
)


@dataclass(frozen=True, slots=True)
class CreateCall(ScriptCall):
    SCRIPT: ClassVar[str] = CREATE
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("record", "outbox", "due")
    record: str
    outbox: str
    due: str
    pairs: int  # how many field/value pairs of the record follow
    rest: Sequence[Any]  # the record's pairs, then the follow-up actions


@dataclass(frozen=True, slots=True)
class JoinCall(ScriptCall):
    SCRIPT: ClassVar[str] = JOIN
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("record", "entrants", "outbox", "due")
    record: str
    entrants: str
    outbox: str
    due: str
    account: str
    entrant_json: bytes
    capacity: int
    late: str
    minimum: int  # the timed start's: 0 = none
    rest: Sequence[Any]  # the start's follow-up actions


@dataclass(frozen=True, slots=True)
class WithdrawCall(ScriptCall):
    SCRIPT: ClassVar[str] = WITHDRAW
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("record", "entrants", "outbox", "due")
    record: str
    entrants: str
    outbox: str
    due: str
    account: str
    entrant_json: bytes
    minimum: int  # the timed start's: 0 = none
    rest: Sequence[Any]  # the start's follow-up actions


@dataclass(frozen=True, slots=True)
class RecordRoundCall(ScriptCall):
    SCRIPT: ClassVar[str] = RECORD_ROUND
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("record", "rounds", "outbox", "due")
    record: str
    rounds: str
    outbox: str
    due: str
    number: int
    round_json: bytes
    version: str
    status: str
    rest: Sequence[Any]  # the follow-up actions


@dataclass(frozen=True, slots=True)
class ResultCall(ScriptCall):
    SCRIPT: ClassVar[str] = RESULT
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("record", "rounds", "outbox", "due")
    record: str
    rounds: str
    outbox: str
    due: str
    number: int
    table: int
    placing_json: bytes
    rest: Sequence[Any]  # the follow-up actions recorded when the round is complete


@dataclass(frozen=True, slots=True)
class FinishCall(ScriptCall):
    SCRIPT: ClassVar[str] = FINISH
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("record", "outbox", "due")
    record: str
    outbox: str
    due: str
    last_round: int
    rest: Sequence[Any]  # the follow-up actions


CALLS: tuple[type[ScriptCall], ...] = (
    CreateCall,
    JoinCall,
    WithdrawCall,
    RecordRoundCall,
    ResultCall,
    FinishCall,
)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class TournamentStore:
    def __init__(self, client: redis.Redis, followup_grace_ms: int = 2000):
        self.redis = client
        self.grace_ms = followup_grace_ms
        self._scripts = {call: bind(client, call) for call in CALLS}

    def _run(self, call: ScriptCall) -> str:
        return _text(self._scripts[type(call)](call))

    def _followups(self, tournament_id: str, value: str) -> list[Any]:
        return followup_args(outbox_id(tournament_id), {ACTION: value}, self.grace_ms)

    def _hint(self, tournament_id: str) -> None:
        # The sweeper's hint that the tournament's slot holds due work (store.outbox).
        self.redis.zadd(HINTS, {str(slot_of(outbox_id(tournament_id))): now_ms() + self.grace_ms})

    def create(
        self,
        tournament_id: str,
        organiser: str,
        config: Mapping[str, Any],
        created: int,
        start_ms: int | None = None,
    ) -> None:
        """The record, and with a start time (``start_ms``) in the same script the tournament's
        follow-up ``s``, due then (``service.tournament.schedule``)."""
        keys = tournament_keys(tournament_id)
        record = {
            "status": "open",
            "organiser": organiser,
            "config": orjson.dumps(dict(config)).decode(),
            "version": 0,
            "round": 0,
            "created": created,
        }
        pairs: list[Any] = []
        for field, value in record.items():
            pairs.extend((field, value))
        followups: list[Any] = [outbox_id(tournament_id), 0, 0]
        if start_ms is not None:
            followups = followup_args(outbox_id(tournament_id), {ACTION: "s"}, max(0, start_ms - now_ms()))
        self._run(CreateCall(keys.record, keys.outbox, keys.due, len(record), [*pairs, *followups]))
        if start_ms is not None:
            # LT: a slot's hint never moves later (other work in the slot may be due sooner)
            self.redis.zadd(HINTS, {str(slot_of(outbox_id(tournament_id))): start_ms}, lt=True)
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

    def _start_args(self, tournament_id: str, start: TimedStart | None) -> tuple[int, list[Any]]:
        if start is None:
            return 0, [outbox_id(tournament_id), 0, 0]
        return start.minimum, followup_args(outbox_id(tournament_id), {ACTION: start.value}, start.due_in_ms)

    def _start_hint(self, tournament_id: str, start: TimedStart | None, outcome: str) -> None:
        if start is not None and outcome.endswith("_start"):
            # LT: a slot's hint never moves later (other work in the slot may be due sooner)
            due = now_ms() + start.due_in_ms
            self.redis.zadd(HINTS, {str(slot_of(outbox_id(tournament_id))): due}, lt=True)

    def join(
        self,
        tournament_id: str,
        account: str,
        entrant: Mapping[str, Any],
        capacity: int,
        late: bool = False,
        start: TimedStart | None = None,
    ) -> str:
        """The entrant, once; with ``start`` (an open tournament's start time) the start's
        follow-up with it when the active entrants reach ``start.minimum`` ('joined_start')."""
        k = tournament_keys(tournament_id)
        minimum, more = self._start_args(tournament_id, start)
        who = (account, orjson.dumps(dict(entrant)))
        call = JoinCall(
            k.record, k.entrants, k.outbox, k.due, *who, capacity, "1" if late else "", minimum, more
        )
        outcome = self._run(call)
        self._start_hint(tournament_id, start, outcome)
        return outcome

    def withdraw(
        self, tournament_id: str, account: str, entrant: Mapping[str, Any], start: TimedStart | None = None
    ) -> str:
        k = tournament_keys(tournament_id)
        minimum, more = self._start_args(tournament_id, start)
        if start is None:  # recorded only if it runs: the follow-up that hands its seat to the bot
            more = self._followups(tournament_id, WITHDRAWAL)
        call = WithdrawCall(
            k.record, k.entrants, k.outbox, k.due, account, orjson.dumps(dict(entrant)), minimum, more
        )
        outcome = self._run(call)
        self._start_hint(tournament_id, start, outcome)
        if outcome == "withdrawn_running":
            self._hint(tournament_id)
        return outcome

    def record_round(
        self, tournament_id: str, number: int, data: Mapping[str, Any], version: str, status: str
    ) -> str:
        """Record round ``number`` (only as the next one) with the follow-up that starts its tables."""
        keys = tournament_keys(tournament_id)
        outcome = self._run(
            RecordRoundCall(
                keys.record,
                keys.rounds,
                keys.outbox,
                keys.due,
                number,
                orjson.dumps(dict(data)),
                version,
                status,
                self._followups(tournament_id, f"r{number}"),
            )
        )
        if outcome == "recorded":
            self._hint(tournament_id)
        return outcome

    def record_result(self, tournament_id: str, number: int, table: int, placing: list[list[str]]) -> str:
        """A table's placing, once; 'complete' when it completed the round (the follow-up that
        pairs the next round, or finishes the tournament, recorded with it)."""
        keys = tournament_keys(tournament_id)
        outcome = self._run(
            ResultCall(
                keys.record,
                keys.rounds,
                keys.outbox,
                keys.due,
                number,
                table,
                orjson.dumps(placing),
                self._followups(tournament_id, f"d{number}"),
            )
        )
        if outcome == "complete":
            self._hint(tournament_id)
        return outcome

    def finish(self, tournament_id: str, last_round: int) -> str:
        """Finished after ``last_round`` (once), with the follow-up that tells the entrants."""
        keys = tournament_keys(tournament_id)
        outcome = self._run(
            FinishCall(keys.record, keys.outbox, keys.due, last_round, self._followups(tournament_id, "f"))
        )
        if outcome == "finished_now":
            self._hint(tournament_id)
        return outcome
