"""The statistics and the explorer answered from the rollups (``store.fact_rollups``): the
pre-summed counts per month, number of seats, kind of table, prearranged and rating band, so an
answer is one pass over a few thousand rows instead of the millions of raw facts.

:func:`rollup_where` says whether the rollups can answer a set of filters (and how); when they
cannot (a player, an account, a winner, a ruleset, an option, an outcome, a date that is not a
month's first or last day, a rating band end that is not a multiple of ``BAND``), the caller reads
the raw facts (``service.fact_queries``). The answers are the same either way
(tests/facts/test_rollups.py).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import duckdb

from service.filters import Filters
from store.fact_rollups import ALL_MONTHS, BAND


def _month_start(ms: int) -> str | None:
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    if (moment.day, moment.hour, moment.minute, moment.second, moment.microsecond) != (1, 0, 0, 0, 0):
        return None
    return moment.strftime("%Y-%m")


def _month_end(ms: int) -> str | None:
    after = datetime.fromtimestamp((ms + 1) / 1000, UTC)  # the first instant after the range
    if _month_start(ms + 1) is None:
        return None
    return (after - timedelta(days=1)).strftime("%Y-%m")


def _band(value: float) -> int | None:
    steps = value / BAND
    return int(steps) if steps == int(steps) else None


def rollup_where(filters: Filters) -> tuple[str, list[Any], str] | None:
    """SQL conditions over a rollup's rows matching ``filters``, their parameters and the suffix of
    the tables to read (the rollups' family, ``store.fact_rollups.FAMILIES``, and ``ALL_MONTHS``
    when no date is asked); None when the rollups cannot answer them (see the
    module docstring: also the table or prearranged with a rating band)."""
    if filters.player or filters.option or filters.account is not None or filters.winner is not None:
        return None
    if filters.ruleset is not None or filters.outcome is not None:
        return None
    sql: list[str] = []
    params: list[Any] = []
    if filters.players is not None:
        sql.append("player_count = ?")
        params.append(filters.players)
    if filters.prearranged is not None:
        sql.append("prearranged = ?")
        params.append(filters.prearranged)
    if filters.table is not None:
        sql.append("kind = ?")
        params.append(filters.table)
    for value, condition in ((filters.rating_min, "band_low >= ?"), (filters.rating_max, "band_high <= ?")):
        if value is not None:
            band = _band(value)
            if band is None:
                return None
            sql.append(condition)
            params.append(band)
    for ms, to_month, condition in (
        (filters.finished_from, _month_start, "month >= ?"),
        (filters.finished_to, _month_end, "month <= ?"),
    ):
        if ms is not None:
            month = to_month(ms)
            if month is None:
                return None
            sql.append(condition)
            params.append(month)
    banded = filters.rating_min is not None or filters.rating_max is not None
    if banded and (filters.prearranged is not None or filters.table):
        return None
    family = "_by_band" if banded else ""
    if filters.finished_from is None and filters.finished_to is None:
        family += ALL_MONTHS  # no month asked: the serving copy's sums over the months
    return (" AND ".join(sql) or "TRUE"), params, family


def _rate(wins: int, games: int) -> float | None:
    return round(wins / games, 4) if games else None


def global_sums(
    con: duckdb.DuckDBPyConnection, condition: str, params: list[Any], family: str, leaders: int
) -> dict[str, Any]:
    """The general figures' counts from ``game_sums``, ``seat_sums`` and ``name_sums``."""

    def rows(sql: str, table: str = "game_sums") -> list[Any]:
        return con.execute(sql.format(t=f"{table}{family} WHERE {condition}"), params).fetchall()

    # The game counts in one statement (each statement pays a turn on the shared cores): the
    # totals and the four breakdowns as grouping sets, told apart by GROUPING().
    found = rows(
        "SELECT GROUPING(player_count, outcome, chapters, version), player_count, outcome, chapters, "
        "version, sum(n)::BIGINT, sum(first_games)::BIGINT, sum(first_wins)::BIGINT, "
        "sum(first_games / player_count) FROM {t} GROUP BY GROUPING SETS "
        "((), (player_count), (outcome), (chapters), (version))"
    )
    by: dict[int, list[tuple[Any, ...]]] = {}
    for grouping, *row in found:
        by.setdefault(grouping, []).append(tuple(row))
    # GROUPING() has a bit per column, the first column the highest; 0: that column is grouped
    total = by.get(0b1111, [(None, None, None, None, None, None, None, None)])[0]
    return {
        "games": total[4] or 0,
        "first": (total[5] or 0, total[6] or 0, total[7]),
        "by_count": sorted((r[0], r[4]) for r in by.get(0b0111, [])),
        "outcomes": sorted((r[1], r[4]) for r in by.get(0b1011, []) if r[1] is not None),
        "chapters": [(r[2], r[4]) for r in by.get(0b1101, [])],
        "events": [(r[3], r[4]) for r in by.get(0b1110, [])],
        "seats": rows(
            "SELECT seat, sum(n)::BIGINT, sum(wins)::BIGINT FROM {t} GROUP BY 1 ORDER BY 1", "seat_sums"
        ),
        "leaders": rows(
            "SELECT max(latest).name, sum(n)::BIGINT AS games, sum(wins)::BIGINT AS wins FROM {t} "
            f"GROUP BY name_folded ORDER BY wins DESC, games DESC, name_folded LIMIT {leaders}",
            "name_sums",
        ),
    }


def explorer_sums(
    con: duckdb.DuckDBPyConnection,
    situation: str,
    context: str | None,
    condition: str,
    params: list[Any],
    family: str,
) -> list[tuple[Any, ...]]:
    """The explorer's rows (context, move, count, wins, mean placement, example ids) from
    ``explorer_sums``, in the order the raw query gives them."""
    sql = (
        "SELECT context, move, sum(n)::BIGINT AS count, sum(wins)::BIGINT, sum(placements) / sum(n), "
        # The three newest examples are among those of the three rows with the newest example (a
        # game is in one row of a move): never every row's lists merged.
        "list_transform(list_slice(list_reverse_sort(flatten(arg_max(examples, examples[1], 3))), 1, 3), "
        f"lambda e: e.game_id) FROM explorer_sums{family} WHERE situation = ? AND " + condition
    )
    args: list[Any] = [situation, *params]
    if context is not None:
        sql += " AND context = ?"
        args.append(context)
    sql += " GROUP BY 1, 2 ORDER BY 1, count DESC, 2"
    return con.execute(sql, args).fetchall()
