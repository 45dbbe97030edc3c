"""The Lua scripts that change a game. Each runs atomically inside Redis and touches only the keys of
one game (passed in KEYS, all with the game's hash tag), so they are Cluster-safe.

Replies are arrays whose first element names the outcome; the caller (``store.games``) turns them
into Python results. Lua never sees a raw token: only its SHA-256 hex.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, ClassVar, Generic, TypeVar

import orjson

from store.records import flatten

# A game's snapshot is rewritten when a change crosses a multiple of this many versions (and at
# every change of status), not at every append: it is ~2 KB of a Condottiere state, most of what an
# append wrote to the AOF and sent to replicas (2,650 bytes of AOF per move). A load reads
# the snapshot with the events after it (at most this many) in one round trip, and folds them;
# a conflicting append returns them with the snapshot.
SNAPSHOT_INTERVAL = 16

# Shared by both scripts: appends the events (from ARGV[first_pair + 2m] to the end) to the stream
# as the versions after ``version`` (stream id ``<version>-1``), stores the snapshot (when one is
# given: '' leaves the stored one, older, in place), and writes
# ``version`` and the m meta field/value pairs (m in ARGV[first_pair - 1], the pairs from
# ARGV[first_pair]). Returns the new version.
_WRITE_EVENTS = r"""
local function write_events(events_key, snapshot_key, meta_key, version, snapshot, first_pair)
  local first_event = first_pair + 2 * tonumber(ARGV[first_pair - 1])
  for i = first_event, #ARGV do
    version = version + 1
    redis.call('XADD', events_key, version .. '-1', 'e', ARGV[i])
  end
  if snapshot ~= '' then
    redis.call('SET', snapshot_key, snapshot)
  end
  local fields = {'version', version}
  for i = first_pair, first_event - 1 do
    fields[#fields + 1] = ARGV[i]
  end
  redis.call('HSET', meta_key, unpack(fields))
  return version
end

-- The transactional outbox (store/outbox.py): ARGV[first] game id, ARGV[first + 1] grace in ms,
-- ARGV[first + 2] number k of action/value pairs, then the pairs. Writes them to the game's outbox
-- and makes the game due in its slot's due set ``grace`` ms from now (Redis's clock). Returns the
-- index of the first argument after the pairs.
local function record_followups(outbox_key, due_key, first)
  local count = tonumber(ARGV[first + 2])
  if count > 0 then
    local entries = {}
    for i = first + 3, first + 2 + 2 * count do
      entries[#entries + 1] = ARGV[i]
    end
    redis.call('HSET', outbox_key, unpack(entries))
    local t = redis.call('TIME')
    local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    redis.call('ZADD', due_key, now_ms + tonumber(ARGV[first + 1]), ARGV[first])
  end
  return first + 3 + 2 * count
end
"""

# KEYS: events, snapshot, meta, seats, idem, outbox, due set of the game's slot
# ARGV: 1 seat ('' = trusted caller, no token check), 2 token hash, 3 idempotency field ('' = none),
#       4 fingerprint, 5 expected version, 6 snapshot JSON ('' = none: the stored one stays, older),
#       7 response JSON kept for replays, 8 idempotency TTL seconds, 9.. the follow-up actions
#       (record_followups), then the number m of meta field/value pairs, the pairs, then the events.
# A conflict returns the current version, the stored snapshot (which may be older) and the last
# SNAPSHOT_INTERVAL events, newest first: enough to bring the snapshot to the current version.
APPEND = (
    _WRITE_EVENTS
    + r"""
local seat = ARGV[1]
if seat ~= '' then
  local stored = redis.call('HGET', KEYS[4], seat)
  if (not stored) or stored ~= ARGV[2] then
    return {'bad_token'}
  end
end
local idem = ARGV[3]
if idem ~= '' then
  local prior = redis.call('HGET', KEYS[5], idem)
  if prior then
    local sep = string.find(prior, '\n', 1, true)
    if string.sub(prior, 1, sep - 1) == ARGV[4] then
      return {'replay', string.sub(prior, sep + 1)}
    end
    return {'idem_mismatch'}
  end
end
local meta = redis.call('HMGET', KEYS[3], 'status', 'version')
if not meta[1] then
  return {'not_found'}
end
if meta[1] ~= 'active' then
  return {'not_active', meta[1], tonumber(meta[2] or '0')}
end
local current = tonumber(meta[2] or '0')
if current ~= tonumber(ARGV[5]) then
  return {'conflict', current, redis.call('GET', KEYS[2]) or '',
          redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', SNAPSHOT_INTERVAL)}
end
local after = record_followups(KEYS[6], KEYS[7], 9)
local version = write_events(KEYS[1], KEYS[2], KEYS[3], current, ARGV[6], after + 1)
if idem ~= '' then
  redis.call('HSET', KEYS[5], idem, ARGV[4] .. '\n' .. ARGV[7])
  redis.call('EXPIRE', KEYS[5], tonumber(ARGV[8]))
end
return {'ok', version}
""".replace("SNAPSHOT_INTERVAL", str(SNAPSHOT_INTERVAL))
)

# KEYS: meta, seats, events, snapshot, outbox, due set of the game's slot
# ARGV: 1 seat ('' = the lowest free seat), 2 display name, 3 token hash, 4 kind (human/bot),
#       5 bot level ('' for humans), 6 now (ISO time), 7 genesis snapshot JSON, 8 the account the
#       seat is bound to ('' = none; meta ``account:<seat>``), 9.. the follow-up actions recorded
#       when the game starts or when an account claims (record_followups), then the number m of
#       meta field/value pairs written when the game starts, the pairs, then the genesis events.
# An account holds at most one seat of a game (its token then names one seat): 'already_seated'.
# The start records the 'accounts' follow-up (the accounts' feeds) when any seat is bound.
# A caller that expects seats to remain free after its claim may leave out the start (ARGV[7] ''
# and nothing after ARGV[9..11] = '', grace, 0 (or an account's follow-up), then m = 0): should its
# claim fill the last seat after all (other claims came first), the script changes nothing and
# answers 'need_start'.
CLAIM = (
    _WRITE_EVENTS
    + r"""
local meta = redis.call('HMGET', KEYS[1], 'status', 'seat_count')
if not meta[1] then
  return {'not_found'}
end
if meta[1] ~= 'open' then
  return {'not_open', meta[1]}
end
local count = tonumber(meta[2])
local seat = ARGV[1]
if seat == '' then
  for i = 0, count - 1 do
    if redis.call('HEXISTS', KEYS[2], tostring(i)) == 0 then
      seat = tostring(i)
      break
    end
  end
  if seat == '' then
    return {'full'}
  end
else
  if tonumber(seat) >= count then
    return {'no_such_seat'}
  end
  if redis.call('HEXISTS', KEYS[2], seat) == 1 then
    return {'taken'}
  end
end
local bound = false
for i = 0, count - 1 do
  local holder = redis.call('HGET', KEYS[1], 'account:' .. i)
  if holder then
    if holder == ARGV[8] then
      return {'already_seated'}
    end
    bound = true
  end
end
local last = redis.call('HLEN', KEYS[2]) + 1 >= count
if last and ARGV[7] == '' then
  return {'need_start'}
end
redis.call('HSET', KEYS[2], seat, ARGV[3])
redis.call('HSET', KEYS[1], 'name:' .. seat, ARGV[2], 'kind:' .. seat, ARGV[4],
           'bot:' .. seat, ARGV[5], 'updated', ARGV[6])
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[1], 'account:' .. seat, ARGV[8])
  bound = true
end
if not last then
  record_followups(KEYS[5], KEYS[6], 9)
  return {'claimed', tonumber(seat), 0}
end
local after = record_followups(KEYS[5], KEYS[6], 9)
local version = write_events(KEYS[3], KEYS[4], KEYS[1], 0, ARGV[7], after + 1)
if bound then
  redis.call('HSET', KEYS[5], 'accounts', version)
end
return {'started', tonumber(seat), version, bound and 1 or 0}
"""
)

# KEYS: events, snapshot, meta, seats
# ARGV: 1 seat, 2 its current token hash, 3 the new token hash, 4 expected version, 5 snapshot JSON,
#       6 number m of meta field/value pairs, 7..6+2m pairs, then the events (the rotation's record).
# The old hash is replaced in the same step that records the rotation, so from this instant on
# every script (moves included) refuses the old token, and every process's cached copy of the game
# is stale (its version moved on).
ROTATE = (
    _WRITE_EVENTS
    + r"""
local stored = redis.call('HGET', KEYS[4], ARGV[1])
if (not stored) or stored ~= ARGV[2] then
  return {'bad_token'}
end
local meta = redis.call('HMGET', KEYS[3], 'status', 'version')
if meta[1] ~= 'active' then
  return {'not_active', meta[1] or '', tonumber(meta[2] or '0')}
end
local current = tonumber(meta[2] or '0')
if current ~= tonumber(ARGV[4]) then
  return {'conflict', current}
end
local version = write_events(KEYS[1], KEYS[2], KEYS[3], current, ARGV[5], 7)
redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
return {'ok', version}
"""
)


# -- the typed calls ------------------------------------------------------------------------------
# One small wrapper per script names its KEYS (``KEYS``, in order) and its fixed ARGV (the fields
# after the keys, in order); ``rest`` is the variadic tail a script reads from computed positions
# (follow-up actions, meta pairs, events). tests/store/test_script_calls.py checks each wrapper
# against the highest KEYS[n] and ARGV[n] its script's Lua names.


def events_tail(meta: Mapping[str, Any] | None, events: Sequence[Mapping[str, Any]]) -> list[Any]:
    """The tail of ARGV that ``write_events`` reads: the number m of meta field/value pairs, the
    pairs, then the events."""
    meta_args = flatten(meta or {})
    return [len(meta_args) // 2, *meta_args, *(orjson.dumps(event) for event in events)]


class ScriptCall:
    """Base of the typed calls: :meth:`keys` and :meth:`args` as the script reads them. A script
    that reads a variable number of keys after its named ones (``KEYS[i]`` in a loop) takes them in
    a field ``rest_keys``; one with no variadic ARGV tail leaves ``rest`` empty."""

    SCRIPT: ClassVar[str]
    # Shared Lua functions the script starts with, whose KEYS and ARGV positions are computed from
    # their parameters (the arity check reads the script after them).
    PRELUDE: ClassVar[str] = ""
    KEYS: ClassVar[tuple[str, ...]]
    _ARGS: ClassVar[tuple[str, ...] | None] = None
    rest: Sequence[Any]

    @classmethod
    def arg_names(cls) -> tuple[str, ...]:
        """The fixed ARGV, in order: the fields after the keys, but ``rest`` and ``rest_keys``."""
        names = cls.__dict__.get("_ARGS")
        if names is None:
            tails = ("rest", "rest_keys")
            names = tuple(f.name for f in fields(cls) if f.name not in cls.KEYS and f.name not in tails)  # type: ignore[arg-type]
            cls._ARGS = names
        return names

    # The readers of a call's KEYS and fixed ARGV, as tuples. Every move's append runs through
    # :meth:`keys` and :meth:`args`: the first call of each class builds its readers and puts them on
    # the class, so later calls find them as plain attributes (no lookup function in between).
    @staticmethod
    def _read_keys(call: ScriptCall) -> tuple[Any, ...]:
        return _install_readers(type(call))[0](call)

    @staticmethod
    def _read_args(call: ScriptCall) -> tuple[Any, ...]:
        return _install_readers(type(call))[1](call)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # A subclass builds its own readers (never its parent's, installed on the parent).
        super().__init_subclass__(**kwargs)
        cls._read_keys = ScriptCall.__dict__["_read_keys"]  # type: ignore[method-assign]
        cls._read_args = ScriptCall.__dict__["_read_args"]  # type: ignore[method-assign]

    def keys(self) -> list[str]:
        return [*self._read_keys(self)]

    def args(self) -> list[Any]:
        return [*self._read_args(self), *self.rest]


Reader = Callable[[Any], tuple[Any, ...]]


def _install_readers(cls: type[ScriptCall]) -> tuple[Reader, Reader]:
    named = _reader(cls.KEYS)
    if "rest_keys" in {f.name for f in fields(cls)}:  # type: ignore[arg-type]
        keys: Reader = lambda call: (*named(call), *call.rest_keys)  # noqa: E731
    else:
        keys = named
    found = (keys, _reader(cls.arg_names()))
    cls._read_keys = staticmethod(found[0])  # type: ignore[method-assign,assignment]
    cls._read_args = staticmethod(found[1])  # type: ignore[method-assign,assignment]
    return found


def _reader(names: tuple[str, ...]) -> Reader:
    """The attributes ``names`` of an object, as a tuple (``attrgetter`` answers one name bare)."""
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda call: (one(call),)
    if not names:
        return lambda call: ()
    return attrgetter(*names)


C = TypeVar("C", bound=ScriptCall)


class Bound(Generic[C]):
    """A script registered on a client, run only with its typed call (:func:`bind`)."""

    __slots__ = ("registered",)

    def __init__(self, client: Any, call: type[C]) -> None:
        self.registered = client.register_script(call.SCRIPT)

    def __call__(self, call: C, client: Any = None) -> Any:
        """Run the script with ``call``'s keys and arguments (on ``client``: a pipeline, say)."""
        return self.registered(keys=call.keys(), args=call.args(), client=client)

    def evalsha(self, call: C) -> tuple[Any, ...]:
        """The EVALSHA command of ``call``, for a pipeline to send as it is (a pipeline given the
        registered script would first ask SCRIPT EXISTS: one more round trip)."""
        keys = call.keys()
        return ("EVALSHA", self.registered.sha, len(keys), *keys, *call.args())


def bind(client: Any, call: type[C]) -> Bound[C]:
    """``call``'s script registered on ``client``: the one place the store registers a script, so
    every script runs through its typed call (tests/store/test_script_calls.py)."""
    return Bound(client, call)


@dataclass(frozen=True, slots=True)
class AppendCall(ScriptCall):
    """:data:`APPEND`: a seat's (or a trusted caller's) events, at an expected version."""

    SCRIPT: ClassVar[str] = APPEND
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("events", "snapshot", "meta", "seats", "idem", "outbox", "due")
    events: str
    snapshot: str
    meta: str
    seats: str
    idem: str
    outbox: str
    due: str
    seat: str
    token_hash: str
    idempotency_field: str
    fingerprint: str
    expected_version: int
    snapshot_json: bytes
    response_json: bytes
    idempotency_ttl: int
    rest: Sequence[Any]  # the follow-up actions, the meta pairs, the events


@dataclass(frozen=True, slots=True)
class ClaimCall(ScriptCall):
    """:data:`CLAIM`: a seat claimed, and the game started when it is the last."""

    SCRIPT: ClassVar[str] = CLAIM
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("meta", "seats", "events", "snapshot", "outbox", "due")
    meta: str
    seats: str
    events: str
    snapshot: str
    outbox: str
    due: str
    seat: str
    name: str
    token_hash: str
    kind: str
    bot: str
    now: str
    snapshot_json: bytes
    account: str
    rest: Sequence[Any]  # the follow-up actions, the meta pairs, the genesis events


@dataclass(frozen=True, slots=True)
class RotateCall(ScriptCall):
    """:data:`ROTATE`: a seat's token hash replaced, with the rotation's record."""

    SCRIPT: ClassVar[str] = ROTATE
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("events", "snapshot", "meta", "seats")
    events: str
    snapshot: str
    meta: str
    seats: str
    seat: str
    token_hash: str
    new_token_hash: str
    expected_version: int
    snapshot_json: bytes
    rest: Sequence[Any]  # the number of meta pairs, the pairs, the events


CALLS: tuple[type[ScriptCall], ...] = (AppendCall, ClaimCall, RotateCall)
