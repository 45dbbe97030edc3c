"""Statistics under the filters and the decision explorer, answered from the analytical store
(``store.facts``, DuckDB over Parquet) at once: no job. The budget (docs/statistics.md) is 100 ms at
the 95th percentile on a million games; bench/explorer.py measures it. Filters the rollups keep are
answered from them (``service.rollup_queries``), the others from the raw facts.

Answers are cached in this process, keyed by the request and by the version of the data it reads:
the engine's stamp (``store.facts.FactStore.stamp``), which changes when one of its games enters
the analytical store or a compaction merges its files, so a new Condottiere game leaves every cached
Rio answer valid. The in-memory copy of an engine's facts is likewise kept while its stamp stays
the same.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb

from games import get_game
from games.base import explorer_hooks
from replays.stats import LEADERS, distribution_of_counts
from service.filters import FilterProblem, Filters, where
from service.rollup_queries import explorer_sums, global_sums, rollup_where
from store import fact_copy
from store.facts import FactStore

CACHE_SIZE = 512
EXAMPLES = 3
# How long a question waits for its engine's copy being loaded again after a compaction before it
# answers from the old one (seconds from the reload's start, not per question).
RELOAD_WAIT = 2.0

_log = logging.getLogger(__name__)


def _rate(wins: int, games: int) -> float | None:
    return round(wins / games, 4) if games else None


def situations_of(game: str) -> dict[str, str]:
    """The situations ``game``'s engine declares for the explorer (none without the hook)."""
    explorer = explorer_hooks(get_game(game))
    return dict(explorer.explorer_situations()) if explorer is not None else {}


class FactQueries:
    """See the module docstring."""

    def __init__(
        self, facts: Callable[[], FactStore], rollups: bool = True, reload_wait: float = RELOAD_WAIT
    ):
        self._facts = facts
        self._rollups = rollups  # False: always the raw facts (bench/explorer.py compares)
        self._reload_wait = reload_wait
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # notified when a reloaded copy is swapped in
        self._cache: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._views: dict[str, tuple[tuple[str, ...], dict[str, set[Path]], duckdb.DuckDBPyConnection]] = {}
        self._reloading: dict[str, float] = {}  # engine -> when (monotonic) its copy's reload began

    # -- the data's version, the views, the cache ----------------------------------------------------

    def version(self, game: str) -> tuple[str, ...]:
        """The version of ``game``'s facts (``FactStore.stamp``: see the module docstring)."""
        return self._facts().stamp(None if game == "*" else game)

    def _files(self, game: str) -> dict[str, list[Path]]:
        return fact_copy.ready(self._facts().snapshot(None if game == "*" else game))

    def _cursor(self, game: str, version: tuple[str, ...]) -> tuple[duckdb.DuckDBPyConnection, bool]:
        """A cursor on this process's in-memory copy of ``game``'s facts at ``version`` (or later),
        and whether it is that copy (False: the copy before a compaction, answering while the new one
        loads). The new files' rows are added to the copy; after a compaction (files gone) it is
        loaded again in the background: minutes at a million games, during which the old copy keeps
        answering (its games are the same, less those that came since its last refresh), after at
        most ``reload_wait`` seconds from the reload's start (a small copy is fresh by then). Only
        the first load is waited for. The files are listed only when the version changed."""
        with self._lock:
            kept = self._views.get(game)
            if kept is not None and kept[0] == version:
                return kept[2].cursor(), True
            if game not in self._reloading:
                files = self._files(game)
                now = {table: set(paths) for table, paths in files.items()}
                if kept is not None and all(kept[1][t] <= now[t] for t in now):
                    new = {t: sorted(now[t] - kept[1][t]) for t in now}
                    if any(new.values()):
                        fact_copy.add(self._facts(), kept[2], new)
                    self._views[game] = (version, now, kept[2])
                    return kept[2].cursor(), True
                if kept is None:
                    loaded = (version, now, fact_copy.load(self._facts(), files))
                    self._views[game] = loaded
                    return loaded[2].cursor(), True
                self._reloading[game] = time.monotonic()
                threading.Thread(
                    target=self._reload,
                    args=(game, version, now, files),
                    name=f"facts-reload-{game}",
                    daemon=True,
                ).start()
            deadline = self._reloading[game] + self._reload_wait
            while game in self._reloading and time.monotonic() < deadline:
                self._changed.wait(deadline - time.monotonic())
            kept = self._views[game]
            return kept[2].cursor(), kept[0] == version

    def _reload(
        self, game: str, version: tuple[str, ...], now: dict[str, set[Path]], files: dict[str, list[Path]]
    ) -> None:
        """Load ``game``'s copy from ``files`` (outside the lock: questions go on meanwhile) and swap
        it in; the next question brings it up to date with what came during the load."""
        try:
            loaded = fact_copy.load(self._facts(), files)
        except Exception:
            _log.exception("reloading the serving copy of %s failed; the next question tries again", game)
            with self._changed:
                self._reloading.pop(game, None)
                self._changed.notify_all()
            return
        with self._changed:
            old = self._views.get(game)
            self._views[game] = (version, now, loaded)
            self._reloading.pop(game, None)
            self._changed.notify_all()
        if old is not None:
            old[2].close()  # the cursors already handed out keep its database open until closed

    def settled(self, timeout: float) -> bool:
        """Wait (at most ``timeout`` seconds) until no copy is being reloaded; True if none is."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._reloading, timeout)

    def _cached(
        self, key: tuple[Any, ...], game: str, compute: Callable[[duckdb.DuckDBPyConnection], Any]
    ) -> Any:
        version = self.version(game)
        full = (*key, version)
        with self._lock:
            if full in self._cache:
                self._cache.move_to_end(full)
                return self._cache[full]
        cursor, current = self._cursor(game, version)
        try:
            value = compute(cursor)
        finally:
            cursor.close()
        if not current:  # the old copy's answer, during a reload: not this version's
            return value
        with self._lock:
            self._cache[full] = value
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return value

    def search(
        self, game: str | None, filters: Filters, after: tuple[int, str] | None, limit: int
    ) -> list[tuple[int, str]]:
        """The (finish ms, id) of the games ``filters`` match (of ``game``, else of every engine),
        newest first, after ``after`` (a previous page's last), at most ``limit``: the archive's
        search under the filters its Redis indexes do not hold (ratings, tables)."""
        scope = game or "*"
        ms = "epoch_ms(finished::TIMESTAMP)"
        if filters.player:
            # From the first player's seats (each carries its game's columns: store.fact_copy),
            # a few hundred rows, not from every game; a game once (a name may hold two seats)
            condition, params = where(filters, "s")
            sql = f"SELECT DISTINCT {ms}, game_id FROM seats s WHERE s.name_folded = ? AND {condition}"
            params = [filters.player[0].casefold(), *params]
        else:
            condition, params = where(filters)
            sql = f"SELECT {ms}, game_id FROM games g WHERE {condition}"
        if after is not None:
            sql += f" AND ({ms} < ? OR ({ms} = ? AND game_id < ?))"
            params = [*params, after[0], after[0], after[1]]
        sql += f" ORDER BY 1 DESC, 2 DESC LIMIT {int(limit)}"  # by finish (ms), then id
        version = self.version(scope)
        cursor, _ = self._cursor(scope, version)
        try:
            return [(int(ms), game_id) for ms, game_id in cursor.execute(sql, params).fetchall()]
        finally:
            cursor.close()

    # -- the questions -----------------------------------------------------------------------------

    def global_stats(self, game: str, filters: Filters) -> dict[str, Any]:
        """``game``'s figures over the games ``filters`` match (``GlobalStatsSchema``; the engine's
        own counters need the unfiltered statistics: ``counters`` is empty here)."""
        body: dict[str, Any] = self._cached(
            ("global", game, filters.key()), game, lambda c: _global(c, game, filters, self._rollups)
        )
        return body

    def player_stats(self, game: str, name: str, filters: Filters) -> dict[str, Any] | None:
        """One player's figures (by name, case-insensitively) over the matching games; None: none."""
        key = ("player", game, name.casefold(), filters.key())
        row: dict[str, Any] | None = self._cached(key, game, lambda c: _player(c, game, name, filters))
        return row

    def explorer(self, game: str, situation: str, context: str | None, filters: Filters) -> dict[str, Any]:
        """Each move chosen in ``situation`` (and ``context``) in the matching games: how often, and
        how the seats that chose it finished."""
        declared = situations_of(game)
        if situation not in declared:
            names = ", ".join(sorted(declared)) or "none"
            raise FilterProblem(
                "UNKNOWN_SITUATION",
                f"{game} declares no situation {situation!r} (situations: {names}).",
                "situation",
            )
        key = ("explorer", game, situation, context, filters.key())
        body: dict[str, Any] = self._cached(
            key, game, lambda c: _explorer(c, game, situation, context, filters, declared, self._rollups)
        )
        return body


class _Matching:
    """Queries over the games ``filters`` match: found once per answer into the cursor's own
    temporary table ``m`` (the figures then read it, not the whole store, several times)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, filters: Filters):
        condition, params = where(filters)
        self.con = con
        con.execute(
            "CREATE OR REPLACE TEMP TABLE m AS SELECT game_id, finished, player_count, winners, outcome, "
            f"first_seat, chapters, version FROM games g WHERE {condition}",
            params,
        )
        self.params: list[Any] = []
        self.head = ""

    @classmethod
    def over(cls, con: duckdb.DuckDBPyConnection) -> _Matching:
        """Queries over tables the caller made (no ``m``)."""
        made = cls.__new__(cls)
        made.con, made.params, made.head = con, [], ""
        return made

    def all(self, sql: str, extra: Sequence[Any] = ()) -> list[Any]:
        return self.con.execute(self.head + sql, [*self.params, *extra]).fetchall()

    def one(self, sql: str, extra: Sequence[Any] = ()) -> Any:
        return self.all(sql, extra)[0]


def _global(con: duckdb.DuckDBPyConnection, game: str, filters: Filters, rollups: bool) -> dict[str, Any]:
    summed = rollup_where(filters) if rollups else None
    if summed is not None:
        sums = global_sums(con, *summed, LEADERS)
        games, (first_games, first_wins, expected) = sums["games"], sums["first"]
        by_count, outcomes, chapters = sums["by_count"], sums["outcomes"], sums["chapters"]
        events, seats, leaders = sums["events"], sums["seats"], sums["leaders"]
    else:
        m = _Matching(con, filters)
        (games, first_games, first_wins, expected) = m.one(
            "SELECT count(*), count(first_seat), "
            "coalesce(sum(CASE WHEN list_contains(winners, first_seat) THEN 1 ELSE 0 END), 0), "
            "sum(CASE WHEN first_seat IS NOT NULL THEN 1.0 / player_count END) FROM m"
        )
        by_count = m.all("SELECT player_count, count(*) FROM m GROUP BY 1 ORDER BY 1")
        outcomes = m.all("SELECT outcome, count(*) FROM m WHERE outcome IS NOT NULL GROUP BY 1 ORDER BY 1")
        chapters = m.all("SELECT chapters, count(*) FROM m GROUP BY 1")
        events = m.all("SELECT version, count(*) FROM m GROUP BY 1")
        seats = m.all(
            "SELECT s.seat, count(*), sum(s.won::INTEGER) FROM seats s SEMI JOIN m ON s.game_id = m.game_id "
            "GROUP BY 1 ORDER BY 1"
        )
        leaders = m.all(
            "SELECT arg_max(s.name, m.finished), count(*), sum(s.won::INTEGER) AS wins FROM seats s "
            "JOIN m ON s.game_id = m.game_id WHERE s.name IS NOT NULL GROUP BY s.name_folded "
            f"ORDER BY wins DESC, count(*) DESC, s.name_folded LIMIT {LEADERS}"
        )
    first_rate = _rate(first_wins, first_games)
    expected_rate = round(float(expected) / first_games, 4) if first_games else None
    return {
        "game": game,
        "filters": filters.shown(),
        "games": games,
        "by_player_count": {str(k): n for k, n in by_count},
        "first_seat_advantage": {
            "games": first_games,
            "wins": first_wins,
            "win_rate": first_rate,
            "expected_win_rate": expected_rate,
            "advantage": (
                round(first_rate - expected_rate, 4)
                if first_rate is not None and expected_rate is not None
                else None
            ),
        },
        "win_rate_by_seat": {str(s): {"games": n, "wins": w, "win_rate": _rate(w, n)} for s, n, w in seats},
        "outcomes": {o: n for o, n in outcomes},
        "length": {
            "chapters": distribution_of_counts({int(k or 0): n for k, n in chapters}),
            "events": distribution_of_counts({int(k or 0): n for k, n in events}),
        },
        "counters": {},
        "leaders": [{"name": n, "games": g, "wins": w, "win_rate": _rate(w, g)} for n, g, w in leaders],
    }


def _rows(found: list[tuple[Any, ...]]) -> dict[str, dict[str, Any]]:
    return {str(k): {"games": n, "wins": w, "win_rate": _rate(w, n)} for k, n, w in found}


def _player(con: duckdb.DuckDBPyConnection, game: str, name: str, filters: Filters) -> dict[str, Any] | None:
    # The player's seats first (a few hundred rows), then their games' filters: never the whole
    # matching set of games.
    # Each seats row carries its game's columns (store.fact_copy): no join.
    condition, params = where(filters, "s")
    con.execute(
        "CREATE OR REPLACE TEMP TABLE p AS SELECT s.game_id, s.seat, s.name, s.won, s.player_count, "
        f"s.finished FROM seats s WHERE s.name_folded = ? AND {condition}",
        [name.casefold(), *params],
    )
    m = _Matching.over(con)
    games, wins, spelled = m.one("SELECT count(*), sum(won::INTEGER), arg_max(name, finished) FROM p")
    if not games:
        return None
    by_seat = m.all("SELECT seat, count(*), sum(won::INTEGER) FROM p GROUP BY 1 ORDER BY 1")
    by_count = m.all("SELECT player_count, count(*), sum(won::INTEGER) FROM p GROUP BY 1 ORDER BY 1")
    return {
        "name": spelled or name,
        "game": game,
        "filters": filters.shown(),
        "games": games,
        "wins": int(wins or 0),
        "win_rate": _rate(int(wins or 0), games),
        "by_seat": _rows(by_seat),
        "by_player_count": _rows(by_count),
        "totals": {},
        "counters": {},
        "favourites": {},
    }


def _explorer(
    con: duckdb.DuckDBPyConnection,
    game: str,
    situation: str,
    context: str | None,
    filters: Filters,
    declared: Mapping[str, str],
    rollups: bool,
) -> dict[str, Any]:
    summed = rollup_where(filters) if rollups else None
    if summed is not None:
        rows = explorer_sums(con, situation, context, *summed)
    else:
        rows = _explorer_raw(con, situation, context, filters)
    contexts: dict[str, list[dict[str, Any]]] = {}
    total = 0
    for ctx, move, n, wins, placement, examples in rows:
        total += n
        contexts.setdefault(ctx, []).append(
            {
                "move": move,
                "count": n,
                "wins": int(wins or 0),
                "win_rate": _rate(int(wins or 0), n),
                "mean_placement": round(float(placement), 4) if placement is not None else None,
                "examples": list(examples or []),
            }
        )
    for moves in contexts.values():
        chosen = sum(m["count"] for m in moves)
        for move in moves:
            move["share"] = round(move["count"] / chosen, 4)
    return {
        "game": game,
        "situation": situation,
        "description": declared[situation],
        "context": context,
        "filters": filters.shown(),
        "decisions": total,
        "contexts": [{"context": c, "moves": m} for c, m in contexts.items()],
    }


def _explorer_raw(
    con: duckdb.DuckDBPyConnection, situation: str, context: str | None, filters: Filters
) -> list[tuple[Any, ...]]:
    """The explorer's rows from the raw decisions (filters the rollups do not keep)."""
    condition, params = where(filters)
    sql = (
        "SELECT d.context, d.move, count(*) AS n, sum(d.won::INTEGER), avg(d.placement), "
        f"arg_max(d.game_id, d.finished, {EXAMPLES}) FROM decisions d WHERE d.situation = ?"
    )
    args: list[Any] = [situation]
    if condition != "TRUE":
        sql += f" AND d.game_id IN (SELECT g.game_id FROM games g WHERE {condition})"
        args += params
    if context is not None:
        sql += " AND d.context = ?"
        args.append(context)
    sql += " GROUP BY 1, 2 ORDER BY 1, n DESC, 2"
    return con.execute(sql, args).fetchall()
