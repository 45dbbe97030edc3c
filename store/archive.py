"""The archive of finished games: search indexes, the archived games' metadata, imported games.

Layout. Every archive key carries the hash tag ``{archive}``, so on Redis Cluster the indexes live
in one slot and one script may update them all (and ZINTERSTORE may combine them); they are kept
apart from the per-game keys (``{g:<id>}``) as docs/architecture.md asks:

``archive:{archive}:by:<field>:<value>`` (zset)
    game id, score = finished time (ms since the epoch), per game (engine), player name
    (case-folded), ruleset, option, player count, winner name, outcome, prearranged. A game is in
    exactly one ``by:game:<engine>`` set: the whole archive is their union (merged when read), not a
    set of its own (one more entry of ~120 B per game kept for good).
``archive:{archive}:games`` (set)
    the engines that have games in the archive
A game's summary (what a search returns) is built from its own metadata when read
(``service.summaries.summary_of``: a search here returns the metadata, :class:`GameLog` without
events), not kept beside it: a copy cost about 0.5 KiB per finished game for good, as much as a
quarter of what a compacted game keeps (bench/memory.py). The store indexes the values it is given
(:class:`Indexed`) and reads no configuration key, result or engine hook (issue 29).
``archive:{archive}:version`` (string)
    a counter bumped whenever a game enters: the data version that global statistics depend on
``archive:{archive}:stats:overall:<game>`` (hash)
    an engine's statistics counters (``service.aggregates``)
``archive:{archive}:stats:player:<game>:<name>`` (hash)
    one player's counters (name case-folded), and ``@name``: the spelling of their latest game
``archive:{archive}:stats:leaders:<game>`` (zset)
    seat name -> wins * 10^7 + games
``archive:{archive}:stats:account:<game>:<account id>`` (hash)
    one account's counters (issue 31): the seats bound to it, whatever names they played under
``archive:{archive}:stats:forgotten:<account id>`` (set)
    the games whose seats of a deleted account were taken out of the name statistics: the marker
    that makes that step once-only (deleted with the account's last keys)
``archive:{archive}:q:<hash>`` (zset)
    a short-lived intersection for a multi-filter search

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
from typing import Any

import orjson
import redis

from games.base import OPTION, RULESET
from store import compact, timestamps
from store.keys import game_keys
from store.ratings import NO_RATING, RATINGS_LUA, RatingsMoved, RatingWrite

TAG = "{archive}"
PREFIX = f"archive:{TAG}"
ENGINES = f"{PREFIX}:games"
VERSION = f"{PREFIX}:version"
QUERY_TTL_SECONDS = 30
MAX_PAGE = 100

FILTER_FIELDS = ("player", "game", RULESET, OPTION, "players", "winner", "outcome", "prearranged")


def index_key(field: str, value: Any) -> str:
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if field in ("player", "winner"):
        text = text.casefold()
    return f"{PREFIX}:by:{field}:{text}"


# Adds a game's increments to the statistics aggregates: the keys from KEYS[first_key] on, one per
# group of ARGV from ARGV[first_arg] on. A group: kind ('h': hash counters, 'z': sorted-set scores),
# the number m of pairs, a "latest" ordering string ('' = none) and its value, then m (field, amount)
# pairs. A hash with a latest string keeps the value of the greatest string seen ('@at', '@name').
_ADD_COUNTS = r"""
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

# KEYS: the engine's set (by:game:<engine>), engines, version, the n other index keys, the c
# statistics keys (_ADD_COUNTS), then the rating keys (store.ratings.RATINGS_LUA)
# ARGV: 1 game id, 2 score, 3 engine, 4 n, 5 c, then the statistics groups, then the rating section.
# The ZADD NX into the engine's set is the "counted" marker: a game enters, and is counted (and
# rated), once. A rating the update was computed from that moved meanwhile refuses the whole entry
# ({-1, version}: nothing written), so the caller recomputes from the current ratings.
_ENTER = (
    _ADD_COUNTS
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

# A recomputation from scratch: the increments of one game, with no marker (the caller emptied the
# aggregates first). KEYS: the statistics keys; ARGV: the groups.
_RECOUNT = _ADD_COUNTS + "\nadd_counts(1, 1, #KEYS)\nreturn 1\n"

STATS_PREFIX = f"{PREFIX}:stats"


def stats_overall_key(game: str) -> str:
    """Hash: an engine's global statistics counters (``replays.stats.overall_increments``)."""
    return f"{STATS_PREFIX}:overall:{game}"


def stats_player_key(game: str, folded_name: str) -> str:
    """Hash: one player's counters for one engine (``replays.stats.player_increments``), with the
    spelling of their most recent game (``@name``, ordered by ``@at``)."""
    return f"{STATS_PREFIX}:player:{game}:{folded_name}"


def stats_leaders_key(game: str) -> str:
    """Sorted set: seat name -> wins * LEADER_SCALE + games (``replays.stats.game_counts``)."""
    return f"{STATS_PREFIX}:leaders:{game}"


def stats_account_key(game: str, account_id: str) -> str:
    """Hash: one account's counters for one engine (``replays.stats.player_increments`` of the
    seats bound to it), whatever names those seats had."""
    return f"{STATS_PREFIX}:account:{game}:{account_id}"


def stats_forgotten_key(account_id: str) -> str:
    """Set: games whose seats of (deleted) ``account_id`` left the name statistics (the marker)."""
    return f"{STATS_PREFIX}:forgotten:{account_id}"


# Takes one game's seat out of the name statistics (an account's deletion renamed it): KEYS: the
# engine's set, version, the marker set, then one key per group; ARGV: 1 game id, then the groups
# as _ADD_COUNTS reads them (negative amounts), kind 'h' (hash: a field at zero stays, as a game
# that counted zero leaves it), 'p' (hash: a field at zero goes) or 'z' (sorted set: a member at
# zero goes); a hash's "latest" string (see _ADD_COUNTS) that is still its '@at' takes '@at' and
# '@name' away (the spelling of the forgotten seat). Once per game (the marker), and only for a
# game already counted (in its engine's set: one entering later is counted under its new name). A
# hash left with no game goes. The version is bumped: statistics computed before are stale.
_FORGET_COUNTS = r"""
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


def _counts_args(counts: Sequence[Counts]) -> tuple[list[str], list[Any]]:
    keys: list[str] = []
    args: list[Any] = []
    for group in counts:
        keys.append(group.key)
        at, latest = group.latest or ("", "")
        args.extend((group.kind, len(group.increments), at, latest))
        for field, amount in group.increments.items():
            args.extend((field, amount))
    return keys, args


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
        self._enter = client.register_script(_ENTER)
        self._recount = client.register_script(_RECOUNT)
        self._forget = client.register_script(_FORGET_COUNTS)

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
        count_keys, count_args = _counts_args(counts)
        rating_keys, rating_args = ratings.keys_and_args() if ratings is not None else NO_RATING
        keys = [engine, ENGINES, VERSION, *index, *count_keys, *rating_keys]
        head = [entry.game_id, score, entry.game, len(index), len(count_keys)]
        # The rating section's first ARGV index (1-based) goes last, so the script finds it.
        rating_at = len(head) + len(count_args) + 1
        args = [*head, *count_args, *rating_args, rating_at]
        added, version = self._enter(keys=keys, args=args)
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
        """One account's counters (issue 31)."""
        raw = self.redis.hgetall(stats_account_key(game, account_id))
        return {_str(k): int(v) for k, v in raw.items()}

    def forget_counts(self, game: str, game_id: str, account_id: str, counts: Sequence[Counts]) -> bool:
        """Subtract ``counts`` (one game's increments of a deleted account's seat, under its old
        name) once, if the game was counted: see ``_FORGET_COUNTS``. True when subtracted now."""
        keys, args = _counts_args(counts)
        head = [index_key("game", game), VERSION, stats_forgotten_key(account_id)]
        return bool(self._forget(keys=[*head, *keys], args=[game_id, *args]))

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
        keys, args = _counts_args(counts)
        if keys:
            self._recount(keys=keys, args=args)

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

    # -- imported games --------------------------------------------------------------------------
    def store_finished_game(
        self,
        game_id: str,
        *,
        meta: Mapping[str, Any],
        full_config: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        snapshot: Mapping[str, Any],
        resume: bool = False,
    ) -> bool:
        """Write a complete, already validated log as a finished game (an import). Refuses (False)
        when the id exists, unless ``resume`` and an earlier attempt of this import died between
        claiming the id and writing (status ``importing``): the write is then done again. The whole
        game appears at once (MULTI/EXEC on the game's own keys)."""
        keys = game_keys(game_id)
        if not self.redis.hsetnx(keys.meta, "status", "importing"):
            if not (resume and _text(self.redis.hget(keys.meta, "status")) == "importing"):
                return False
        # Stored compact at once (store.compact): an imported log was replayed through the rules on
        # its way in, and a finished game needs neither a stream nor a snapshot.
        packed = compact.encode(
            events, compact.engine_dictionary(self.redis, str(meta["game"]), orjson.dumps(list(events)))
        )
        pipe = self.redis.pipeline(transaction=True)
        pipe.delete(keys.events, keys.snapshot, keys.config)
        pipe.set(keys.log, packed)
        pipe.delete(keys.meta)  # written anew, in compact encoding (store.compact.chunked)
        pipe.hset(keys.meta, mapping=compact.packed_meta({k: _json_text(v) for k, v in meta.items()}))
        pipe.execute()
        return True


def _str(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _field(value: Any) -> Any:
    if isinstance(value, (dict, list, bool)) or value is None:
        return orjson.dumps(value)
    return value


def _json_text(value: Any) -> str:
    """A metadata value as the text Redis would keep for it (``_field``, then decoded)."""
    stored = _field(value)
    return stored.decode() if isinstance(stored, bytes) else str(stored)


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


def events_of(client: redis.Redis, game_ids: Iterable[str]) -> Iterable[tuple[str, list[dict[str, Any]]]]:
    """The complete logs of ``game_ids`` (one XRANGE each, pipelined by batches of 50)."""
    ids = list(game_ids)
    loads = orjson.loads
    for start in range(0, len(ids), 50):
        batch = ids[start : start + 50]
        pipe = client.pipeline(transaction=False)
        for game_id in batch:
            keys = game_keys(game_id)
            pipe.xrange(keys.events)
            pipe.get(keys.log)
        replies = pipe.execute()
        for game_id, entries, packed in zip(batch, replies[::2], replies[1::2], strict=True):
            # The stream is read first: a compaction in between leaves the compact value to read.
            if packed is not None:
                yield game_id, compact.decode(client, packed)
                continue
            yield game_id, [loads(_entry_fields(fields)[b"e"]) for _, fields in entries]


@dataclass(frozen=True)
class GameLog:
    """One stored game, read consistently (MULTI/EXEC): metadata, complete log and snapshot."""

    game_id: str
    meta: dict[str, str]
    events: list[dict[str, Any]]
    snapshot: dict[str, Any] | None

    @property
    def name(self) -> str:
        return self.meta["game"]

    @property
    def status(self) -> str:
        return self.meta.get("status", "")

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    @property
    def version(self) -> int:
        return len(self.events)

    @property
    def players(self) -> list[str | None]:
        return [self.meta.get(f"name:{seat}") for seat in range(int(self.meta.get("seat_count") or 0))]

    @property
    def result(self) -> dict[str, Any] | None:
        raw = self.meta.get("result")
        return orjson.loads(raw) if raw else None

    @property
    def public_config(self) -> dict[str, Any]:
        raw = self.meta.get("config")
        return orjson.loads(raw) if raw else {}


def _entry_fields(fields: Any) -> dict[bytes, bytes]:
    """A stream entry's fields as a dict. redis-py's cluster client skips the XRANGE response
    callback inside a MULTI pipeline and hands back the raw ``[field, value, ...]`` list."""
    if isinstance(fields, dict):
        return fields
    return dict(zip(fields[::2], fields[1::2], strict=True))


def load_log(client: redis.Redis, game_id: str) -> GameLog | None:
    keys = game_keys(game_id)
    pipe = client.pipeline(transaction=True)
    pipe.hgetall(keys.meta)
    pipe.xrange(keys.events)
    pipe.get(keys.snapshot)
    pipe.get(keys.log)
    meta, entries, snapshot, packed = pipe.execute()
    if not meta:
        return None
    meta = compact.unchunk(meta)
    loads = orjson.loads
    if packed is not None:
        events = compact.decode(client, packed)
    else:
        events = [loads(_entry_fields(fields)[b"e"]) for _, fields in entries]
    return GameLog(
        game_id=game_id,
        meta={k.decode(): v.decode() for k, v in meta.items()},
        events=events,
        snapshot=loads(snapshot) if snapshot else None,
    )


def game_version(client: redis.Redis, game_id: str) -> tuple[str, int] | None:
    """(status, version) of a stored game, or None."""
    status, version = client.hmget(game_keys(game_id).meta, "status", "version")
    if status is None:
        return None
    return status.decode(), int(version or 0)


def load_meta(client: redis.Redis, game_id: str) -> GameLog | None:
    """A game's metadata only (``events`` left empty): enough for its archive summary
    (``service.summaries.summary_of``)."""
    meta = compact.unchunk(client.hgetall(game_keys(game_id).meta))
    if not meta:
        return None
    return GameLog(
        game_id=game_id, meta={k.decode(): v.decode() for k, v in meta.items()}, events=[], snapshot=None
    )


def import_finished_game(
    client: redis.Redis,
    *,
    game_id: str,
    name: str,
    title: str,
    public_config: Mapping[str, Any],
    full_config: Mapping[str, Any],
    players: Sequence[str | None],
    events: Sequence[Mapping[str, Any]],
    snapshot_state: Any,
    result: Mapping[str, Any] | None,
    now: str,
    resume: bool = False,
) -> GameLog | None:
    """Store an already validated, complete log as a finished game and list it with the other
    games. Returns it as stored (None when the id is taken); the caller enters it into the archive
    (``Archive.enter``), with the summary and statistics it makes of it.

    ``resume``: this import may have run before under the same id (a job retried after its worker
    died): a game it left half written is written again, one it wrote is listed again (idempotent),
    so the retry ends where the first run would have."""
    from store.games import GameStore

    meta: dict[str, Any] = {
        "game": name,
        "title": title,
        "status": "finished",
        "version": len(events),
        "seat_count": len(players),
        "config": dict(public_config),
        "created": now,
        "updated": now,
        "started": now,
        "finished": now,
        "awaiting": [],
        "result": dict(result) if result is not None else None,
        "imported": 1,
    }
    for seat, player in enumerate(players):
        meta[f"name:{seat}"] = player or f"Seat {seat}"
        meta[f"kind:{seat}"] = "human"
        meta[f"bot:{seat}"] = ""
    stored = Archive(client).store_finished_game(
        game_id,
        meta=meta,
        full_config=full_config,
        events=events,
        snapshot={"version": len(events), "state": snapshot_state},
        resume=resume,
    )
    if not stored and not (resume and _imported(client, game_id)):
        return None
    GameStore(client).index.add(game_id, name, "finished")
    # None only for a game removed meanwhile: the import stored it just now
    return load_log(client, game_id)


def _text(value: Any) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def _imported(client: redis.Redis, game_id: str) -> bool:
    """Was ``game_id`` stored by an import (and completely)?"""
    status, imported = client.hmget(game_keys(game_id).meta, "status", "imported")
    return _text(status) == "finished" and _text(imported) == "1"
