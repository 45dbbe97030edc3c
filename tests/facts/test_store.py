"""The analytical store (store.facts, service.facts): every archived game's facts appended once
through the follow-ups, rebuilt byte for byte from the logs, and downloadable as Parquet that DuckDB
and pandas open with the documented schema (docs/statistics.md)."""

from __future__ import annotations

import shutil

import duckdb
import pytest

from games import get_game
from service import composition
from service.facts import fact_store, rebuild
from store.fact_rollups import ROLLUPS
from store.facts import TABLES, FactStore
from tests.facts.played import play_games

NAMES = ["Ann", "Bob", "Cid"]


def _count(facts: FactStore, sql: str) -> int:
    con = facts.connect()
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def test_each_archived_game_enters_the_facts_once_with_its_explored_decisions(svc, facts_dir):
    ids = play_games(svc, "condottiere", 3, seed=1)
    facts = fact_store()
    assert _count(facts, "SELECT count(*) FROM games") == 3
    assert _count(facts, "SELECT count(DISTINCT game_id) FROM games") == 3
    assert _count(facts, "SELECT count(*) FROM seats") == 6
    engine = get_game("condottiere")
    archive = composition.archive_service(svc.store)
    expected = sum(len(list(engine.explore(archive.log(i).events))) for i in ids)
    assert expected > 0
    assert _count(facts, "SELECT count(*) FROM decisions") == expected
    # The follow-up run again (a retry after a kill) changes nothing.
    from service.facts import facts_followup

    for game_id in ids:
        assert facts_followup(svc, game_id, "1")
    assert _count(facts, "SELECT count(*) FROM games") == 3


def _tree(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.parquet"))}


def test_a_rebuild_from_the_logs_gives_the_incremental_facts_byte_for_byte(svc, facts_dir, tmp_path):
    play_games(svc, "condottiere", 4, seed=2)
    incremental = fact_store()
    assert incremental.compact() > 0
    rebuilt = FactStore(tmp_path / "rebuilt")
    assert rebuild(svc.store, rebuilt) == 4
    left, right = _tree(incremental.root), _tree(rebuilt.root)
    # three tables and the rollups of their one month
    assert set(left) == set(right) and len(left) == len(TABLES) + len(ROLLUPS)
    assert left == right
    # A rebuild over a store that already holds files starts from nothing.
    assert rebuild(svc.store, incremental) == 4
    assert _tree(incremental.root) == right


def test_compaction_keeps_every_game_once(svc, facts_dir):
    play_games(svc, "condottiere", 3, seed=3)
    facts = fact_store()
    before = _count(facts, "SELECT count(*) FROM decisions")
    facts.compact()
    play_games(svc, "condottiere", 1, seed=4)
    assert len(facts.files("games")) == 2
    facts.compact()
    assert len(facts.files("games")) == 1
    assert _count(facts, "SELECT count(*) FROM games") == 4
    assert _count(facts, "SELECT count(DISTINCT game_id) FROM games") == 4
    assert _count(facts, "SELECT count(*) FROM decisions") > before


def test_the_export_opens_in_duckdb_and_pandas_with_the_documented_schema(svc, facts_dir, tmp_path):
    pandas = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    play_games(svc, "condottiere", 2, seed=5)
    facts = fact_store()
    documented = _documented_schema()
    assert set(documented) == set(TABLES)
    for table, columns in TABLES.items():
        target = tmp_path / f"{table}.parquet"
        facts.export(table, "condottiere", None, target)
        names = [name for name, _ in columns] + ["game", "month"]
        described = duckdb.sql(f"DESCRIBE SELECT * FROM read_parquet('{target}')").fetchall()
        assert [row[0] for row in described] == names
        # The schema docs/statistics.md gives a user: each column, in order, with DuckDB's type
        assert [(row[0], row[1]) for row in described] == documented[table] + [
            ("game", "VARCHAR"),
            ("month", "VARCHAR"),
        ]
        frame = pandas.read_parquet(target)
        assert list(frame.columns) == names
        assert set(frame["game"]) == {"condottiere"}
    assert len(pandas.read_parquet(tmp_path / "games.parquet")) == 2
    assert len(pandas.read_parquet(tmp_path / "seats.parquet")) == 4


def _documented_schema() -> dict[str, list[tuple[str, str]]]:
    """docs/statistics.md's "Schema": for each table (a paragraph opening with its name in
    backticks and a colon), its columns and types in the order given (a row may name two
    columns: `` `placement`, `won` | INTEGER, BOOLEAN``; ``TIMESTAMP (ms, UTC)`` is a TIMESTAMP)."""
    import re
    from pathlib import Path

    text = Path(__file__).resolve().parents[2].joinpath("docs", "statistics.md").read_text()
    schema = text.split("### Schema", 1)[1].split("\n### ", 1)[0]
    tables: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in schema.splitlines():
        opening = re.match(r"^`(\w+)`: ", line)
        if opening:
            current = tables.setdefault(opening.group(1), [])
        elif current is not None and line.startswith("| `"):
            names_cell, types_cell = (cell.strip() for cell in line.strip("|").split("|")[:2])
            names = re.findall(r"`(\w+)`", names_cell)
            types = [t.strip() for t in re.sub(r"\s*\(.*?\)", "", types_cell).split(",")]
            if len(types) == 1:
                types *= len(names)
            current.extend(zip(names, types, strict=True))
    return tables


def test_files_a_finished_compaction_replaced_are_never_read_twice(tmp_path):
    """A compaction killed after the merged file is in place, before the old files are deleted:
    readers skip the replaced files; the next compaction deletes them."""
    facts = FactStore(tmp_path)

    def rows(i):
        return {
            "games": [
                (
                    f"g{i}",
                    None,
                    None,
                    [],
                    2,
                    ["a", "b"],
                    [0],
                    ["a"],
                    None,
                    False,
                    False,
                    0,
                    2,
                    None,
                    None,
                    3,
                    0,
                    1,
                )
            ]
        }  # noqa: E731

    def killed(step):
        if step == "facts_merged":
            raise KeyboardInterrupt

    for i in range(3):
        facts.append("toy", "2026-01", f"g{i}", rows(i))
    with pytest.raises(KeyboardInterrupt):
        facts.compact(killed)
    # The first table compacted (the games table is compacted last: store.facts.WRITE_ORDER)
    directory = tmp_path / "decisions" / "game=toy" / "month=2026-01"
    assert len(list(directory.glob("*.parquet"))) == 4  # merged + three replaced, still there
    assert _count(facts, "SELECT count(*) FROM games") == 3
    facts.compact()
    assert [p.name for p in directory.glob("*.parquet")] == ["c-1.parquet"]
    assert _count(facts, "SELECT count(*) FROM games") == 3
    shutil.rmtree(tmp_path / "games")


def test_a_game_written_again_after_a_compaction_is_kept_once_by_the_next(tmp_path):
    """A follow-up retried after a compaction merged its game's file writes the file again: the
    next compaction keeps the game once (the rows are equal)."""
    facts = FactStore(tmp_path)
    row = ("g1", None, None, [], 2, ["a", "b"], [0], ["a"], None, False, False, 0, 2, None, None, 3, 0, 1)
    facts.append("toy", "2026-01", "g1", {"games": [row]})
    facts.append("toy", "2026-01", "g2", {"games": [("g2", *row[1:])]})
    facts.compact()
    facts.append("toy", "2026-01", "g1", {"games": [row]})
    assert _count(facts, "SELECT count(*) FROM games") == 3  # until the next compaction
    facts.compact()
    assert _count(facts, "SELECT count(*) FROM games") == 2
    assert _count(facts, "SELECT count(DISTINCT game_id) FROM games") == 2


def test_the_operators_rebuild_gives_both_games_facts_byte_for_byte(
    redis_client, redis_server, tmp_path, monkeypatch
):
    """``python -m worker.facts rebuild`` (the operator's command, not only its function) over an
    archive of both engines across two months: the same bytes as the appends the archive made and
    a compaction, Rio's undone decisions and Condottiere's included."""
    import random

    import orjson

    from tests.random_play import import_played, play_out
    from worker import facts as command

    monkeypatch.setenv("FACTS_DIR", str(tmp_path / "incremental"))
    for i, (name, players) in enumerate([("condottiere", 3), ("rio_de_la_plata", 3), ("condottiere", 2)]):
        engine = get_game(name)
        events, state = play_out(
            engine, engine.configure({"players": players, "seed": 40 + i}), random.Random(i)
        )
        import_played(
            redis_client, engine, events, state, game_id=f"rb{i:03d}", players=NAMES[:players],
            now=f"2026-0{1 + i % 2}-1{i}T10:00:00+00:00",
        )  # fmt: skip
    incremental = fact_store()
    assert incremental.compact() > 0
    out = tmp_path / "out.json"
    with out.open("w") as sink:
        monkeypatch.setattr("sys.stdout", sink)
        assert command.main(["rebuild", "--url", redis_server.url, "--dir", str(tmp_path / "rebuilt")]) == 0
    assert orjson.loads(out.read_text())["games"] == 3
    left, right = _tree(incremental.root), _tree(tmp_path / "rebuilt")
    assert any(key.startswith("decisions/game=rio_de_la_plata/") for key in left)
    assert set(left) == set(right)
    assert left == right
