"""The archive's statistics aggregates: the increments of one game (:class:`Counts`) and the Lua
that adds them (:data:`ADD_COUNTS`, in the very script that enters a game into the archive,
``store.archive``; :data:`RECOUNT` for a recomputation) or takes a deleted account's seat out of
them (:data:`FORGET_COUNTS`). Their keys are ``store.archive_keys``'s ``stats_*_key``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from store.scripts import ScriptCall

# Adds a game's increments to the statistics aggregates: the keys from KEYS[first_key] on, one per
# group of ARGV from ARGV[first_arg] on. A group: kind ('h': hash counters, 'z': sorted-set scores),
# the number m of pairs, a "latest" ordering string ('' = none) and its value, then m (field, amount)
# pairs. A hash with a latest string keeps the value of the greatest string seen ('@at', '@name').
ADD_COUNTS = r"""
local function add_counts(first_key, first_arg, last_key)
  local a = first_arg
  for k = first_key, last_key do
    local key, kind, m, at, latest = KEYS[k], ARGV[a], tonumber(ARGV[a + 1]), ARGV[a + 2], ARGV[a + 3]
    a = a + 4
    for j = 1, m do
      if kind == 'h' then
        redis.call('HINCRBY', key, ARGV[a], ARGV[a + 1])
      else
        redis.call('ZINCRBY', key, ARGV[a + 1], ARGV[a])
      end
      a = a + 2
    end
    if at ~= '' then
      local seen = redis.call('HGET', key, '@at')
      if not seen or at > seen then
        redis.call('HSET', key, '@at', at, '@name', latest)
      end
    end
  end
end
"""

# A recomputation from scratch: the increments of one game, with no marker (the caller emptied the
# aggregates first). KEYS: the statistics keys; ARGV: the groups.
RECOUNT = ADD_COUNTS + "\nadd_counts(1, 1, #KEYS)\nreturn 1\n"


# Takes one game's seat out of the name statistics (an account's deletion renamed it): KEYS: the
# engine's set, version, the marker set, then one key per group; ARGV: 1 game id, then the groups
# as ADD_COUNTS reads them (negative amounts), kind 'h' (hash: a field at zero stays, as a game
# that counted zero leaves it), 'p' (hash: a field at zero goes) or 'z' (sorted set: a member at
# zero goes); a hash's "latest" string (see ADD_COUNTS) that is still its '@at' takes '@at' and
# '@name' away (the spelling of the forgotten seat). Once per game (the marker), and only for a
# game already counted (in its engine's set: one entering later is counted under its new name). A
# hash left with no game goes. The version is bumped: statistics computed before are stale.
FORGET_COUNTS = r"""
if redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 or not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
local a = 2
for k = 4, #KEYS do
  local key, kind, m, at = KEYS[k], ARGV[a], tonumber(ARGV[a + 1]), ARGV[a + 2]
  a = a + 4
  if kind ~= 'z' and at ~= '' and redis.call('HGET', key, '@at') == at then
    redis.call('HDEL', key, '@at', '@name')  -- the spelling was this game's: it goes too
  end
  for j = 1, m do
    local field, amount = ARGV[a], ARGV[a + 1]
    a = a + 2
    if kind == 'z' then
      if tonumber(redis.call('ZINCRBY', key, amount, field)) <= 0 then
        redis.call('ZREM', key, field)
      end
    elseif redis.call('HINCRBY', key, field, amount) <= 0 and kind == 'p' then
      redis.call('HDEL', key, field)
    end
  end
  if kind ~= 'z' and tonumber(redis.call('HGET', key, '["games"]') or '0') <= 0 then
    redis.call('DEL', key)
  end
end
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('INCR', KEYS[2])
return 1
"""


@dataclass(frozen=True)
class Counts:
    """Increments of one statistics aggregate: hash counters (``kind`` 'h') or sorted-set scores
    ('z'); ``latest`` = (ordering string, value) keeps the value of the greatest string."""

    key: str
    kind: str
    increments: Mapping[str, int]
    latest: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class RecountCall(ScriptCall):
    """:data:`RECOUNT`: one game's increments, with no marker."""

    SCRIPT: ClassVar[str] = RECOUNT
    PRELUDE: ClassVar[str] = ADD_COUNTS
    KEYS: ClassVar[tuple[str, ...]] = ()
    rest_keys: Sequence[str]  # the statistics keys, one per group
    rest: Sequence[Any]  # the groups


@dataclass(frozen=True, slots=True)
class ForgetCountsCall(ScriptCall):
    """:data:`FORGET_COUNTS`: a game's seat taken out of the name statistics, once."""

    SCRIPT: ClassVar[str] = FORGET_COUNTS
    KEYS: ClassVar[tuple[str, ...]] = ("engine_set", "version", "forgotten")
    engine_set: str
    version: str
    forgotten: str
    game_id: str
    rest_keys: Sequence[str]  # one key per group
    rest: Sequence[Any]  # the groups


def counts_args(counts: Sequence[Counts]) -> tuple[list[str], list[Any]]:
    keys: list[str] = []
    args: list[Any] = []
    for group in counts:
        keys.append(group.key)
        at, latest = group.latest or ("", "")
        args.extend((group.kind, len(group.increments), at, latest))
        for field, amount in group.increments.items():
            args.extend((field, amount))
    return keys, args
