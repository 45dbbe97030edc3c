"""The serving copy of an engine's facts (``store.facts``): an in-memory DuckDB database each reading
process keeps per engine and facts version (``service.fact_queries``), loaded once and then kept up
to date game by game (:func:`add`), so a question reads memory, never the files.

Besides the files' tables it holds, for each rollup (``store.fact_rollups``), the same sums over the
months (``<rollup>_all``: the questions without a date read a few thousand rows there instead of
every month's), and each ``seats`` row carries its game's filter columns (:data:`GAME_COLUMNS`), the
rows sorted by player: one player's seats under any filter are then a read of the row groups
holding that name (DuckDB skips the others by their min/max), without a join to a million games.
Because of that join a seats file is added only once its game's ``games`` file is there
(:func:`ready`: that file is written last), so a half-written game stays unseen as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import duckdb

from store.fact_rollups import ALL_MONTHS, ROLLUPS, all_months_of, raw_of, rollup_path, sums_of
from store.facts import TABLES, FactStore, _hive, _list

# The games' columns each seats row of the copy carries (every column ``service.filters.where``
# reads besides the game's id).
GAME_COLUMNS = (
    "player_count",
    "finished",
    "ruleset",
    "options",
    "outcome",
    "prearranged",
    "bots",
    "humans",
    "rating_min",
    "rating_max",
)


def ready(files: Mapping[str, Sequence[Path]]) -> dict[str, list[Path]]:
    """``files`` (table -> files) less the files of games whose ``games`` file is not among them
    yet (a game's own files; compacted files hold whole games only)."""
    games = set(files.get("games") or ())

    def whole(path: Path) -> bool:
        if not path.name.startswith("g-"):
            return True
        month, engine = path.parent, path.parent.parent
        return engine.parent.parent / "games" / engine.name / month.name / path.name in games

    return {table: [p for p in paths if table == "games" or whole(p)] for table, paths in files.items()}


def load(facts: FactStore, files: Mapping[str, Sequence[Path]]) -> duckdb.DuckDBPyConnection:
    """A new in-memory database holding the rows of ``files`` (table -> files, :func:`ready`) and
    their rollups."""
    con = duckdb.connect(":memory:")
    games_columns = dict(TABLES["games"])
    for table in TABLES:
        columns = [f"{n} {t}" for n, t in TABLES[table]] + ["game VARCHAR", "month VARCHAR"]
        if table == "seats":
            columns += [f"{n} {games_columns[n]}" for n in GAME_COLUMNS]
        con.execute(f"CREATE TABLE {table} ({', '.join(columns)})")
    for rollup in ROLLUPS:
        # The rollup's columns: those of its sums over an empty games table
        con.execute(f"CREATE TABLE {rollup} AS {sums_of(rollup, 'games', raw_of(rollup), partition=True)}")
        con.execute(f"CREATE TABLE {rollup}{ALL_MONTHS} AS {all_months_of(rollup, rollup)}")
    add(facts, con, files)
    # One thread per question from here on: a question is a few milliseconds of work, and on
    # shared cores a second thread mostly waits for its turn (its query waits with it).
    con.execute("SET threads = 1")
    return con


def add(facts: FactStore, con: duckdb.DuckDBPyConnection, files: Mapping[str, Sequence[Path]]) -> None:
    """Add the rows of ``files`` (table -> files, :func:`ready`) to a copy made by :func:`load`, and
    their games' rollups: read from the rollup files of compacted games files, summed from the
    rows just added for the others (``store.fact_rollups``)."""
    games = list(files.get("games") or ())
    for table in TABLES:
        paths = list(files.get(table) or ())
        if not paths:
            continue
        if table == "seats":
            if not games:
                continue
            taken = ", ".join(f"g.{n}" for n in GAME_COLUMNS)
            con.execute(
                f"INSERT INTO seats BY NAME SELECT s.*, {taken} FROM {_hive(paths)} s "
                f"JOIN read_parquet({_list(games)}) g ON s.game_id = g.game_id ORDER BY s.name_folded"
            )
            continue
        # The explorer reads one situation at a time: rows of one situation together let DuckDB
        # skip the others' row groups (zone maps).
        order = " ORDER BY situation, context, move" if table == "decisions" else ""
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM {_hive(paths)}{order}")
    root = facts.root
    summed = [p for p in games if not all(rollup_path(root, r, p).exists() for r in ROLLUPS)]
    stored = {r: [rollup_path(root, r, p) for p in games if p not in summed] for r in ROLLUPS}
    _insert_sums(con, {r: f"SELECT * FROM {_hive(paths)}" for r, paths in stored.items() if paths}, True)
    if not summed:
        return
    if all(p.name.startswith("g-") for p in summed):
        # A game's own files sit beside its games file: each read once into a small table the
        # rollups sum, not the whole copy, unless a compaction took one meanwhile.
        own = {t: [root / t / p.relative_to(root / "games") for p in summed] for t in ("seats", "decisions")}
        try:
            con.execute(
                f"CREATE OR REPLACE TEMP TABLE new_games AS SELECT * FROM {_hive(summed)}; "
                + "; ".join(
                    f"CREATE OR REPLACE TEMP TABLE new_{t} AS SELECT * FROM read_parquet({_list(paths)})"
                    for t, paths in own.items()
                )
            )
        except duckdb.IOException:
            pass
        else:
            _insert_sums(
                con,
                {
                    r: sums_of(r, "new_games", raw_of(r) and f"new_{raw_of(r)}", partition=True)
                    for r in ROLLUPS
                },
            )
            return
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE new_games AS SELECT game_id FROM read_parquet({_list(summed)})"
    )
    copy = "(SELECT * FROM games WHERE game_id IN (SELECT game_id FROM new_games))"
    _insert_sums(con, {r: sums_of(r, copy, raw_of(r), partition=True) for r in ROLLUPS})


def _insert_sums(con: duckdb.DuckDBPyConnection, selects: Mapping[str, str], regroup: bool = False) -> None:
    """Add the rows each ``selects[rollup]`` gives to the copy's ``rollup`` table, and to its
    all-months table: summed over the months (``regroup``: the rollup files, many months a group)
    or as they are, less the month (new games: a few rows, one more row per group there until the
    copy is loaded again; the queries sum the rows of a group, so the answers are the same and the
    sort and grouping, most of a new game's refresh, are saved). One call for them all."""
    statements = []
    for rollup, select in selects.items():
        staged = f"staged_{rollup}"
        statements.append(f"CREATE OR REPLACE TEMP TABLE {staged} AS {select}")
        statements.append(f"INSERT INTO {rollup} BY NAME SELECT * FROM {staged}")
        over = all_months_of(rollup, staged) if regroup else f"SELECT * EXCLUDE (month) FROM {staged}"
        statements.append(f"INSERT INTO {rollup}{ALL_MONTHS} BY NAME {over}")
    if statements:
        con.execute("; ".join(statements))
