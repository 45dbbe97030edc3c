"""The bot ladder in Redis: every ladder's pairings, the bot accounts busy in a ladder game, and the
tallies of ladder games and wins, under one hash tag so that a pairing is recorded, its bots marked
busy and its follow-up written in one script.

The tag is ``{g:L}``: the slot of the pseudo-game ``L`` (game ids are lower-case base32, never
``L``), whose outbox (``store.outbox``) holds the ladder's follow-up ``ladder``
(``service.ladder``): it creates the game of every pairing still in ``starting``. Keys:

- ``ladder:{g:L}:record`` hash: ``next:<game>`` -> the last pairing number of that game's ladder;
- ``ladder:{g:L}:busy`` hash: bot account id -> the pairing (``<game>:<n>``) whose game it is in;
- ``ladder:{g:L}:pairings`` hash: ``<game>:<n>`` -> JSON ``{game, number, game_id, seats}`` (each
  seat ``{account, name}`` or ``{level, name}``);
- ``ladder:{g:L}:starting`` set: pairings whose game may not exist yet (removed once created);
- ``ladder:{g:L}:open`` set: pairings whose game's result is not tallied yet;
- ``ladder:{g:L}:tally:<game>`` hash: ``<rater>|games``, ``<rater>|wins`` (ladder games only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson
import redis

from store.outbox import HINTS, due_key, followup_args, now_ms, slot_of
from store.scripts import _WRITE_EVENTS, ScriptCall, bind

OUTBOX_ID = "L"  # the pseudo-game whose outbox holds the ladder's follow-up
ACTION = "ladder"
_TAG = "{g:L}"


def _key(name: str) -> str:
    return f"ladder:{_TAG}:{name}"


RECORD, BUSY, PAIRINGS, STARTING, OPEN = (_key(n) for n in ("record", "busy", "pairings", "starting", "open"))


def tally_key(game: str) -> str:
    return _key(f"tally:{game}")


# KEYS: record, busy, pairings, starting, open, outbox, due. ARGV: game, number, pairing JSON, k,
# then the k bot account ids, then the follow-ups (record_followups). Recorded only as the next
# pairing of that ladder and only if none of its bots is busy: a pass run twice pairs once.
PAIR = (
    _WRITE_EVENTS
    + r"""
local field = 'next:' .. ARGV[1]
local last = tonumber(redis.call('HGET', KEYS[1], field) or '0')
if last + 1 ~= tonumber(ARGV[2]) then return 'stale' end
local k = tonumber(ARGV[4])
for i = 5, 4 + k do
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 1 then return 'busy' end
end
local name = ARGV[1] .. ':' .. ARGV[2]
for i = 5, 4 + k do redis.call('HSET', KEYS[2], ARGV[i], name) end
redis.call('HSET', KEYS[1], field, ARGV[2])
redis.call('HSET', KEYS[3], name, ARGV[3])
redis.call('SADD', KEYS[4], name)
redis.call('SADD', KEYS[5], name)
record_followups(KEYS[6], KEYS[7], 5 + k)
return 'paired'
"""
)

# KEYS: busy, open, tally. ARGV: pairing, r, then r pairs (rater, 1 if it won else 0), then k and
# the k bot accounts to release. Tallies a finished pairing's game once (its removal from ``open``
# is the marker) and frees its bots.
SETTLE = r"""
if redis.call('SREM', KEYS[2], ARGV[1]) == 0 then return 'settled_before' end
local r = tonumber(ARGV[2])
for i = 0, r - 1 do
  redis.call('HINCRBY', KEYS[3], ARGV[3 + 2 * i] .. '|games', 1)
  redis.call('HINCRBY', KEYS[3], ARGV[3 + 2 * i] .. '|wins', tonumber(ARGV[4 + 2 * i]))
end
local at = 3 + 2 * r
for i = at + 1, at + tonumber(ARGV[at]) do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 'settled'
"""


@dataclass(frozen=True, slots=True)
class PairCall(ScriptCall):
    """:data:`PAIR`: a ladder pairing recorded with its busy bots and the follow-up."""

    SCRIPT: ClassVar[str] = PAIR
    PRELUDE: ClassVar[str] = _WRITE_EVENTS
    KEYS: ClassVar[tuple[str, ...]] = ("record", "busy", "pairings", "starting", "open", "outbox", "due")
    record: str
    busy: str
    pairings: str
    starting: str
    open: str
    outbox: str
    due: str
    game: str
    number: int
    pairing_json: bytes
    bot_count: int
    rest: Sequence[Any]  # the bot account ids, then the follow-up actions


@dataclass(frozen=True, slots=True)
class SettleCall(ScriptCall):
    """:data:`SETTLE`: a finished ladder game tallied once, its bots freed."""

    SCRIPT: ClassVar[str] = SETTLE
    KEYS: ClassVar[tuple[str, ...]] = ("busy", "open", "tally")
    busy: str
    open: str
    tally: str
    pairing: str
    rater_count: int
    rest: Sequence[Any]  # the rater/won pairs, then the bot accounts to release


CALLS: tuple[type[ScriptCall], ...] = (PairCall, SettleCall)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True)
class Tally:
    games: int = 0
    wins: int = 0


class LadderStore:
    def __init__(self, client: redis.Redis, followup_grace_ms: int = 2000):
        self.redis = client
        self.grace_ms = followup_grace_ms
        self._scripts = {call: bind(client, call) for call in CALLS}

    def last_number(self, game: str) -> int:
        return int(self.redis.hget(RECORD, f"next:{game}") or 0)

    def busy(self) -> dict[str, str]:
        return {_text(k): _text(v) for k, v in self.redis.hgetall(BUSY).items()}

    def pair(self, game: str, number: int, pairing: Mapping[str, Any], bots: Sequence[str]) -> str:
        """Record pairing ``number`` of ``game``'s ladder (only as the next, only if its bots are
        free) with the follow-up that creates its game. Returns 'paired', 'stale' or 'busy'."""
        call = PairCall(
            RECORD,
            BUSY,
            PAIRINGS,
            STARTING,
            OPEN,
            f"game:{{g:{OUTBOX_ID}}}:outbox",
            due_key(OUTBOX_ID),
            game,
            number,
            orjson.dumps(dict(pairing)),
            len(bots),
            [*bots, *followup_args(OUTBOX_ID, {ACTION: f"{game}:{number}"}, self.grace_ms)],
        )
        outcome = _text(self._scripts[PairCall](call))
        if outcome == "paired":
            # The sweeper's hint that the ladder's slot holds due work (store.outbox).
            self.redis.zadd(HINTS, {str(slot_of(OUTBOX_ID)): now_ms() + self.grace_ms})
        return outcome

    def pairings(self, names: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not names:
            return {}
        raw = self.redis.hmget(PAIRINGS, list(names))
        return {name: orjson.loads(value) for name, value in zip(names, raw, strict=True) if value}

    def starting(self) -> list[str]:
        return sorted(_text(m) for m in self.redis.smembers(STARTING))

    def started(self, name: str) -> None:
        self.redis.srem(STARTING, name)

    def open(self) -> list[str]:
        return sorted(_text(m) for m in self.redis.smembers(OPEN))

    def settle(self, game: str, name: str, won: Mapping[str, bool], bots: Sequence[str]) -> str:
        """Tally pairing ``name``'s finished game once (``won``: rater -> it won) and free its bots."""
        pairs: list[Any] = []
        for rater, flag in won.items():
            pairs.extend((rater, 1 if flag else 0))
        call = SettleCall(BUSY, OPEN, tally_key(game), name, len(won), [*pairs, len(bots), *bots])
        return _text(self._scripts[SettleCall](call))

    def tallies(self, game: str) -> dict[str, Tally]:
        counts: dict[str, dict[str, int]] = {}
        for field, value in self.redis.hgetall(tally_key(game)).items():
            rater, _, what = _text(field).rpartition("|")
            counts.setdefault(rater, {})[what] = int(value)
        return {r: Tally(c.get("games", 0), c.get("wins", 0)) for r, c in counts.items()}
