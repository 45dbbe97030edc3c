"""The analytical store: facts of finished games as Parquet files, queried with DuckDB.

Not Redis: the facts are columns scanned by the million (the statistics under any filter, the
decision explorer), which an embedded analytical engine over columnar files answers in milliseconds
and Redis' per-key structures do not. DuckDB (MIT, maintained, one wheel) reads Parquet natively,
prunes hive partitions and row groups, and writes Parquet deterministically; the same files are what
users download and what a distributed SQL engine reads at scale (docs/scaling.md).

Layout under ``root`` (``FACTS_DIR``; docs/statistics.md documents the columns)::

    <table>/game=<engine>/month=<YYYY-MM>/g-<game id>.parquet   one game, as it entered the archive
    <table>/game=<engine>/month=<YYYY-MM>/c-<n>.parquet         many games, compacted
    <table>/game=<engine>/month=<YYYY-MM>/c-<n>.covers          the files c-<n> replaced

Appending never rewrites: a game's rows go to a file of their own, named by its id, written to a
temporary name and renamed, so writing it again (a retried follow-up) replaces it with the same
bytes and a reader sees it whole or not at all. Its ``games`` row is written last: every query joins
through ``games``, so a game whose other files are written but not that one is not seen yet.

Compaction (:meth:`FactStore.compact`) merges a partition's files into one. It first writes which
files the new one replaces (``c-<n>.covers``), then renames the new file into place: from that
instant readers skip the replaced files (:meth:`FactStore.files`), which are then deleted. A
compaction killed at any instant leaves either the old files in use (no ``c-<n>.parquet`` yet) or the
new one (the old ones are skipped, and deleted by the next compaction): never a game twice or none.
It merges only whole games' files (those whose ``games`` row is written; the ``games`` files last),
so a half-written game's file, written again the same by its retried append, is never counted
twice. One compactor at a time (the operator's command or the janitor's tick; a lock file
serialises them on a machine, a lease in Redis across machines: ``store.facts_lease``).
"""

from __future__ import annotations

import fcntl
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from store.fact_rollups import ROLLUPS, raw_of, rollup_path, sums_of

# Each table's columns (name, DuckDB type) in the files; ``game`` and ``month`` are the partition
# (hive) columns, from the path. The order is the files' column order: change it only with a rebuild.
TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "games": (
        ("game_id", "VARCHAR"),
        ("finished", "TIMESTAMP_MS"),
        ("ruleset", "VARCHAR"),
        ("options", "VARCHAR[]"),
        ("player_count", "INTEGER"),
        ("players", "VARCHAR[]"),
        ("winners", "INTEGER[]"),
        ("winner_names", "VARCHAR[]"),
        ("outcome", "VARCHAR"),
        ("prearranged", "BOOLEAN"),
        ("imported", "BOOLEAN"),
        ("bots", "INTEGER"),
        ("humans", "INTEGER"),
        ("rating_min", "DOUBLE"),
        ("rating_max", "DOUBLE"),
        ("version", "INTEGER"),
        ("first_seat", "INTEGER"),
        ("chapters", "INTEGER"),
    ),
    "seats": (
        ("game_id", "VARCHAR"),
        ("seat", "INTEGER"),
        ("name", "VARCHAR"),
        ("name_folded", "VARCHAR"),
        ("account", "VARCHAR"),
        ("bot", "BOOLEAN"),
        ("bot_level", "VARCHAR"),
        ("rating", "DOUBLE"),
        ("placement", "INTEGER"),
        ("won", "BOOLEAN"),
    ),
    "decisions": (
        ("game_id", "VARCHAR"),
        ("decision", "INTEGER"),
        ("finished", "TIMESTAMP_MS"),
        ("seat", "INTEGER"),
        ("situation", "VARCHAR"),
        ("context", "VARCHAR"),
        ("move", "VARCHAR"),
        ("placement", "INTEGER"),
        ("won", "BOOLEAN"),
    ),
}
# The order rows are written in (a compacted file too), so the same facts give the same bytes.
ORDER = {
    "games": "finished, game_id",
    "seats": "game_id, seat",
    "decisions": "game_id, decision, situation",
}
WRITE_ORDER = ("decisions", "seats", "games")  # games last: see the module docstring
PARQUET = "(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880)"
_SAFE = re.compile(r"[A-Za-z0-9_.-]{1,80}")
_MONTH = re.compile(r"[0-9]{4}-[0-9]{2}")


def _nothing(step: str) -> None:
    return None


class FactStore:
    """See the module docstring. ``root``: the directory holding the tables."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root)
        self._lock = threading.Lock()

    # -- writing -------------------------------------------------------------------------------------

    def append(
        self,
        game: str,
        month: str,
        game_id: str,
        rows: Mapping[str, Sequence[Sequence[Any]]],
        passed: Callable[[str], None] = _nothing,
    ) -> None:
        """Write one game's rows (``rows[table]``: tuples in :data:`TABLES`' column order) to its own
        files (idempotent: the same rows give the same files). ``passed(step)`` is called after
        each file (the fault-injection tests kill the process there)."""
        _check(game, month, game_id)
        with _connection() as con:
            for table in WRITE_ORDER:
                target = self._partition(table, game, month) / f"g-{game_id}.parquet"
                self._write(con, table, rows.get(table, ()), target)
                passed(f"facts_wrote_{table}")
        self.touch(game)

    def touch(self, game: str) -> None:
        """Mark ``game``'s files changed (:meth:`stamp`): after a game's files are all written, after
        a compaction, and by a retried append that finds them there (a kill may have come between
        its last file and this)."""
        _check(game, "2000-01", "x")
        self.root.mkdir(parents=True, exist_ok=True)
        _write_atomically(self.root / f".stamp-{game}", os.urandom(8).hex().encode())

    def stamp(self, game: str | None = None) -> tuple[str, ...]:
        """What changes whenever ``game``'s (else any engine's) files in use change: one small file
        read, where listing the files walks every partition. Readers key their answers by it."""
        names = [f".stamp-{game}"] if game else sorted(p.name for p in self.root.glob(".stamp-*"))
        found = []
        for name in names:
            try:
                found.append(f"{name}:{(self.root / name).read_text()}")
            except FileNotFoundError:
                found.append(f"{name}:")
        return tuple(found)

    def has(self, game: str, month: str, game_id: str) -> bool:
        """Whether the game's ``games`` row is in the store (as its own file or compacted)."""
        _check(game, month, game_id)
        files = self.files("games", game, month)
        if not files:
            return False
        with _connection() as con:
            found = con.execute(
                f"SELECT count(*) FROM read_parquet({_list(files)}) WHERE game_id = ?", [game_id]
            ).fetchone()
        return bool(found and found[0])

    def _write(
        self, con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Sequence[Any]], target: Path
    ) -> None:
        columns = TABLES[table]
        con.execute(f"CREATE OR REPLACE TEMP TABLE t ({', '.join(f'{n} {t}' for n, t in columns)})")
        if rows:
            # One statement for all the rows: DuckDB's executemany runs one statement per row
            one = "(" + ", ".join("?" for _ in columns) + ")"
            values = [value for row in rows for value in row]
            con.execute(f"INSERT INTO t VALUES {', '.join(one for _ in rows)}", values)
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        con.execute(f"COPY (SELECT * FROM t ORDER BY {ORDER[table]}) TO '{_sql_path(temporary)}' {PARQUET}")
        os.replace(temporary, target)

    def compact(self, passed: Callable[[str], None] = _nothing) -> int:
        """Merge every partition holding more than one file, or a game's own, into one (see the
        module docstring), and write the rollups of the merged ``games`` files. Returns how many
        partitions were compacted."""
        done = 0
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".compaction.lock", "w") as lock, _connection() as con:
            fcntl.flock(lock, fcntl.LOCK_EX)
            complete: dict[tuple[str, str], set[str]] = {}
            order = {table: i for i, table in enumerate(WRITE_ORDER)}
            for table, game, month in sorted(self.partitions(), key=lambda p: (order[p[0]], p[1], p[2])):
                directory = self._partition(table, game, month)
                _finish_compactions(directory)
                inputs = sorted(p.name for p in directory.glob("*.parquet"))
                if table != "games":
                    # Only whole games' files (their games row written, the last): a half-written
                    # game's file left here is written again, the same, by its retried append.
                    if (game, month) not in complete:
                        complete[(game, month)] = self._ids(con, game, month)
                    whole = complete[(game, month)]
                    inputs = [n for n in inputs if n.startswith("c-") or n[2 : -len(".parquet")] in whole]
                if not inputs or (len(inputs) == 1 and inputs[0].startswith("c-")):
                    continue
                number = 1 + max((_number(name) for name in inputs if name.startswith("c-")), default=0)
                merged = directory / f"c-{number}.parquet"
                temporary = directory / f".c-{number}.parquet.tmp"
                con.execute(
                    # DISTINCT: a game written again after a compaction took its file (a follow-up
                    # retried late) is kept once; a game's rows are never equal to another's.
                    f"COPY (SELECT DISTINCT * FROM read_parquet({_list([directory / n for n in inputs])}) "
                    f"ORDER BY {ORDER[table]}) TO '{_sql_path(temporary)}' {PARQUET}"
                )
                covers = directory / f"c-{number}.covers"
                _write_atomically(covers, "\n".join(inputs).encode())
                passed("facts_wrote_covers")
                os.replace(temporary, merged)  # from here on, readers use the merged file
                passed("facts_merged")
                _finish_compactions(directory)
                self.touch(game)
                done += 1
            for game, month in sorted({(g, m) for t, g, m in self.partitions() if t == "games"}):
                if self._write_rollups(con, game, month, passed):
                    self.touch(game)
        return done

    def _ids(self, con: duckdb.DuckDBPyConnection, game: str, month: str) -> set[str]:
        """The ids of the partition's games whose ``games`` row is written."""
        files = self.files("games", game, month)
        if not files:
            return set()
        return {row[0] for row in con.execute(f"SELECT game_id FROM read_parquet({_list(files)})").fetchall()}

    def _write_rollups(
        self, con: duckdb.DuckDBPyConnection, game: str, month: str, passed: Callable[[str], None]
    ) -> bool:
        """Write the rollups of the partition's compacted ``games`` file unless written; delete
        those of files no longer in use (``store.fact_rollups``). True: one was written."""
        wrote = False
        in_use = [p for p in self.files("games", game, month) if p.name.startswith("c-")]
        for rollup in ROLLUPS:
            directory = self._partition(rollup, game, month)
            wanted = {rollup_path(self.root, rollup, p) for p in in_use}
            for stale in [*directory.glob("*.parquet"), *directory.glob(".*.tmp")]:
                if stale not in wanted:
                    stale.unlink()
        for games_file in in_use:
            for rollup in ROLLUPS:
                raw = raw_of(rollup)
                target = rollup_path(self.root, rollup, games_file)
                if target.exists():
                    continue
                source = None if raw is None else self._distinct(con, raw, game, month)
                target.parent.mkdir(parents=True, exist_ok=True)
                temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
                select = sums_of(rollup, f"read_parquet({_list([games_file])})", source, partition=False)
                con.execute(f"COPY ({select}) TO '{_sql_path(temporary)}' {PARQUET}")
                os.replace(temporary, target)
                wrote = True
                passed(f"facts_rolled_{rollup}")
        return wrote

    def _distinct(self, con: duckdb.DuckDBPyConnection, table: str, game: str, month: str) -> str:
        """A relation of the partition's ``table`` rows, each once (a game written again after a
        compaction took its file is in two files)."""
        files = self.files(table, game, month)
        if len(files) == 1:  # a compacted file (its rows made distinct) or one game's own
            return f"read_parquet({_list(files)})"
        if files:
            return f"(SELECT DISTINCT * FROM read_parquet({_list(files)}))"
        columns = ", ".join(f"{n} {t}" for n, t in TABLES[table])
        con.execute(f"CREATE OR REPLACE TEMP TABLE empty_{table} ({columns})")
        return f"empty_{table}"

    def clear(self) -> None:
        """Remove every table (the rebuild starts from nothing)."""
        for table in (*TABLES, *ROLLUPS):
            base = self.root / table
            if not base.exists():
                continue
            for path in sorted(base.rglob("*"), reverse=True):
                path.unlink() if path.is_file() else path.rmdir()
            base.rmdir()
        for stamp in self.root.glob(".stamp-*"):
            self.touch(stamp.name[len(".stamp-") :])

    # -- reading -------------------------------------------------------------------------------------

    def partitions(self) -> list[tuple[str, str, str]]:
        """Every (table, game, month) partition on disk, sorted."""
        found = []
        for table in TABLES:
            for directory in sorted((self.root / table).glob("game=*/month=*")):
                found.append((table, directory.parent.name[5:], directory.name[6:]))
        return found

    def files(self, table: str, game: str | None = None, month: str | None = None) -> list[Path]:
        """The files holding ``table``'s rows now (of ``game``, of ``month``), each game once: the
        files a finished compaction replaced are skipped."""
        base = self.root / table
        pattern = f"game={game or '*'}/month={month or '*'}"
        chosen: list[Path] = []
        for directory in sorted(base.glob(pattern)):
            names = {p.name for p in directory.glob("*.parquet")}
            replaced: set[str] = set()
            for covers in directory.glob("c-*.covers"):
                if covers.with_suffix(".parquet").name in names:
                    replaced.update(covers.read_text().split())
            chosen.extend(directory / n for n in sorted(names - replaced))
        return chosen

    def snapshot(self, game: str | None = None) -> dict[str, list[Path]]:
        """Each table's current files (:meth:`files`), for one consistent set of views."""
        return {table: self.files(table, game) for table in TABLES}

    def connect(self, game: str | None = None) -> duckdb.DuckDBPyConnection:
        """A new in-memory DuckDB connection with a view per table over its current files (an empty
        table where there are none yet)."""
        con = duckdb.connect(":memory:", config={"threads": 1})
        for table, files in self.snapshot(game).items():
            columns = ", ".join(f"{n} {t}" for n, t in TABLES[table])
            if files:
                con.execute(f"CREATE VIEW {table} AS SELECT * FROM {_hive(files)}")
            else:
                con.execute(f"CREATE TABLE {table} ({columns}, game VARCHAR, month VARCHAR)")
        return con

    def export(self, table: str, game: str, month: str | None, target: Path) -> None:
        """One Parquet file of ``table``'s rows of ``game`` (of ``month``), with the partition columns,
        written to ``target`` (what a user downloads)."""
        _check(game, month or "2000-01", "x")
        files = self.files(table, game, month)
        with _connection() as con:
            if files:
                source = _hive(files)
            else:
                columns = ", ".join(f"{n} {t}" for n, t in TABLES[table])
                con.execute(f"CREATE OR REPLACE TEMP TABLE empty ({columns}, game VARCHAR, month VARCHAR)")
                source = "empty"
            con.execute(
                f"COPY (SELECT * FROM {source} ORDER BY {ORDER[table]}) TO '{_sql_path(target)}' {PARQUET}"
            )

    def size(self) -> int:
        """Bytes of the files in use, the rollups' included."""
        raw = sum(path.stat().st_size for table in TABLES for path in self.files(table))
        return raw + sum(
            path.stat().st_size for path in self.rollup_files({r: self.files("games") for r in ROLLUPS})
        )

    def rollup_files(self, games_files: Mapping[str, Sequence[Path]]) -> list[Path]:
        """The rollup files there are of ``games_files`` (rollup -> games files)."""
        found = []
        for rollup, paths in games_files.items():
            for path in paths:
                target = rollup_path(self.root, rollup, path)
                if path.name.startswith("c-") and target.exists():
                    found.append(target)
        return found

    def _partition(self, table: str, game: str, month: str) -> Path:
        return self.root / table / f"game={game}" / f"month={month}"


_WRITER: list[duckdb.DuckDBPyConnection] = []
_WRITER_LOCK = threading.Lock()


@contextmanager
def _connection() -> Iterator[duckdb.DuckDBPyConnection]:
    """The process's one DuckDB connection for writing (opening one costs ~20-40 ms, more than
    writing a game), held by one thread at a time. One thread inside DuckDB too: the rows are
    written in one order, so the same facts give the same bytes."""
    with _WRITER_LOCK:
        if not _WRITER or os.getpid() != _WRITER_PID[0]:
            _WRITER[:] = [duckdb.connect(":memory:", config={"threads": 1})]
            _WRITER_PID[:] = [os.getpid()]  # a forked child opens its own
        yield _WRITER[0]


_WRITER_PID: list[int] = [0]


def _finish_compactions(directory: Path) -> None:
    """Delete what finished compactions replaced, and what killed ones left half-written."""
    for covers in sorted(directory.glob("c-*.covers")):
        if covers.with_suffix(".parquet").exists():
            for name in covers.read_text().split():
                (directory / name).unlink(missing_ok=True)
        covers.unlink()
    for stale in directory.glob(".*.tmp"):
        stale.unlink()


def _write_atomically(path: Path, body: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "wb") as out:
        out.write(body)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)


def _number(name: str) -> int:
    return int(name[2:].split(".", 1)[0])


def _check(game: str, month: str, game_id: str) -> None:
    if not _SAFE.fullmatch(game) or not _MONTH.fullmatch(month) or not _SAFE.fullmatch(game_id):
        raise ValueError(f"not a partition or id: {game!r} {month!r} {game_id!r}")


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")


def _list(paths: Sequence[Path]) -> str:
    return "[" + ", ".join(f"'{_sql_path(p)}'" for p in paths) + "]"


def _hive(files: Sequence[Path]) -> str:
    """A scan of ``files`` with the partition columns from their paths (always text)."""
    return f"read_parquet({_list(files)}, hive_partitioning = true, hive_types = {HIVE_TYPES})"


HIVE_TYPES = "{'game': VARCHAR, 'month': VARCHAR}"
