"""A started game with every seat bound, created only if its id is free: the one way the store
creates a started game outside a seat claim or a challenge's last answer (a matched table of seeks,
a tournament's table, a ladder pairing, a rematch).

The id of such a game is known before it exists (drawn before the claim that records it, or
derived from what it is for), so the step that creates it may run twice (a process killed after
it, before its acknowledgement): the second run writes nothing and answers the existing game's
status and version. One script in the game's slot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson
import redis

from store.keys import game_keys
from store.outbox import HINTS, due_key, followup_args, now_ms, slot_of
from store.records import snapshot_bytes
from store.scripts import _WRITE_EVENTS, ScriptCall, bind, events_tail

# KEYS: meta, seats, events, snapshot, config, outbox, due set.
# ARGV: 1 full configuration JSON, 2 genesis snapshot, 3 number s of seat/token-hash pairs, then the
# pairs, then the follow-ups (record_followups), then m meta pairs and the genesis events
# (write_events). When the game exists: nothing written, its status and version answered.
CREATE_IF_ABSENT = (
    _WRITE_EVENTS
    + r"""
if redis.call('EXISTS', KEYS[1]) == 1 then
  local had = redis.call('HMGET', KEYS[1], 'status', 'version')
  return {'exists', had[1] or '', tonumber(had[2] or '0')}
end
redis.call('SET', KEYS[5], ARGV[1])
local s = tonumber(ARGV[3])
local pairs = {}
for i = 4, 3 + 2 * s do pairs[#pairs + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], unpack(pairs))
local after = record_followups(KEYS[6], KEYS[7], 4 + 2 * s)
local version = write_events(KEYS[3], KEYS[4], KEYS[1], 0, ARGV[2], after + 1)
return {'started', 'active', version}
"""
)


@dataclass(frozen=True, slots=True)
class CreateIfAbsentCall(ScriptCall):
    """:data:`CREATE_IF_ABSENT`: a started game written once under an id known beforehand."""

    SCRIPT: ClassVar[str] = CREATE_IF_ABSENT
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
    snapshot_json: bytes
    seat_pairs: int
    rest: Sequence[Any]  # the seat pairs, the follow-up actions, the meta pairs, the genesis events


CALLS: tuple[type[ScriptCall], ...] = (CreateIfAbsentCall,)


@dataclass(frozen=True)
class Created:
    made: bool  # False: the game existed (a second attempt), nothing was written
    status: str
    version: int


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class BoundGames:
    def __init__(self, client: redis.Redis, followup_grace_ms: int):
        self.redis = client
        self.grace_ms = followup_grace_ms
        self._scripts = {call: bind(client, call) for call in CALLS}

    def create_if_absent(
        self,
        game_id: str,
        *,
        config: Mapping[str, Any],
        token_hashes: Mapping[int, str],
        snapshot: Mapping[str, Any] | bytes,
        meta: Mapping[str, Any],
        genesis: Sequence[Mapping[str, Any]],
        followups: Mapping[str, Any],
    ) -> Created:
        keys = game_keys(game_id)
        pairs: list[Any] = []
        for seat, token_hash in sorted(token_hashes.items()):
            pairs.extend((str(seat), token_hash))
        call = CreateIfAbsentCall(
            meta=keys.meta,
            seats=keys.seats,
            events=keys.events,
            snapshot=keys.snapshot,
            config=keys.config,
            outbox=keys.outbox,
            due=due_key(game_id),
            config_json=orjson.dumps(dict(config)),
            snapshot_json=snapshot_bytes(snapshot),
            seat_pairs=len(pairs) // 2,
            rest=[
                *pairs,
                *followup_args(game_id, dict(followups), self.grace_ms),
                *events_tail(meta, genesis),
            ],
        )
        reply = self._scripts[CreateIfAbsentCall](call)
        # Hinted on a second attempt too: the first may have died between its script and its hint,
        # and a hint to a slot with nothing due is only dropped by the sweeper.
        self.redis.zadd(HINTS, {str(slot_of(game_id)): now_ms() + self.grace_ms})
        return Created(_text(reply[0]) == "started", _text(reply[1]), int(reply[2]))
