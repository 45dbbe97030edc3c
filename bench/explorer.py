# ruff: noqa: E501  (the synthesis is SQL, kept one clause a line)
"""The analytical store at scale: filtered statistics and decision-explorer latency, store size per
game, append cost per archived game.

    .venv/bin/python bench/explorer.py [--games 1000000] [--templates 300 40] [--runs 15] [--dir DIR]

How the archive is made: ``--templates`` real games per engine (Condottiere, Rio de la Plata) are
played to their end by the random bot (random legal moves, 2-4 and 3-4 seats) and turned into fact
rows by the production code (``replays.facts.rows_of``: the engines' explorer hooks). The store of
``--games`` games (80 % Condottiere) is then synthesised by resampling those templates inside
DuckDB: game i copies template i mod K (its seats, winners, outcome, lengths, grouped decisions),
with a fresh id, a finish time spread over 24 months, seat names drawn from 5,000 players, ratings
drawn around 20 (sd 8), one table in eight with server bots, some rulesets and options; and written
as the compacted store (one Parquet file per table, engine and month: what ``python -m worker.facts
compact`` leaves). Generating a million games by playing them would take this shared 2-core machine
hours (Rio: about a second a game), hence the resampling; the decisions are real bot decisions.

Latency: ten representative questions through ``service.fact_queries.FactQueries`` (the code the
routes call), each run ``--runs`` times with the answer cache emptied before each run (the views over
the files are kept, as in a serving process); p50 and p95 per question and over all, with a
bootstrap 95 % interval on the overall p95, and the CPU time of each answer (the machine is shared:
the wall-clock time includes the wait for a core). Size: bytes of the files per game. Append: the cost of
one archived game's facts (rows from its log + its three files written, fsync not included), over
the templates, mean and sd.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import duckdb  # noqa: E402

from games import get_game  # noqa: E402
from replays.facts import SeatFact, rows_of  # noqa: E402
from service.fact_queries import FactQueries  # noqa: E402
from service.filters import parse  # noqa: E402
from store.facts import ORDER, TABLES, FactStore  # noqa: E402
from tests.random_play import play_out  # noqa: E402

ENGINES = {"condottiere": (2, 3, 4), "rio_de_la_plata": (3, 4)}
START = datetime(2025, 1, 1, tzinfo=UTC)


def templates(name: str, count: int, seed: int) -> tuple[dict[str, list[tuple]], list[float]]:
    """``count`` real games of ``name`` played by the random bot, as fact rows (template ids t<i>),
    and the time each took to turn into rows and be appended to a store (seconds)."""
    engine = get_game(name)
    rng = random.Random(seed)
    rows: dict[str, list[tuple]] = {table: [] for table in TABLES}
    costs: list[float] = []
    scratch = FactStore(tempfile.mkdtemp(prefix="explorer-append-"))
    for i in range(count):
        players = rng.choice(ENGINES[name])
        events, state = play_out(
            engine, engine.configure({"players": players, "seed": rng.randrange(10**9)}), rng
        )
        result = engine.result(state) or {}
        winners = list(result.get("winners") or [])
        names = [f"T{s}" for s in range(players)]
        summary = {
            "id": f"t{i}", "game": name, "ruleset": None, "options": [], "winners": winners,
            "winner_names": [names[w] for w in winners], "outcome": result.get("reason"),
            "version": len(events), "prearranged": False, "imported": False,
        }  # fmt: skip
        seats = [SeatFact(n, None, None, None) for n in names]
        started = time.perf_counter()
        made = rows_of(engine, events, summary, seats, int(START.timestamp() * 1000))
        scratch.append(name, "2025-01", f"t{i}", made)
        costs.append(time.perf_counter() - started)
        for table, found in made.items():
            rows[table].extend(found)
    shutil.rmtree(scratch.root, ignore_errors=True)
    return rows, costs


def synthesise(root: Path, games: int, made: dict[str, dict[str, list[tuple]]]) -> float:
    """Write the resampled store under ``root`` (see the module docstring); returns seconds."""
    started = time.perf_counter()
    root.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(":memory:")
    shares = {"condottiere": 0.8, "rio_de_la_plata": 0.2}
    for name, rows in made.items():
        count = int(games * shares[name])
        k = len(rows["games"])
        for table, columns in TABLES.items():
            con.execute(f"CREATE OR REPLACE TABLE t_{table} ({', '.join(f'{n} {t}' for n, t in columns)})")
            con.executemany(f"INSERT INTO t_{table} VALUES ({', '.join('?' for _ in columns)})", rows[table])
        # template index of each game id t<i>
        for table in TABLES:
            con.execute(f"ALTER TABLE t_{table} ADD COLUMN tpl INTEGER")
            con.execute(f"UPDATE t_{table} SET tpl = CAST(substr(game_id, 2) AS INTEGER)")
        prefix = name[:1]
        con.execute(
            f"""CREATE OR REPLACE TABLE g AS
            SELECT r.range AS i, '{prefix}' || lpad(r.range::VARCHAR, 9, '0') AS game_id, r.range % {k} AS tpl,
                   make_timestamp_ms({int(START.timestamp() * 1000)} + (hash(r.range, 1) % 63072000000::UBIGINT)::BIGINT)
                     AS finished,
                   hash(r.range, 2) % 8 = 0 AS with_bots,
                   hash(r.range, 3) % 10 = 0 AS unrated,
                   hash(r.range, 4) % 20 = 0 AS prearranged
            FROM range({count}) r"""
        )
        con.execute(
            """CREATE OR REPLACE TABLE s AS
            SELECT g.game_id, t.seat,
                   CASE WHEN g.with_bots AND t.seat = 1 THEN 'heuristic' ELSE 'player' || (hash(g.i, t.seat, 5) % 5000)::VARCHAR END AS name,
                   g.with_bots AND t.seat = 1 AS bot,
                   CASE WHEN g.unrated THEN NULL ELSE round(20 + 8 * (((hash(g.i, t.seat, 6) % 1000) / 1000.0) * 2 - 1) * 1.7, 3) END AS rating,
                   t.placement, t.won, g.finished
            FROM g JOIN t_seats t ON t.tpl = g.tpl"""
        )
        con.execute(
            f"""COPY (
              SELECT s.game_id, s.seat, s.name, lower(s.name) AS name_folded,
                     CASE WHEN s.bot THEN NULL ELSE 'acct-' || s.name END AS account, s.bot,
                     CASE WHEN s.bot THEN 'heuristic' END AS bot_level, s.rating, s.placement, s.won,
                     '{name}' AS game, strftime(s.finished, '%Y-%m') AS month
              FROM s ORDER BY {ORDER["seats"]}
            ) TO '{root / "seats"}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (game, month), OVERWRITE_OR_IGNORE)"""
        )
        con.execute(
            f"""COPY (
              SELECT g.game_id, g.finished,
                     CASE WHEN '{name}' = 'condottiere' THEN (CASE WHEN hash(g.i, 7) % 4 = 0 THEN 'classic' ELSE '2006' END) END AS ruleset,
                     CASE WHEN hash(g.i, 8) % 3 = 0 THEN ['capturing'] ELSE []::VARCHAR[] END AS options,
                     t.player_count,
                     (SELECT list(name ORDER BY seat) FROM s WHERE s.game_id = g.game_id) AS players,
                     t.winners,
                     (SELECT list(name ORDER BY seat) FROM s WHERE s.game_id = g.game_id AND s.won) AS winner_names,
                     t.outcome, g.prearranged, false AS imported,
                     CASE WHEN g.with_bots THEN 1 ELSE 0 END AS bots,
                     t.player_count - CASE WHEN g.with_bots THEN 1 ELSE 0 END AS humans,
                     (SELECT min(rating) FROM s WHERE s.game_id = g.game_id) AS rating_min,
                     (SELECT max(rating) FROM s WHERE s.game_id = g.game_id) AS rating_max,
                     t.version, t.first_seat, t.chapters,
                     '{name}' AS game, strftime(g.finished, '%Y-%m') AS month
              FROM g JOIN t_games t ON t.tpl = g.tpl ORDER BY {ORDER["games"]}
            ) TO '{root / "games"}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (game, month), OVERWRITE_OR_IGNORE)"""
        )
        con.execute(
            f"""COPY (
              SELECT g.game_id, d.decision, g.finished, d.seat, d.situation, d.context, d.move, d.placement, d.won,
                     '{name}' AS game, strftime(g.finished, '%Y-%m') AS month
              FROM g JOIN t_decisions d ON d.tpl = g.tpl ORDER BY g.game_id, d.decision, d.situation
            ) TO '{root / "decisions"}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (game, month), OVERWRITE_OR_IGNORE)"""
        )
    con.close()
    return time.perf_counter() - started


def questions() -> list[tuple[str, object]]:
    f = parse
    return [
        ("global, humans only", lambda q: q.global_stats("condottiere", f({"table": ["humans"]}))),
        ("global, 3 players, a quarter", lambda q: q.global_stats(
            "condottiere", f({"players": ["3"], "finished_from": ["2025-04-01"], "finished_to": ["2025-06-30"]}))),
        ("global, rating band 15-30", lambda q: q.global_stats(
            "condottiere", f({"rating_min": ["15"], "rating_max": ["30"]}))),
        ("global Rio, mixed tables", lambda q: q.global_stats("rio_de_la_plata", f({"table": ["mixed"]}))),
        ("player, all games", lambda q: q.player_stats("condottiere", "player42", f({"players": ["2", ][:1]}))),
        ("player, capturing, 2026", lambda q: q.player_stats(
            "condottiere", "player4242", f({"option": ["capturing"], "finished_from": ["2026-01-01"]}))),
        ("explorer opening card", lambda q: q.explorer("condottiere", "opening_card", None, f({"prearranged": ["false"]}))),
        ("explorer first region, 4 players", lambda q: q.explorer(
            "condottiere", "first_battle_region", None, f({"players": ["4"]}))),
        ("explorer Rio characters, band", lambda q: q.explorer(
            "rio_de_la_plata", "character", None, f({"rating_min": ["10"], "rating_max": ["40"]}))),
        ("archive search, player + bots", lambda q: q.search(
            "condottiere", f({"player": ["player7"], "table": ["mixed"]}), None, 20)),
    ]  # fmt: skip


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(p / 100 * len(ordered) + 0.5)) - 1))]


def as_compacted(facts: FactStore) -> float:
    """Name the synthesised files as a compaction does (``c-1``) and let the compaction write their
    rollups (``store.fact_rollups``): what ``python -m worker.facts compact`` leaves. Seconds."""
    for directory in facts.root.glob("*/game=*/month=*"):
        for n, path in enumerate(sorted(directory.glob("data_*.parquet")), start=1):
            path.rename(directory / f"c-{n}.parquet")
    started = time.perf_counter()
    facts.compact()
    return time.perf_counter() - started


def measure(
    queries: FactQueries, ask, runs: int, rollups: bool, cpu: list[float] | None = None
) -> list[float]:
    """Wall-clock ms of ``runs`` answers; their CPU ms (every thread of this process: DuckDB's
    included) appended to ``cpu``: what the answer costs whatever else the shared cores run."""
    times = []
    for _ in range(runs):
        queries._rollups = rollups  # noqa: SLF001 - the same loaded copy, both ways
        queries._cache.clear()  # noqa: SLF001 - measure the query, not the answer cache
        c = time.process_time()
        t = time.perf_counter()
        ask(queries)
        times.append(1000 * (time.perf_counter() - t))
        if cpu is not None:
            cpu.append(1000 * (time.process_time() - c))
    return times


def summary(label: str, times: list[float]) -> str:
    return f"{label}: p50 {percentile(times, 50):7.1f} ms  p95 {percentile(times, 95):7.1f} ms  (min {min(times):.1f}, max {max(times):.1f}, n={len(times)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--templates", type=int, nargs=2, default=(300, 40), metavar=("CONDOTTIERE", "RIO"))
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--raw-runs", type=int, default=3, help="runs of each question over the raw facts (the ratio)"
    )
    parser.add_argument("--dir", help="where to write the store (default: a temporary directory, removed)")
    parser.add_argument("--reuse", action="store_true", help="--dir holds a synthesised store: use it")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    root = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="explorer-bench-"))
    try:
        started = time.perf_counter()
        made, costs = {}, []
        for (name, _), count in zip(ENGINES.items(), args.templates, strict=True):
            made[name], spent = templates(name, count, args.seed)
            costs += spent
            print(
                f"{name}: {count} template games played, mean append {1000 * statistics.mean(spent):.1f} ms"
            )
        print(f"templates: {time.perf_counter() - started:.1f} s")
        if not args.reuse:
            took = synthesise(root, args.games, made)
            print(f"synthesised {args.games:,} games in {took:.1f} s")
        facts = FactStore(root)
        raw_size = sum(p.stat().st_size for table in TABLES for p in facts.files(table))
        rolled = as_compacted(facts)
        size = facts.size()
        print(
            f"rollups written by the compaction in {rolled:.1f} s ({rolled / args.games * 1e6:.1f} us per game)"
        )
        print(f"store {size / 1e6:.1f} MB, {size / args.games:.0f} B per game "
              f"(raw facts {raw_size / args.games:.0f} B, rollups {(size - raw_size) / args.games:.0f} B)")  # fmt: skip
        print(f"append per archived game (rows + 3 files): mean {1000 * statistics.mean(costs):.1f} ms, "
              f"sd {1000 * statistics.stdev(costs):.1f} ms, n={len(costs)}")  # fmt: skip
        queries = FactQueries(lambda: facts)
        t = time.perf_counter()
        for name in ENGINES:
            queries._cursor(name, queries.version(name))[0].close()  # noqa: SLF001 - the serving copy
        print(f"serving copy loaded in {time.perf_counter() - t:.1f} s")
        print(f"load average (1, 5, 15 min) before the questions: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
              f"on {os.cpu_count()} cores")  # fmt: skip
        everything: list[float] = []
        cpu_all: list[float] = []
        raw_all: list[float] = []
        ratios: list[float] = []
        for label, ask in questions():
            ask(queries)  # a warm page cache
            cpu: list[float] = []
            times = measure(queries, ask, args.runs, True, cpu)
            cpu_all += cpu
            raw = measure(queries, ask, args.raw_runs, False) if args.raw_runs else []
            everything += times
            raw_all += raw
            line = (
                f"  {label:36s} rollups p50 {percentile(times, 50):7.1f} p95 {percentile(times, 95):7.1f} ms"
                f" (cpu p50 {percentile(cpu, 50):6.1f} p95 {percentile(cpu, 95):6.1f})"
            )
            if raw:
                ratio = statistics.median(raw) / statistics.median(times)
                ratios.append(ratio)
                line += f" | raw p50 {percentile(raw, 50):8.1f} ms | raw/rollups {ratio:6.1f}x"
            print(line, flush=True)
        rng = random.Random(args.seed)
        boot = sorted(percentile(rng.choices(everything, k=len(everything)), 95) for _ in range(1000))
        print(
            summary("all runs, rollups", everything)
            + f"; p95 bootstrap 95% CI {boot[25]:.1f}-{boot[974]:.1f} ms"
        )
        print(summary("all runs, CPU time", cpu_all))
        print(f"load average after the questions: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        if raw_all:
            print(summary("all runs, raw facts", raw_all))
            print(f"raw/rollups ratio of medians per question: geometric mean {statistics.geometric_mean(ratios):.1f}x, "
                  f"min {min(ratios):.1f}x, max {max(ratios):.1f}x")  # fmt: skip
        queries.global_stats("condottiere", parse({"table": ["humans"]}))
        t = time.perf_counter()
        queries.global_stats("condottiere", parse({"table": ["humans"]}))  # the same again: cached
        print(f"cached answer (the version check included): {1000 * (time.perf_counter() - t):.2f} ms")
        # A game entering the store: its files appended, then the serving copy's refresh (its rows
        # and its rollup sums added in memory), as the first question after it pays.
        refresh, refresh_cpu = [], []
        rows = made["condottiere"]
        for i in range(10):
            game_id = f"new{i}"
            mine = {t: [(game_id, *r[1:]) for r in rows[t] if r[0] == f"t{i}"] for t in TABLES}
            facts.append("condottiere", "2026-12", game_id, mine)
            c, t = time.process_time(), time.perf_counter()
            queries._cursor("condottiere", queries.version("condottiere"))[0].close()  # noqa: SLF001
            refresh.append(1000 * (time.perf_counter() - t))
            refresh_cpu.append(1000 * (time.process_time() - c))
        print(
            f"serving copy refreshed after one new game: mean {statistics.mean(refresh):.1f} ms, sd {statistics.stdev(refresh):.1f} ms, n=10; "
            f"CPU mean {statistics.mean(refresh_cpu):.1f} ms, sd {statistics.stdev(refresh_cpu):.1f} ms"
        )
        if args.reuse:
            for path in root.rglob("g-new*.parquet"):
                path.unlink()
    finally:
        if not args.dir:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
