"""The archive of finished games: its search indexes, entering a game into them, reading the
archived games' metadata, and searching.

Its keys are laid out in ``store.archive_keys``, which names each (every one carries the hash tag
``{archive}``, so one script may update them all). Beside it: the statistics aggregates' increments
and scripts (``store.archive_counts``), reading a stored game back (``store.game_logs``) and
importing a finished game (``store.archive_import``).

A game's summary (what a search returns) is built from its own metadata when read
(``service.summaries.summary_of``: a search here returns the metadata, :class:`GameLog` without
events), not kept beside it: a copy cost about 0.5 KiB per finished game for good, as much as a
quarter of what a compacted game keeps (bench/memory.py). The store indexes the values it is given
(:class:`Indexed`) and reads no configuration key, result or engine hook.

Entering is one Lua script and idempotent (a game already in its engine's set changes nothing, the
version is not bumped, its statistics are not counted again), so the follow-up action and the verify job may
both call it.
"""

from __future__ import annotations

import base64
import hashlib
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import redis

from games.base import OPTION, RULESET
from store import compact, timestamps
from store.archive_counts import ADD_COUNTS, Counts, ForgetCountsCall, RecountCall, counts_args
from store.archive_keys import (
    ENGINES,
    PREFIX,
    STATS_PREFIX,
    VERSION,
    index_key,
    stats_account_key,
    stats_forgotten_key,
    stats_leaders_key,
    stats_overall_key,
    stats_player_key,
)

# Exported with the archive whose records they are: api.archive takes GameLog from here.
from store.game_logs import GameLog, events_of
from store.keys import game_keys
from store.ratings import NO_RATING, RATINGS_LUA, RatingsMoved, RatingWrite
from store.scripts import ScriptCall, bind

QUERY_TTL_SECONDS = 30
MAX_PAGE = 100

FILTER_FIELDS = ("player", "game", RULESET, OPTION, "players", "winner", "outcome", "prearranged")


# KEYS: the engine's set (by:game:<engine>), engines, version, the n other index keys, the c
# statistics keys (ADD_COUNTS), then the rating keys (store.ratings.RATINGS_LUA)
# ARGV: 1 game id, 2 score, 3 engine, 4 n, 5 c, then the statistics groups, then the rating section.
# The ZADD NX into the engine's set is the "counted" marker: a game enters, and is counted (and
# rated), once. A rating the update was computed from that moved meanwhile refuses the whole entry
# ({-1, version}: nothing written), so the caller recomputes from the current ratings.
_ENTER = (
    ADD_COUNTS
    + RATINGS_LUA
    + r"""
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return {0, tonumber(redis.call('GET', KEYS[3]) or '0')}
end
local n, c = tonumber(ARGV[4]), tonumber(ARGV[5])
local rating_key, rating_arg = 4 + n + c, tonumber(ARGV[#ARGV])
if not ratings_current(rating_key, rating_arg) then
  return {-1, tonumber(redis.call('GET', KEYS[3]) or '0')}
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[3])
for i = 4, 3 + n do
  redis.call('ZADD', KEYS[i], ARGV[2], ARGV[1])
end
add_counts(4 + n, 6, 3 + n + c)
write_ratings(rating_key, rating_arg, ARGV[1])
return {1, redis.call('INCR', KEYS[3])}
"""
)


@dataclass(frozen=True, slots=True)
class EnterCall(ScriptCall):
    """:data:`_ENTER`: a finished game entered into the archive, counted and rated once."""

    SCRIPT: ClassVar[str] = _ENTER
    PRELUDE: ClassVar[str] = ADD_COUNTS + RATINGS_LUA
    KEYS: ClassVar[tuple[str, ...]] = ("engine_set", "engines", "version")
    engine_set: str
    engines: str
    version: str
    game_id: str
    score: float
    engine: str
    index_count: int
    counts_count: int
    rest_keys: Sequence[str]  # the other index keys, the statistics keys, the rating keys
    rest: Sequence[Any]  # the statistics groups, the rating section, its first ARGV index


def finished_ms(value: str | float | int | None) -> int:
    """Milliseconds since the epoch of an ISO time (or a number of seconds), now when missing."""
    if value is None or value == "":
        return int(time.time() * 1000)
    if isinstance(value, (int, float)):
        return int(value * 1000)
    return timestamps.to_ms(str(value))


def iso(ms: int) -> str:
    return timestamps.from_ms(ms)


def _record_of(game_id: str, raw_meta: Any) -> GameLog:
    """An archived game's metadata record from its raw metadata (an HGETALL reply)."""
    meta = {_str(k): _str(v) for k, v in compact.unchunk(raw_meta).items()}
    return GameLog(game_id=game_id, meta=meta, events=[], snapshot=None)


@dataclass(frozen=True)
class Indexed:
    """What the archive indexes one finished game by (``service.summaries.index_entry`` makes it
    of the game's summary): its engine, its finish time (ms since the epoch, the indexes' score)
    and, per field of ``FILTER_FIELDS`` but ``game``, the values it is found by."""

    game_id: str
    game: str
    finished: int
    labels: Mapping[str, Sequence[Any]]

    def index_keys(self) -> list[str]:
        """The keys of its indexes but its engine's set, sorted."""
        engine = index_key("game", self.game)
        keys = {index_key(field, value) for field, values in self.labels.items() for value in values}
        return sorted(keys - {engine})


@dataclass(frozen=True)
class Page:
    """A page of a search: the games' metadata records (:class:`GameLog`, no events), newest first."""

    items: list[GameLog]
    next_cursor: str | None


class Archive:
    def __init__(self, client: redis.Redis, engines: Iterable[str] = ()):
        self.redis = client
        # Read with ENGINES: the engines of games archived before that set existed are read too
        self.engines = tuple(engines)
        self._enter = bind(client, EnterCall)
        self._recount = bind(client, RecountCall)
        self._forget = bind(client, ForgetCountsCall)

    # -- entering --------------------------------------------------------------------------------
    def enter(
        self, entry: Indexed, counts: Sequence[Counts] = (), ratings: RatingWrite | None = None
    ) -> tuple[bool, int]:
        """Add a finished game to the indexes ``entry`` names and, in the same atomic step, its
        statistics ``counts`` and its ``ratings`` change (idempotent: a game already there changes
        nothing, so it is counted and rated once). Returns (newly added, archive version). Raises
        ``RatingsMoved`` (nothing written) when a rating ``ratings`` was computed from has changed
        since."""
        score = entry.finished
        engine = index_key("game", entry.game)
        index = entry.index_keys()
        count_keys, count_args = counts_args(counts)
        rating_keys, rating_args = ratings.keys_and_args() if ratings is not None else NO_RATING
        # The rating section's first ARGV index (1-based) goes last, so the script finds it.
        rating_at = len(EnterCall.arg_names()) + len(count_args) + 1
        call = EnterCall(
            engine_set=engine,
            engines=ENGINES,
            version=VERSION,
            game_id=entry.game_id,
            score=score,
            engine=entry.game,
            index_count=len(index),
            counts_count=len(count_keys),
            rest_keys=[*index, *count_keys, *rating_keys],
            rest=[*count_args, *rating_args, rating_at],
        )
        added, version = self._enter(call)
        if int(added) < 0:
            raise RatingsMoved(entry.game_id)
        return bool(added), int(version)

    # -- statistics aggregates ---------------------------------------------------------------------
    def overall_counts(self, game: str) -> dict[str, int]:
        """An engine's global counters (field -> count)."""
        return {_str(k): int(v) for k, v in self.redis.hgetall(stats_overall_key(game)).items()}

    def player_counts(self, game: str, folded_name: str) -> tuple[dict[str, int], str | None]:
        """One player's counters and the spelling of their most recent game."""
        raw = {_str(k): _str(v) for k, v in self.redis.hgetall(stats_player_key(game, folded_name)).items()}
        spelling = raw.pop("@name", None)
        raw.pop("@at", None)
        return {k: int(v) for k, v in raw.items()}, spelling

    def account_counts(self, game: str, account_id: str) -> dict[str, int]:
        """One account's counters."""
        raw = self.redis.hgetall(stats_account_key(game, account_id))
        return {_str(k): int(v) for k, v in raw.items()}

    def forget_counts(self, game: str, game_id: str, account_id: str, counts: Sequence[Counts]) -> bool:
        """Subtract ``counts`` (one game's increments of a deleted account's seat, under its old
        name) once, if the game was counted: see ``FORGET_COUNTS``. True when subtracted now."""
        keys, args = counts_args(counts)
        call = ForgetCountsCall(
            index_key("game", game),
            VERSION,
            stats_forgotten_key(account_id),
            game_id,
            rest_keys=keys,
            rest=args,
        )
        return bool(self._forget(call))

    def leader_scores(self, game: str, top: int) -> list[tuple[str, int]]:
        """The ``top`` best (name, score) of the leader board, ties at the cut all included (the
        caller orders them by name: a sorted set orders equal scores by member bytes)."""
        key = stats_leaders_key(game)
        best = self.redis.zrange(key, 0, top - 1, desc=True, withscores=True)
        if len(best) < top:
            return [(_str(m), int(s)) for m, s in best]
        cut = best[-1][1]
        above = [(_str(m), int(s)) for m, s in best if s > cut]
        ties = self.redis.zrange(key, cut, cut, byscore=True, offset=0, num=top - len(above))
        return above + [(_str(m), int(cut)) for m in ties]

    def reset_counts(self, game: str) -> int:
        """Delete an engine's statistics aggregates (before a recomputation). Returns how many keys."""
        keys = [stats_overall_key(game), stats_leaders_key(game)]
        keys += list(self.redis.scan_iter(match=f"{STATS_PREFIX}:player:{game}:*", count=1000))
        keys += list(self.redis.scan_iter(match=f"{STATS_PREFIX}:account:{game}:*", count=1000))
        return int(self.redis.delete(*keys)) if keys else 0

    def recount(self, counts: Sequence[Counts]) -> None:
        """Add one game's ``counts`` without the once-only marker (a recomputation from scratch)."""
        keys, args = counts_args(counts)
        if keys:
            self._recount(RecountCall(rest_keys=keys, rest=args))

    def version(self) -> int:
        return int(self.redis.get(VERSION) or 0)

    def record(self, game_id: str) -> GameLog | None:
        """An archived game's metadata record (None when it has not entered the archive)."""
        return self.records([game_id]).get(game_id)

    def engine_keys(self) -> list[str]:
        """The ``by:game:<engine>`` sets, whose union is the whole archive."""
        names = {*(_str(name) for name in self.redis.smembers(ENGINES)), *self.engines}
        return [index_key("game", name) for name in sorted(names)]

    def count(self) -> int:
        pipe = self.redis.pipeline(transaction=False)
        for key in self.engine_keys():
            pipe.zcard(key)
        return sum(int(n) for n in pipe.execute())

    def ids(self, newest_first: bool = True) -> list[str]:
        pipe = self.redis.pipeline(transaction=False)
        for key in self.engine_keys():
            pipe.zrange(key, 0, -1, withscores=True)
        rows = [(int(score), _str(member)) for found in pipe.execute() for member, score in found]
        return [member for _, member in sorted(rows, reverse=newest_first)]

    # -- statistics' inputs ----------------------------------------------------------------------
    def ids_in(self, key: str) -> list[str]:
        """The game ids of index ``key`` (``index_key(field, value)``), newest first."""
        return [i.decode() if isinstance(i, bytes) else i for i in self.redis.zrange(key, 0, -1, desc=True)]

    def metas(self, game_ids: Sequence[str]) -> dict[str, dict[str, str]]:
        """The metadata of ``game_ids`` (those that exist), in one pipelined read."""
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hgetall(game_keys(game_id).meta)
        return {
            game_id: {_str(k): _str(v) for k, v in compact.unchunk(raw).items()}
            for game_id, raw in zip(game_ids, pipe.execute() if game_ids else [], strict=True)
            if raw
        }

    def records(self, game_ids: Sequence[str], listed: bool = False) -> dict[str, GameLog]:
        """The metadata records of ``game_ids`` that are in the archive: whether each is and its
        metadata, in pipelined reads (the metadata live in the games' own slots); ``listed``: the
        ids come from an archive index, so they are in the archive."""
        if not game_ids:
            return {}
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hgetall(game_keys(game_id).meta)
        found = {
            game_id: _record_of(game_id, meta)
            for game_id, meta in zip(game_ids, pipe.execute(), strict=True)
            if meta
        }
        if listed:
            return found
        pipe = self.redis.pipeline(transaction=False)  # in the archive: in its engine's set
        for game_id, record in found.items():
            pipe.zscore(index_key("game", record.name), game_id)
        return {
            game_id: entry
            for (game_id, entry), score in zip(found.items(), pipe.execute(), strict=True)
            if score is not None
        }

    def logs(self, game_ids: Iterable[str]) -> Iterable[tuple[str, list[dict[str, Any]]]]:
        """(game id, complete log) of ``game_ids``: see :func:`events_of`."""
        return events_of(self.redis, game_ids)

    # -- search ----------------------------------------------------------------------------------
    def search(
        self,
        *,
        filters: Mapping[str, Sequence[Any]] | None = None,
        finished_from: int | None = None,
        finished_to: int | None = None,
        cursor: str | None = None,
        limit: int = 20,
    ) -> Page:
        """Newest first. ``filters`` maps a field of ``FILTER_FIELDS`` to values that must all match
        (several options, several players); dates are ms bounds (inclusive)."""
        limit = max(1, min(limit, MAX_PAGE))
        keys = sorted(
            {index_key(field, value) for field, values in (filters or {}).items() for value in values}
        )
        scanned = self.engine_keys() if not keys else [self._combined(keys)]
        high = "+inf" if finished_to is None else finished_to
        low = "-inf" if finished_from is None else finished_from
        after_score, after_id = _decode_cursor(cursor) if cursor else (None, "")
        if after_score is not None:
            high = after_score if finished_to is None else min(after_score, finished_to)
        found: list[tuple[str, int]] = []
        for key in scanned:  # the newest limit + 1 of each, merged
            found += self._newest(key, high, low, after_score, after_id, limit)
        found.sort(key=lambda row: (row[1], row[0]), reverse=True)
        page, more = found[:limit], len(found) > limit
        ids = [game_id for game_id, _ in page]
        records = self.records(ids, listed=True)
        items = [records[game_id] for game_id in ids if game_id in records]
        next_cursor = _encode_cursor(*page[-1][::-1]) if more and page else None
        return Page(items=items, next_cursor=next_cursor)

    def _newest(
        self, key: str, high: Any, low: Any, after_score: int | None, after_id: str, limit: int
    ) -> list[tuple[str, int]]:
        """Up to ``limit`` + 1 (id, score) of ``key`` between the bounds, after the cursor, newest first."""
        found: list[tuple[str, int]] = []
        offset = 0
        batch = limit + 1
        while len(found) <= limit:
            rows = self.redis.zrange(
                key, high, low, desc=True, byscore=True, offset=offset, num=batch, withscores=True
            )
            if not rows:
                break
            for member, score in rows:
                member = member.decode() if isinstance(member, bytes) else member
                score = int(score)
                # Inside one score, members come in reverse lexical order: skip up to the cursor.
                if after_score is not None and score == after_score and member >= after_id:
                    continue
                found.append((member, score))
            offset += len(rows)
            if len(rows) < batch:
                break
        return found

    def _combined(self, keys: list[str]) -> str:
        if len(keys) == 1:
            return keys[0]
        digest = hashlib.sha256("\n".join(keys).encode()).hexdigest()[:24]
        target = f"{PREFIX}:q:{digest}"
        # The intersection is cached for a few seconds; paging through it reuses it, and a game
        # entering meanwhile shows up at most QUERY_TTL_SECONDS later (always at the newest end).
        if not self.redis.exists(target):
            pipe = self.redis.pipeline(transaction=True)
            pipe.zinterstore(target, keys, aggregate="MAX")
            pipe.expire(target, QUERY_TTL_SECONDS)
            pipe.execute()
        return target


def _str(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _encode_cursor(score: int, game_id: str) -> str:
    return base64.urlsafe_b64encode(f"{score}:{game_id}".encode()).decode().rstrip("=")


class BadCursor(ValueError):
    pass


def _decode_cursor(cursor: str) -> tuple[int, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        score, game_id = base64.urlsafe_b64decode(padded.encode()).decode().split(":", 1)
        return int(score), game_id
    except Exception:
        raise BadCursor("invalid cursor") from None
