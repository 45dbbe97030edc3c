"""The transactional outbox: follow-up work of a committed change, recorded with the change.

The append and claim scripts (``store.scripts``) write, in the same atomic step as the events, the
follow-up actions the change implies into the game's outbox hash (``game:{g:<id>}:outbox``, field =
action, value = the version or status it is for) and put the game into the *due set* of its Cluster
slot (``outbox:{<tag>}:due``, a sorted set of game ids scored by the time in ms from which a sweeper
may take the game). ``<tag>`` is a short string chosen so that the due set hashes to the same slot as
``{g:<id>}``: the script stays single-slot.

How a sweeper finds pending work across slots: the writer follows the script, in the same pipeline
(one round trip), with ``ZADD outbox:slots <due ms> <slot>``, a hint naming the slots that may hold
due games. The sweeper reads the hints due now, takes the due games of those slots, and then sets
each hint to its slot's next due time or removes it, only if no writer changed it meanwhile
(compare-and-set on the score). A hint can be missed only if the writer dies between the script and
the ZADD (on a Cluster they go to different nodes); a full scan of the 16384 due sets
(:meth:`Outbox.rebuild_hints`, a few hundred ms) every ``FULL_SCAN_SECONDS`` catches those.

An action is removed (acknowledged) only by :meth:`Outbox.ack` with the value it was run for, so an
action overwritten meanwhile by a newer change stays pending. Consumers run each action at least
once; every action is idempotent.
"""

from __future__ import annotations

import binascii
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

import redis

from store.keys import game_keys
from store.scripts import ScriptCall, bind

CLUSTER_SLOTS = 16384
STATS = "outbox:stats"  # hash: runs:<action>, duplicates:<action> (counted, for the operator)
HINTS = "outbox:slots"  # sorted set: slot -> the time (ms) from which it may hold a due game


@cache
def _slot_tags() -> tuple[bytes, ...]:
    """For every Cluster slot, a short hash tag that maps to it (CRC16-XMODEM mod 16384, the
    Cluster's own key hash). Found by counting in hex; about 0.3 s once per process."""
    tags: list[bytes | None] = [None] * CLUSTER_SLOTS
    left = CLUSTER_SLOTS
    crc = binascii.crc_hqx
    i = 0
    while left:
        tag = b"%x" % i
        slot = crc(tag, 0) % CLUSTER_SLOTS
        if tags[slot] is None:
            tags[slot] = tag
            left -= 1
        i += 1
    return tuple(t for t in tags if t is not None)


def slot_of(game_id: str) -> int:
    return binascii.crc_hqx(f"g:{game_id}".encode(), 0) % CLUSTER_SLOTS


def due_key_for_slot(slot: int) -> str:
    return f"outbox:{{{_slot_tags()[slot].decode()}}}:due"


def due_key(game_id: str) -> str:
    """The due set in the same slot as the game's keys."""
    return due_key_for_slot(slot_of(game_id))


def outbox_key(game_id: str) -> str:
    return game_keys(game_id).outbox


def bot_lease_key(game_id: str) -> str:
    return f"bots:{{g:{game_id}}}:playing"


def bot_marker_key(game_id: str, version: int) -> str:
    return f"bots:{{g:{game_id}}}:enqueued:{version}"


def now_ms() -> int:
    return int(time.time() * 1000)


# KEYS: outbox, due; ARGV: game id, field, value. Removes the field if it still holds ``value``;
# takes the game out of the due set once its outbox is empty. Returns 1 when removed.
_ACK = r"""
local removed = 0
if redis.call('HGET', KEYS[1], ARGV[2]) == ARGV[3] then
  redis.call('HDEL', KEYS[1], ARGV[2])
  removed = 1
end
if redis.call('HLEN', KEYS[1]) == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return removed
"""

# KEYS: due; ARGV: now ms, lease ms, limit. Takes the entries due now and pushes them ``lease`` ms
# later, so two sweepers do not run the same entry at once (a sweeper that dies lets the lease run
# out). Shared by every due set of the store (the outbox's per-slot sets, the compaction queue).
TAKE_DUE = r"""
local ids = redis.call('ZRANGE', KEYS[1], '-inf', ARGV[1], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[3]))
local until_ms = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], until_ms, id)
end
return ids
"""

# KEYS: hints; ARGV: slot, the score read before the sweep, the slot's next due time ('' = none).
# Moves the hint to the next due time, or removes it, unless a writer changed it meanwhile.
_SETTLE_HINT = r"""
local current = redis.call('ZSCORE', KEYS[1], ARGV[1])
if current and tonumber(current) == tonumber(ARGV[2]) then
  if ARGV[3] == '' then
    redis.call('ZREM', KEYS[1], ARGV[1])
  else
    redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  end
  return 1
end
return 0
"""

# KEYS: outbox, due; ARGV: game id, score. Reschedules a game whose outbox still holds work.
_RESCHEDULE = r"""
if redis.call('HLEN', KEYS[1]) > 0 then
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
  return 1
end
redis.call('ZREM', KEYS[2], ARGV[1])
return 0
"""


@dataclass(frozen=True, slots=True)
class AckCall(ScriptCall):
    """:data:`_ACK`: one follow-up action acknowledged."""

    SCRIPT: ClassVar[str] = _ACK
    KEYS: ClassVar[tuple[str, ...]] = ("outbox", "due")
    outbox: str
    due: str
    game_id: str
    action: str
    value: str
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class TakeDueCall(ScriptCall):
    """:data:`TAKE_DUE`: the entries of a due set due now, leased forward."""

    SCRIPT: ClassVar[str] = TAKE_DUE
    KEYS: ClassVar[tuple[str, ...]] = ("due",)
    due: str
    now_ms: int
    lease_ms: int
    limit: int
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class SettleHintCall(ScriptCall):
    """:data:`_SETTLE_HINT`: a slot's hint moved to its next due time, or removed."""

    SCRIPT: ClassVar[str] = _SETTLE_HINT
    KEYS: ClassVar[tuple[str, ...]] = ("hints",)
    hints: str
    slot: int
    seen_score: float
    following: str  # the slot's next due time, '' = none
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class RescheduleCall(ScriptCall):
    """:data:`_RESCHEDULE`: a game whose outbox still holds work made due again."""

    SCRIPT: ClassVar[str] = _RESCHEDULE
    KEYS: ClassVar[tuple[str, ...]] = ("outbox", "due")
    outbox: str
    due: str
    game_id: str
    score: int
    rest: Sequence[Any] = ()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class Outbox:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._ack = bind(client, AckCall)
        self._take = bind(client, TakeDueCall)
        self._reschedule = bind(client, RescheduleCall)
        self._settle_hint = bind(client, SettleHintCall)

    def pending(self, game_id: str) -> dict[str, str]:
        raw = self.redis.hgetall(outbox_key(game_id))
        return {_text(k): _text(v) for k, v in raw.items()}

    def ack(self, game_id: str, action: str, value: str) -> bool:
        return bool(self._ack(AckCall(outbox_key(game_id), due_key(game_id), game_id, action, value)))

    def ack_all(self, game_id: str, done: list[tuple[str, str]]) -> list[bool]:
        """Acknowledge the actions ``done`` ((action, value) pairs) and count their runs, in one
        round trip (two when one of them was a duplicate: its count depends on the acknowledgement).
        Per action, whether it was removed (False: a duplicate run, or overwritten meanwhile)."""
        outbox, due = outbox_key(game_id), due_key(game_id)
        pipe = self.redis.pipeline(transaction=False)
        for action, value in done:
            pipe.execute_command(*self._ack.evalsha(AckCall(outbox, due, game_id, action, value)))
        for action, _ in done:
            pipe.hincrby(STATS, f"runs:{action}", 1)
        try:
            removed = [bool(reply) for reply in pipe.execute()[: len(done)]]
        except redis.exceptions.NoScriptError:
            # Redis lost its scripts (the counts went through): one by one, loading it.
            removed = [self.ack(game_id, action, value) for action, value in done]
        duplicates = [action for (action, _), acked in zip(done, removed, strict=True) if not acked]
        if duplicates:
            pipe = self.redis.pipeline(transaction=False)
            for action in duplicates:
                pipe.hincrby(STATS, f"duplicates:{action}", 1)
            pipe.execute()
        return removed

    def reschedule(self, game_id: str, at_ms: int) -> bool:
        return bool(self._reschedule(RescheduleCall(outbox_key(game_id), due_key(game_id), game_id, at_ms)))

    def due_hints(self, now: int | None = None, limit: int = 1000) -> list[tuple[int, float]]:
        """(slot, hint score) of the slots that may hold a game due at ``now``."""
        now = now_ms() if now is None else now
        found = self.redis.zrange(HINTS, "-inf", now, byscore=True, offset=0, num=limit, withscores=True)
        return [(int(slot), score) for slot, score in found]

    def take_due_in(self, slot: int, lease_ms: int, now: int | None = None, limit: int = 100) -> list[str]:
        """Game ids of ``slot`` whose follow-up work is due, each leased for ``lease_ms``."""
        now = now_ms() if now is None else now
        return [_text(i) for i in self._take(TakeDueCall(due_key_for_slot(slot), now, lease_ms, limit))]

    def settle_hint(self, slot: int, seen_score: float) -> None:
        """After a sweep of ``slot``: its hint follows the slot's next due game (or goes)."""
        first = self.redis.zrange(due_key_for_slot(slot), 0, 0, withscores=True)
        following = repr(int(first[0][1])) if first else ""
        self._settle_hint(SettleHintCall(HINTS, slot, seen_score, following))

    def rebuild_hints(self) -> int:
        """The backstop: read every slot's due set (one pipelined ZRANGE per slot) and hint each
        slot that holds a game. Returns how many slots hold one."""
        pipe = self.redis.pipeline(transaction=False)
        for slot in range(CLUSTER_SLOTS):
            pipe.zrange(due_key_for_slot(slot), 0, 0, withscores=True)
        hints = {str(slot): first[0][1] for slot, first in enumerate(pipe.execute()) if first}
        if hints:
            self.redis.zadd(HINTS, hints, lt=True)
        return len(hints)

    def is_due(self, game_id: str) -> bool:
        """Is ``game_id`` in its slot's due set (work recorded, due now or later)?"""
        return self.redis.zscore(due_key(game_id), game_id) is not None

    def count(self, action: str, duplicate: bool) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hincrby(STATS, f"runs:{action}", 1)
        if duplicate:
            pipe.hincrby(STATS, f"duplicates:{action}", 1)
        pipe.execute()

    def stats(self) -> dict[str, int]:
        return {_text(k): int(v) for k, v in self.redis.hgetall(STATS).items()}

    # -- bot turns: who is playing, and which job was enqueued for a version ---------------------
    def touch_bot_lease(self, game_id: str, ttl_ms: int) -> None:
        self.redis.set(bot_lease_key(game_id), b"1", px=ttl_ms)

    def drop_bot_lease(self, game_id: str) -> None:
        self.redis.delete(bot_lease_key(game_id))

    def bot_lease_alive(self, game_id: str) -> bool:
        return bool(self.redis.exists(bot_lease_key(game_id)))

    def mark_bot_job(self, game_id: str, version: int, job_id: str, ttl_s: int, replace: bool) -> bool:
        """Remember ``job_id`` as the bot job of ``version``; without ``replace`` only when none is
        (SET NX: one enqueue per version across processes)."""
        key = bot_marker_key(game_id, version)
        return bool(self.redis.set(key, job_id.encode(), nx=not replace, ex=ttl_s))

    def bot_job(self, game_id: str, version: int) -> str | None:
        raw = self.redis.get(bot_marker_key(game_id, version))
        return _text(raw) if raw else None

    def forget_bot_job(self, game_id: str, version: int) -> None:
        self.redis.delete(bot_marker_key(game_id, version))


def hint(pipe: Any, game_id: str, due_ms: int) -> None:
    """Queue, on ``pipe``, the hint that ``game_id``'s slot holds work due at ``due_ms``."""
    pipe.zadd(HINTS, {str(slot_of(game_id)): due_ms})


def followup_args(game_id: str, actions: dict[str, Any], grace_ms: int) -> list[Any]:
    """The script arguments that record ``actions`` (game id, grace, count, pairs)."""
    flat: list[Any] = [game_id, grace_ms, len(actions)]
    for action, value in actions.items():
        flat.extend((action, str(value)))
    return flat
