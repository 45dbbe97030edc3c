"""The matcher's pass (``service.matching.form_tables``) over n open seeks of mixed games, table
sizes, ratings, ranges and waiting times, for n from 1,000 to 10,000: the time of one pass (median
of the runs, with the min-max spread), the tables formed, and how the time grows.

    /work/main/.venv/bin/python bench/matcher.py [--runs 7] [--seed 1]

What it times is the whole pairing decision of one pass: the seeks grouped into pools (one per
game, configuration and clock: here 3 games x sizes 2-6 x 2 clocks) and each pool's sort-and-sweep.
Not timed: Redis (each table's claim and game creation are a few round trips per table, the same
whatever the algorithm). Growth: the log-log slope of time over n (1 is linear; n log n from
1,000 to 10,000 is about 1.1), and CPU time / (n log2 n) per size, which stays flat when the pass is
O(n log n) on a quiet machine. On the shared 2-core machine even Python's own sort of the same
seeks grows faster than n log n from 1,000 to 10,000 (caches, other processes), so the pass is
also given against that sort, timed alike (``pass/sort``): a ratio that stays flat says the pass
grows as a sort does. The pass's CPU time (``time.process_time``) is timed beside the wall clock,
and the growth is given on both: under load a wall-clock measurement of tens of milliseconds is
preempted more often than one of a millisecond, so the wall clock's growth overstates the pass's
(at a load of 10 on 2 cores: x47 wall against x8 CPU). The garbage collector is off while timing
(collected before each run).
"""

from __future__ import annotations

import argparse
import gc
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service import matching  # noqa: E402
from service.matching import Seeker, Widening, form_tables  # noqa: E402

SIZES = (1_000, 2_000, 5_000, 10_000)
GAMES = ("condottiere", "rio", "toy")


def seeks(n: int, rng: random.Random, now_ms: int) -> list[tuple[tuple[str, int, int], Seeker]]:
    out = []
    for i in range(n):
        pool = (rng.choice(GAMES), rng.randint(2, 6), rng.choice((0, 60)))
        bot = rng.random() < 0.05
        seeker = Seeker(
            id=f"s{i}",
            rating=rng.gauss(25.0, 8.0),
            range=rng.uniform(0.5, 5.0),
            since_ms=now_ms - int(rng.uniform(0, 90_000)),
            bots_ok=rng.random() < 0.8,
            is_bot=bot,
        )
        out.append((pool, seeker))
    return out


def one_pass(entries: list[tuple[tuple[str, int, int], Seeker]], now_ms: int, widening: Widening) -> int:
    pools: dict[tuple[str, int, int], list[Seeker]] = defaultdict(list)
    for pool, seeker in entries:
        pools[pool].append(seeker)
    tables = 0
    for (_, size, _), members in pools.items():
        tables += len(form_tables(members, size, now_ms, widening))
    return tables


def counted_checks(
    entries: list[tuple[tuple[str, int, int], Seeker]], now_ms: int, widening: Widening
) -> int:
    """The compatibility checks one pass makes (counted by wrapping the matcher's own check)."""
    calls = [0]
    original = matching.compatible

    def counting(group, now, widen):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return original(group, now, widen)

    matching.compatible = counting
    try:
        one_pass(entries, now_ms, widening)
    finally:
        matching.compatible = original
    return calls[0]


def log_log_slope(figures: dict[int, float]) -> float:
    xs = [math.log(n) for n in SIZES]
    ys = [math.log(figures[n]) for n in SIZES]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    widening = Widening()
    now_ms = 1_800_000_000_000
    medians: dict[int, float] = {}
    cpu_medians: dict[int, float] = {}
    checks: dict[int, int] = {}
    print(f"widening: {widening.per_second}/s, anyone after {widening.any_after_seconds} s; {args.runs} runs")
    head = (
        "n",
        "median ms",
        "min-max ms",
        "cpu ms",
        "tables",
        "seated",
        "us/(n log2 n)",
        "sort ms",
        "pass/sort",
    )
    widths = (7, 10, 16, 8, 7, 7, 14, 8, 9)
    print(" ".join(f"{h:>{w}}" for h, w in zip(head, widths, strict=True)))
    for n in SIZES:
        rng = random.Random(args.seed + n)
        entries = seeks(n, rng, now_ms)
        times, cpus, sorts, tables = [], [], [], 0
        one_pass(entries, now_ms, widening)  # warm-up
        for _ in range(args.runs):
            gc.collect()
            gc.disable()
            started, cpu_started = time.perf_counter(), time.process_time()
            tables = one_pass(entries, now_ms, widening)
            middle, cpu_ended = time.perf_counter(), time.process_time()
            sorted((s for _, s in entries), key=lambda s: (s.rating, s.since_ms, s.id))
            ended = time.perf_counter()
            gc.enable()
            times.append((middle - started) * 1000)
            cpus.append((cpu_ended - cpu_started) * 1000)
            sorts.append((ended - middle) * 1000)
        median = statistics.median(times)
        ratio = statistics.median(t / s for t, s in zip(times, sorts, strict=True))
        medians[n] = median
        cpu_medians[n] = statistics.median(cpus)
        pools: dict[tuple[str, int, int], list[Seeker]] = defaultdict(list)
        for pool, seeker in entries:
            pools[pool].append(seeker)
        seated = sum(
            len(t) for (_, size, _), m in pools.items() for t in form_tables(m, size, now_ms, widening)
        )
        per = cpu_medians[n] * 1000 / (n * math.log2(n))
        checks[n] = counted_checks(entries, now_ms, widening)
        spread = f"{min(times):.2f}-{max(times):.2f}"
        print(
            f"{n:>7} {median:>10.2f} {spread:>16} {cpu_medians[n]:>8.2f} {tables:>7} {seated:>7} {per:>14.3f}"
            f" {statistics.median(sorts):>8.2f} {ratio:>9.2f}"
        )
    nlogn = math.log(10_000 * math.log2(10_000) / (1_000 * math.log2(1_000))) / math.log(10)
    expected = 10 * math.log2(10_000) / math.log2(1_000)
    for clock, figures in (("cpu", cpu_medians), ("wall", medians)):
        growth = figures[10_000] / figures[1_000]
        print(f"{clock} growth 1,000 -> 10,000: x{growth:.2f} (n log n: x{expected:.2f});", end=" ")
        print(f"log-log slope {log_log_slope(figures):.3f} (n log n over this span: {nlogn:.3f})")
    # Machine-independent: the sweep's window checks (each O(size)) per seek; the rest is Timsort.
    print("window checks per seek (the sweep is linear when this stays flat):", end=" ")
    print(", ".join(f"{n}: {checks[n] / n:.3f}" for n in SIZES))


if __name__ == "__main__":
    main()
