"""Ratings in Redis: every key in the archive's slot (``{archive}``), because a rating
changes in the very script that enters a game into the archive (``store.archive.Archive.enter``),
whose ZADD NX into the engine's set is the "counted once" marker.

``archive:{archive}:rating:<game>:<rater>`` (hash)
    ``mu``, ``sigma`` (Python ``repr`` of the floats: read back bit for bit, so a recount can be
    compared exactly), ``games`` (rated games: also the compare-and-set version of the rating)
``archive:{archive}:ratings:<game>`` (zset)
    rater -> ordinal (mu - 3 sigma): the leaderboard
``archive:{archive}:rating-history:<game>:<rater>`` (list)
    the rater's rated game ids, oldest first (each entry is rebuilt from the game's record)
``archive:{archive}:rated:<game>`` (zset)
    rated game id -> its place in the order the ratings took it (0, 1, ...): the recount's order
``archive:{archive}:rated-game:<game>`` (hash)
    rated game id -> JSON ``replays.ratings.game_record``: per seat its rater, rank, rating before
    and after (histories, the annotated export's ``ratings_before``)
``archive:{archive}:h2h:<game>:<a>:<b>`` (hash, a < b)
    ``games`` together, ``first_ahead`` (a finished ahead of b), ``second_ahead``

A rater is an account id (hex) or ``bot:<level>`` (``replays.ratings``).

The update is computed from the seats' ratings read before the script (one pipelined HMGET per
seat); the script checks that each rating's ``games`` is still the one the computation started
from, and refuses the whole entry otherwise (``RatingsMoved``: the caller reads again and
recomputes). A retried entry of a game already counted changes nothing at all, rating included.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import orjson
import redis

from store.scripts import ScriptCall, bind

PREFIX = "archive:{archive}"


def rating_key(game: str, rater: str) -> str:
    return f"{PREFIX}:rating:{game}:{rater}"


def board_key(game: str) -> str:
    return f"{PREFIX}:ratings:{game}"


def history_key(game: str, rater: str) -> str:
    return f"{PREFIX}:rating-history:{game}:{rater}"


def order_key(game: str) -> str:
    return f"{PREFIX}:rated:{game}"


def record_key(game: str) -> str:
    return f"{PREFIX}:rated-game:{game}"


def h2h_key(game: str, first: str, second: str) -> str:
    return f"{PREFIX}:h2h:{game}:{first}:{second}"


class RatingsMoved(Exception):
    """A rating the update was computed from changed before the entry script ran."""


@dataclass(frozen=True)
class RaterUpdate:
    rater: str
    expected_games: int  # the rating's ``games`` the update was computed from (0: no rating yet)
    mu: float
    sigma: float
    games: int
    ordinal: float


@dataclass(frozen=True)
class RatingWrite:
    """One rated game's whole change of ratings, written by the archive's entry script."""

    game: str
    raters: Sequence[RaterUpdate]
    pairs: Sequence[tuple[str, str, int, int]] = field(default_factory=tuple)  # a, b, a ahead, b ahead
    record: Mapping[str, Any] = field(default_factory=dict)  # replays.ratings.game_record

    def keys_and_args(self) -> tuple[list[str], list[Any]]:
        keys = [board_key(self.game), order_key(self.game), record_key(self.game)]
        args: list[Any] = [len(self.raters)]
        for update in self.raters:
            keys += [rating_key(self.game, update.rater), history_key(self.game, update.rater)]
            args += [
                update.expected_games,
                repr(update.mu),
                repr(update.sigma),
                update.games,
                repr(update.ordinal),
                update.rater,
            ]
        args.append(len(self.pairs))
        for first, second, first_ahead, second_ahead in self.pairs:
            keys.append(h2h_key(self.game, first, second))
            args += [first_ahead, second_ahead]
        args.append(orjson.dumps(self.record))
        return keys, args


NO_RATING: tuple[list[str], list[Any]] = ([], [0, 0, ""])

# Lua functions for the archive's entry script. KEYS from k: board, order, records, then per rater
# its rating and history keys, then per pair its h2h key. ARGV from a: r, then per rater 6 values
# (expected games, mu, sigma, games, ordinal, rater), then p, then per pair 2 values, then the
# game's record (JSON).
RATINGS_LUA = r"""
local function ratings_current(k, a)
  local r = tonumber(ARGV[a])
  for i = 0, r - 1 do
    local seen = redis.call('HGET', KEYS[k + 3 + 2 * i], 'games') or '0'
    if seen ~= ARGV[a + 1 + 6 * i] then
      return false
    end
  end
  return true
end

local function write_ratings(k, a, game_id)
  local r = tonumber(ARGV[a])
  if r == 0 then
    return
  end
  local order = KEYS[k + 1]
  redis.call('ZADD', order, 'NX', redis.call('ZCARD', order), game_id)
  for i = 0, r - 1 do
    local b = a + 1 + 6 * i
    redis.call('HSET', KEYS[k + 3 + 2 * i], 'mu', ARGV[b + 1], 'sigma', ARGV[b + 2], 'games', ARGV[b + 3])
    redis.call('ZADD', KEYS[k], ARGV[b + 4], ARGV[b + 5])
    redis.call('RPUSH', KEYS[k + 4 + 2 * i], game_id)
  end
  local at = a + 1 + 6 * r
  local p = tonumber(ARGV[at])
  for j = 0, p - 1 do
    local key = KEYS[k + 3 + 2 * r + j]
    redis.call('HINCRBY', key, 'games', 1)
    redis.call('HINCRBY', key, 'first_ahead', ARGV[at + 1 + 2 * j])
    redis.call('HINCRBY', key, 'second_ahead', ARGV[at + 2 + 2 * j])
  end
  redis.call('HSET', KEYS[k + 2], game_id, ARGV[at + 1 + 2 * p])
end
"""

# A recount's write: no marker, no check. KEYS: the rating section; ARGV: 1 game id, then it.
_REWRITE = RATINGS_LUA + "\nwrite_ratings(1, 2, ARGV[1])\nreturn 1\n"


@dataclass(frozen=True, slots=True)
class RewriteCall(ScriptCall):
    """:data:`_REWRITE`: one game's ratings written without the marker or the check."""

    SCRIPT: ClassVar[str] = _REWRITE
    PRELUDE: ClassVar[str] = RATINGS_LUA
    KEYS: ClassVar[tuple[str, ...]] = ()
    game_id: str
    rest_keys: Sequence[str]  # the rating section's keys
    rest: Sequence[Any]  # the rating section's arguments


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True)
class StoredRating:
    mu: float
    sigma: float
    games: int


class RatingStore:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._rewrite = bind(client, RewriteCall)

    def ratings(self, game: str, raters: Iterable[str]) -> dict[str, StoredRating]:
        """The stored ratings of ``raters`` (those that have one), in one pipelined round trip."""
        names = list(dict.fromkeys(raters))
        pipe = self.redis.pipeline(transaction=False)
        for rater in names:
            pipe.hmget(rating_key(game, rater), "mu", "sigma", "games")
        found: dict[str, StoredRating] = {}
        for rater, (mu, sigma, games) in zip(names, pipe.execute(), strict=True):
            if mu is not None:
                found[rater] = StoredRating(float(mu), float(sigma), int(games))
        return found

    def board(self, game: str, top: int) -> list[tuple[str, float]]:
        """The ``top`` raters by ordinal (rater, ordinal), best first (equal ordinals by rater)."""
        rows = self.redis.zrange(board_key(game), 0, top - 1, desc=True, withscores=True)
        return [(_text(member), float(score)) for member, score in rows]

    def board_size(self, game: str) -> int:
        return int(self.redis.zcard(board_key(game)))

    def history(self, game: str, rater: str, start: int = 0, stop: int = -1) -> list[str]:
        """The rated game ids of ``rater``'s history between ``start`` and ``stop`` (LRANGE)."""
        return [_text(raw) for raw in self.redis.lrange(history_key(game, rater), start, stop)]

    def records(self, game: str, game_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        """The kept records of rated games (``replays.ratings.game_record``), None where absent."""
        if not game_ids:
            return []
        return [
            orjson.loads(raw) if raw else None for raw in self.redis.hmget(record_key(game), list(game_ids))
        ]

    def history_length(self, game: str, rater: str) -> int:
        return int(self.redis.llen(history_key(game, rater)))

    def head_to_head(self, game: str, first: str, second: str) -> dict[str, int]:
        """``games``, ``first_ahead``, ``second_ahead`` of ``first`` and ``second`` (any order)."""
        low, high = sorted((first, second))
        raw = {_text(k): int(v) for k, v in self.redis.hgetall(h2h_key(game, low, high)).items()}
        ahead_low, ahead_high = raw.get("first_ahead", 0), raw.get("second_ahead", 0)
        if low != first:
            ahead_low, ahead_high = ahead_high, ahead_low
        return {"games": raw.get("games", 0), "first_ahead": ahead_low, "second_ahead": ahead_high}

    def rated_order(self, game: str) -> dict[str, int]:
        """Rated game id -> its place in the order the ratings took it."""
        rows = self.redis.zrange(order_key(game), 0, -1, withscores=True)
        return {_text(member): int(score) for member, score in rows}

    def reset(self, game: str) -> int:
        """Delete every rating key of ``game`` (before a recount). Returns how many."""
        keys = [board_key(game), order_key(game), record_key(game)]
        for pattern in ("rating", "rating-history", "h2h"):
            keys += list(self.redis.scan_iter(match=f"{PREFIX}:{pattern}:{game}:*", count=1000))
        return int(self.redis.delete(*keys))

    def rewrite(self, game_id: str, write: RatingWrite) -> None:
        """Write one game's ratings without the once-only marker or the check (a recount)."""
        keys, args = write.keys_and_args()
        self._rewrite(RewriteCall(game_id=game_id, rest_keys=keys, rest=args))
