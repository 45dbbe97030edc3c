"""Statistics under the filters and the decision explorer, answered from the analytical store
(``store.facts``, DuckDB over Parquet) at once: no job. The budget (docs/statistics.md) is 100 ms at
the 95th percentile on a million games; bench/explorer.py measures it (not met yet at a million).

Answers are cached in this process, keyed by the request and by the version of the data it reads:
the engine's set of fact files (``store.facts.FactStore.files``), which changes exactly when one of
its games enters the analytical store (or a compaction merges files, which changes no answer but is
rare), so a new Condottiere game leaves every cached Rio answer valid. The DuckDB views over an
engine's files are likewise kept while its files stay the same.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb

from games import get_game
from games.base import explorer_hooks
from replays.stats import LEADERS, distribution_of_counts
from service.filters import FilterProblem, Filters, where
from store.facts import FactStore

CACHE_SIZE = 512
EXAMPLES = 3


def _rate(wins: int, games: int) -> float | None:
    return round(wins / games, 4) if games else None


def situations_of(game: str) -> dict[str, str]:
    """The situations ``game``'s engine declares for the explorer (none without the hook)."""
    explorer = explorer_hooks(get_game(game))
    return dict(explorer.explorer_situations()) if explorer is not None else {}


class FactQueries:
    """See the module docstring."""

    def __init__(self, facts: Callable[[], FactStore]):
        self._facts = facts
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._views: dict[str, tuple[dict[str, set[Path]], duckdb.DuckDBPyConnection]] = {}

    # -- the data's version, the views, the cache ----------------------------------------------------

    def version(self, game: str) -> tuple[str, ...]:
        """The version of ``game``'s facts: the names of the files in use (see the module docstring)."""
        return tuple(str(p) for files in self._files(game).values() for p in files)

    def _files(self, game: str) -> dict[str, list[Path]]:
        return self._facts().snapshot(None if game == "*" else game)

    def _cursor(self, game: str, version: tuple[str, ...]) -> duckdb.DuckDBPyConnection:
        """A cursor on this process's in-memory copy of ``game``'s facts at ``version``: the new
        files' rows are added to it; after a compaction (files gone) it is loaded again."""
        with self._lock:
            files = self._files(game)
            now = {table: set(paths) for table, paths in files.items()}
            kept = self._views.get(game)
            if kept is not None and all(kept[0][t] <= now[t] for t in now):
                new = {t: sorted(now[t] - kept[0][t]) for t in now}
                if any(new.values()):
                    FactStore.add(kept[1], new)
                    kept = (now, kept[1])
                    self._views[game] = kept
            else:
                if kept is not None:
                    kept[1].close()
                kept = (now, self._facts().load(files))
                self._views[game] = kept
            return kept[1].cursor()

    def _cached(
        self, key: tuple[Any, ...], game: str, compute: Callable[[duckdb.DuckDBPyConnection], Any]
    ) -> Any:
        version = self.version(game)
        full = (*key, version)
        with self._lock:
            if full in self._cache:
                self._cache.move_to_end(full)
                return self._cache[full]
        cursor = self._cursor(game, version)
        try:
            value = compute(cursor)
        finally:
            cursor.close()
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
        condition, params = where(filters)
        ms = "epoch_ms(finished::TIMESTAMP)"
        sql = f"SELECT {ms}, game_id FROM games g WHERE {condition}"
        if after is not None:
            sql += f" AND ({ms} < ? OR ({ms} = ? AND game_id < ?))"
            params = [*params, after[0], after[0], after[1]]
        sql += f" ORDER BY finished DESC, game_id DESC LIMIT {int(limit)}"
        version = self.version(scope)
        cursor = self._cursor(scope, version)
        try:
            return [(int(ms), game_id) for ms, game_id in cursor.execute(sql, params).fetchall()]
        finally:
            cursor.close()

    # -- the questions -----------------------------------------------------------------------------

    def global_stats(self, game: str, filters: Filters) -> dict[str, Any]:
        """``game``'s figures over the games ``filters`` match (``GlobalStatsSchema``; the engine's
        own counters need the unfiltered statistics: ``counters`` is empty here)."""
        body: dict[str, Any] = self._cached(
            ("global", game, filters.key()), game, lambda c: _global(c, game, filters)
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
            key, game, lambda c: _explorer(c, game, situation, context, filters, declared)
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

    def all(self, sql: str, extra: Sequence[Any] = ()) -> list[Any]:
        return self.con.execute(self.head + sql, [*self.params, *extra]).fetchall()

    def one(self, sql: str, extra: Sequence[Any] = ()) -> Any:
        return self.all(sql, extra)[0]


def _global(con: duckdb.DuckDBPyConnection, game: str, filters: Filters) -> dict[str, Any]:
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
    m = _Matching(con, filters)
    m.head = (
        "WITH p AS (SELECT s.*, m.player_count, m.finished FROM seats s "
        "JOIN m ON s.game_id = m.game_id WHERE s.name_folded = ?) "
    )
    m.params = [name.casefold()]
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
) -> dict[str, Any]:
    condition, params = where(filters)
    # Without filters the decisions alone answer (they carry the finish time the examples are
    # ordered by); with filters, only the decisions of the matching games (a semi-join).
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
    rows = con.execute(sql, args).fetchall()
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
