"""Challenges in Redis: an invitation to a game whose id is reserved when the challenge is made.

A challenge's id IS the id of the game it becomes, and its keys carry that game's hash tag
(``{g:<id>}``), so the acceptance that fills the last seat creates the game, binds every seat and
appends its start in ONE script (``_ANSWER``), in one Cluster slot: no crash can leave a half-made
game, or a challenge answered "started" without its game.

Keys of one challenge (all ``{g:<id>}``):

- ``chal:{g:<id>}:record`` hash: ``status`` (pending, started, declined, canceled, expired),
  ``challenger`` (account id), ``public`` (JSON: what every party may read), ``config`` (the full
  configuration, seed included: secret), ``expires`` (ms), ``anonymous`` ("1": open seats may be
  taken without an account), ``reason`` (a decline's);
- ``chal:{g:<id>}:seats`` hash: seat -> JSON ``{kind: account|open|bot, account, name, level,
  answer: pending|accepted, token_hash}``;
- ``chal:{g:<id>}:notices`` list: JSON ``{kind, to: [account ids], data}``, what the parties are
  told; the follow-up action ``challenge`` (the game's outbox, ``store.outbox``), recorded by the
  same script as the change, delivers them (``service.challenge_followup``).

Cross-challenge keys, written outside the scripts and repaired by their readers:
``challenges:expiring`` (sorted set: id -> expiry ms), written BEFORE the challenge so no crash
loses an expiry (the janitor drops ids with no pending challenge); ``challenges:open`` (sorted
set of pending challenges with a free open seat, for the lobby) and each account's
``chal-acct:{a:<id>}`` (sorted set: the pending challenges it is a party to), both written by
the idempotent follow-up.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson
import redis

from store.keys import game_keys
from store.outbox import HINTS, due_key, followup_args, now_ms, slot_of
from store.records import flatten, snapshot_bytes
from store.scripts import _WRITE_EVENTS, Bound, ScriptCall, bind

EXPIRING = "challenges:expiring"
OPEN = "challenges:open"


@dataclass(frozen=True)
class ChallengeKeys:
    record: str
    seats: str
    notices: str


def challenge_keys(challenge_id: str) -> ChallengeKeys:
    tag = f"{{g:{challenge_id}}}"
    return ChallengeKeys(f"chal:{tag}:record", f"chal:{tag}:seats", f"chal:{tag}:notices")


def account_challenges_key(account_id: str) -> str:
    return f"chal-acct:{{a:{account_id}}}"


@dataclass(frozen=True)
class StoredChallenge:
    id: str
    record: dict[str, str]
    seats: dict[int, dict[str, Any]]
    notices: list[dict[str, Any]]

    @property
    def status(self) -> str:
        return self.record.get("status", "")

    @property
    def public(self) -> dict[str, Any]:
        return dict(orjson.loads(self.record.get("public") or "{}"))


# KEYS: record, seats, notices, game meta, outbox, due set. ARGV: 1 record pairs count r, then r
# pairs, then seat count s, s seat/JSON pairs, then the notice JSON, then the follow-ups
# (record_followups). Refuses when the id is already a challenge or a game.
_CREATE = (
    _WRITE_EVENTS
    + r"""
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[4]) == 1 then
  return {'exists'}
end
local r = tonumber(ARGV[1])
local i = 2
local fields = {}
for j = 1, 2 * r do fields[#fields + 1] = ARGV[i]; i = i + 1 end
redis.call('HSET', KEYS[1], unpack(fields))
local s = tonumber(ARGV[i]); i = i + 1
local seats = {}
for j = 1, 2 * s do seats[#seats + 1] = ARGV[i]; i = i + 1 end
redis.call('HSET', KEYS[2], unpack(seats))
redis.call('RPUSH', KEYS[3], ARGV[i])
record_followups(KEYS[5], KEYS[6], i + 1)
return {'ok'}
"""
)

# KEYS: record, seats, notices, outbox, due set, game meta, game seats, events, snapshot, config.
# ARGV: 1 seat, 2 who answers (account id; '' anonymous), 3 the seat's new JSON, 4 a notice JSON
# ('' none), 5 now (ms), 6 the start's snapshot ('' = no start), 7.. follow-ups (record_followups),
# then m meta pairs and the genesis events (write_events).
# Without the start, an answer that would leave no seat pending changes nothing ('need_start');
# with it, one that leaves seats pending changes nothing ('stale'): the caller read before another
# answer and sends again. The start writes the game's metadata, configuration, seat token hashes
# and genesis events, and marks the challenge started, in this one step.
_ANSWER = (
    _WRITE_EVENTS
    + r"""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then
  return {'not_found'}
end
if status ~= 'pending' then
  return {'not_pending', status}
end
if tonumber(ARGV[5]) >= tonumber(redis.call('HGET', KEYS[1], 'expires')) then
  return {'not_pending', 'expired'}
end
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then
  return {'no_such_seat'}
end
local seat = cjson.decode(raw)
if seat.answer ~= 'pending' then
  return {'taken'}
end
local all = redis.call('HGETALL', KEYS[2])
local pending = 0
for j = 1, #all, 2 do
  local other = cjson.decode(all[j + 1])
  if all[j] ~= ARGV[1] then
    if other.answer == 'pending' then pending = pending + 1 end
    if ARGV[2] ~= '' and other.account == ARGV[2] and seat.kind == 'open' then
      return {'already_seated'}
    end
  end
end
if seat.kind == 'account' and seat.account ~= ARGV[2] then
  return {'not_invited'}
end
if seat.kind == 'open' and ARGV[2] == '' and redis.call('HGET', KEYS[1], 'anonymous') ~= '1' then
  return {'account_required'}
end
if seat.kind == 'bot' then
  return {'taken'}
end
if pending == 0 and ARGV[6] == '' then
  return {'need_start'}
end
if pending > 0 and ARGV[6] ~= '' then
  return {'stale'}
end
if pending == 0 and redis.call('EXISTS', KEYS[6]) == 1 then
  return {'not_pending', 'started'}
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
if ARGV[4] ~= '' then
  redis.call('RPUSH', KEYS[3], ARGV[4])
end
local after = record_followups(KEYS[4], KEYS[5], 7)
if pending > 0 then
  return {'accepted', 0}
end
all = redis.call('HGETALL', KEYS[2])
local hashes = {}
for j = 1, #all, 2 do
  hashes[#hashes + 1] = all[j]
  hashes[#hashes + 1] = cjson.decode(all[j + 1]).token_hash
end
redis.call('HSET', KEYS[7], unpack(hashes))
redis.call('SET', KEYS[10], redis.call('HGET', KEYS[1], 'config'))
local version = write_events(KEYS[8], KEYS[9], KEYS[6], 0, ARGV[6], after + 1)
redis.call('HSET', KEYS[1], 'status', 'started')
return {'started', version}
"""
)

# KEYS: record, seats, notices, outbox, due set. ARGV: 1 new status (declined, canceled, expired),
# 2 the account that acts ('' for the expiry), 3 now (ms), 4 reason, 5 notice JSON, 6.. follow-ups.
# A decline needs a pending seat of that account; a cancel the challenger; an expiry the time.
_SETTLE = (
    _WRITE_EVENTS
    + r"""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then
  return {'not_found'}
end
if status ~= 'pending' then
  return {'not_pending', status}
end
local to = ARGV[1]
if to == 'canceled' and redis.call('HGET', KEYS[1], 'challenger') ~= ARGV[2] then
  return {'not_challenger'}
end
if to == 'expired' and tonumber(ARGV[3]) < tonumber(redis.call('HGET', KEYS[1], 'expires')) then
  return {'not_due'}
end
if to == 'declined' then
  local found = false
  local all = redis.call('HGETALL', KEYS[2])
  for j = 1, #all, 2 do
    local seat = cjson.decode(all[j + 1])
    if seat.kind == 'account' and seat.account == ARGV[2] and seat.answer == 'pending' then
      found = true
    end
  end
  if not found then
    return {'not_invited'}
  end
end
redis.call('HSET', KEYS[1], 'status', to, 'reason', ARGV[4])
redis.call('RPUSH', KEYS[3], ARGV[5])
record_followups(KEYS[4], KEYS[5], 6)
return {'ok'}
"""
)


@dataclass(frozen=True, slots=True)
class CreateCall(ScriptCall):
    """:data:`_CREATE`: a pending challenge written."""

    SCRIPT: ClassVar[str] = _CREATE
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("record", "seats", "notices", "game_meta", "outbox", "due")
    record: str
    seats: str
    notices: str
    game_meta: str
    outbox: str
    due: str
    record_pairs: int
    rest: Sequence[Any]  # the record pairs, the seat count and pairs, the notice, the follow-ups


@dataclass(frozen=True, slots=True)
class AnswerCall(ScriptCall):
    """:data:`_ANSWER`: a seat's acceptance, and the game's start when it is the last."""

    SCRIPT: ClassVar[str] = _ANSWER
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = (
        "record", "seats", "notices", "outbox", "due",
        "game_meta", "game_seats", "events", "snapshot", "config",
    )  # fmt: skip
    record: str
    seats: str
    notices: str
    outbox: str
    due: str
    game_meta: str
    game_seats: str
    events: str
    snapshot: str
    config: str
    seat: str
    who: str  # the account id; '' anonymous
    seat_json: bytes
    notice_json: bytes  # b'' for none
    now_ms: int
    snapshot_json: bytes  # b'' for no start
    rest: Sequence[Any]  # the follow-ups, the meta pairs, the genesis events


@dataclass(frozen=True, slots=True)
class SettleCall(ScriptCall):
    """:data:`_SETTLE`: a pending challenge declined, canceled or expired."""

    SCRIPT: ClassVar[str] = _SETTLE
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("record", "seats", "notices", "outbox", "due")
    record: str
    seats: str
    notices: str
    outbox: str
    due: str
    status: str
    who: str
    now_ms: int
    reason: str
    notice_json: bytes
    rest: Sequence[Any]  # the follow-ups


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class ChallengeStore:
    def __init__(self, client: redis.Redis, followup_grace_ms: int):
        self.redis = client
        self.grace_ms = followup_grace_ms
        self._create = bind(client, CreateCall)
        self._answer = bind(client, AnswerCall)
        self._settle = bind(client, SettleCall)

    def _hinted(self, challenge_id: str, script: Bound[Any], call: ScriptCall) -> Any:
        reply = script(call)
        # The slot's hint, after the script (store.outbox: a hint lost to a crash is found by the
        # janitor's full scan).
        self.redis.zadd(HINTS, {str(slot_of(challenge_id)): now_ms() + self.grace_ms})
        return reply

    def create(
        self,
        challenge_id: str,
        record: Mapping[str, Any],
        seats: Mapping[int, Mapping[str, Any]],
        notice: Mapping[str, Any],
        followups: Mapping[str, Any],
        expires_ms: int,
    ) -> bool:
        """Write a pending challenge (False: the id is taken). Its expiry is indexed first."""
        self.redis.zadd(EXPIRING, {challenge_id: expires_ms})
        pairs = flatten(record)
        seat_pairs: list[Any] = []
        for seat, entry in seats.items():
            seat_pairs.extend((str(seat), orjson.dumps(dict(entry))))
        keys = challenge_keys(challenge_id)
        call = CreateCall(
            record=keys.record,
            seats=keys.seats,
            notices=keys.notices,
            game_meta=game_keys(challenge_id).meta,
            outbox=game_keys(challenge_id).outbox,
            due=due_key(challenge_id),
            record_pairs=len(pairs) // 2,
            rest=[
                *pairs,
                len(seat_pairs) // 2,
                *seat_pairs,
                orjson.dumps(dict(notice)),
                *followup_args(challenge_id, dict(followups), self.grace_ms),
            ],
        )
        reply = self._hinted(challenge_id, self._create, call)
        return _text(reply[0]) == "ok"

    def load(self, challenge_id: str) -> StoredChallenge | None:
        keys = challenge_keys(challenge_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hgetall(keys.record)
        pipe.hgetall(keys.seats)
        pipe.lrange(keys.notices, 0, -1)
        record, seats, notices = pipe.execute()
        if not record:
            return None
        return StoredChallenge(
            id=challenge_id,
            record={_text(k): _text(v) for k, v in record.items()},
            seats={int(k): orjson.loads(v) for k, v in seats.items()},
            notices=[orjson.loads(n) for n in notices],
        )

    def answer(
        self,
        challenge_id: str,
        *,
        seat: int,
        who: str,
        seat_entry: Mapping[str, Any],
        notice: Mapping[str, Any] | None,
        followups: Mapping[str, Any],
        snapshot: Mapping[str, Any] | bytes | None = None,
        meta: Mapping[str, Any] | None = None,
        genesis: Sequence[Mapping[str, Any]] = (),
    ) -> tuple[str, Any]:
        """Accept (or take an open seat); with ``snapshot`` the game starts in the same step.
        Returns (outcome, detail): accepted, started (detail: version), need_start, stale,
        not_found, not_pending (detail: status), no_such_seat, taken, not_invited,
        already_seated, account_required."""
        game, keys = game_keys(challenge_id), challenge_keys(challenge_id)
        meta_pairs = flatten(meta or {})
        call = AnswerCall(
            record=keys.record,
            seats=keys.seats,
            notices=keys.notices,
            outbox=game.outbox,
            due=due_key(challenge_id),
            game_meta=game.meta,
            game_seats=game.seats,
            events=game.events,
            snapshot=game.snapshot,
            config=game.config,
            seat=str(seat),
            who=who,
            seat_json=orjson.dumps(dict(seat_entry)),
            notice_json=orjson.dumps(dict(notice)) if notice else b"",
            now_ms=now_ms(),
            snapshot_json=snapshot_bytes(snapshot),
            rest=[
                *followup_args(challenge_id, dict(followups), self.grace_ms),
                len(meta_pairs) // 2,
                *meta_pairs,
                *(orjson.dumps(dict(e)) for e in genesis),
            ],
        )
        reply = self._hinted(challenge_id, self._answer, call)
        outcome = _text(reply[0])
        detail = reply[1] if len(reply) > 1 else None
        return outcome, (_text(detail) if isinstance(detail, bytes) else detail)

    def settle(
        self,
        challenge_id: str,
        status: str,
        who: str,
        reason: str,
        notice: Mapping[str, Any],
        followups: Mapping[str, Any],
        now: int | None = None,
    ) -> tuple[str, str | None]:
        """Decline, cancel or expire a pending challenge. (outcome, status it had when refused)."""
        keys = challenge_keys(challenge_id)
        call = SettleCall(
            record=keys.record,
            seats=keys.seats,
            notices=keys.notices,
            outbox=game_keys(challenge_id).outbox,
            due=due_key(challenge_id),
            status=status,
            who=who,
            now_ms=now if now is not None else now_ms(),
            reason=reason,
            notice_json=orjson.dumps(dict(notice)),
            rest=followup_args(challenge_id, dict(followups), self.grace_ms),
        )
        reply = self._hinted(challenge_id, self._settle, call)
        outcome = _text(reply[0])
        return outcome, (_text(reply[1]) if len(reply) > 1 else None)

    # -- the indexes the follow-up keeps ---------------------------------------------------------
    def due_expiries(self, now: int, limit: int = 100) -> list[str]:
        return [_text(m) for m in self.redis.zrangebyscore(EXPIRING, "-inf", now, start=0, num=limit)]

    def forget_expiry(self, challenge_id: str) -> None:
        self.redis.zrem(EXPIRING, challenge_id)

    def index_party(self, account_id: str, challenge_id: str, pending: bool, score: float) -> None:
        key = account_challenges_key(account_id)
        if pending:
            self.redis.zadd(key, {challenge_id: score})
        else:
            self.redis.zrem(key, challenge_id)

    def of_account(self, account_id: str, limit: int = 50) -> list[str]:
        return [_text(m) for m in self.redis.zrevrange(account_challenges_key(account_id), 0, limit - 1)]

    def index_open(self, challenge_id: str, listed: bool, score: float) -> bool:
        """List or unlist a challenge with free open seats; True when it was listed before."""
        was = self.redis.zscore(OPEN, challenge_id) is not None
        if listed:
            self.redis.zadd(OPEN, {challenge_id: score})
        else:
            self.redis.zrem(OPEN, challenge_id)
        return was

    def open_ids(self, limit: int = 100) -> list[str]:
        return [_text(m) for m in self.redis.zrevrange(OPEN, 0, limit - 1)]

    def load_many(self, ids: Iterable[str]) -> list[StoredChallenge | None]:
        return [self.load(i) for i in ids]
