"""Swiss pairing of n entrants at tables of 4 (``service.tournament.swiss.swiss_round``) for n from
1,000 to 10,000: the time of one round's pairing and of the standings it starts from (median of the
runs, with the min-max spread), the repeats it left, and how the time grows; then the quality of a
whole Swiss played through the same code (repeats, seat balance round by round).

    /work/main/.venv/bin/python bench/pairing.py [--runs 7] [--rounds 4] [--seed 1] [--quality 10000]
        [--quality-runs 3]

Timing: the earlier rounds are *synthesised*, not paired: each is the field sorted by score (ties at
random) cut into tables of 4 with a random seat order and a random placing, which is what a Swiss
history looks like to the next round (score groups, opponents met inside them, seat counts) at a cost
of one sort per round, so 10,000 entrants are ready in about a second rather than after minutes of
pairing earlier rounds. Random seats are harder on the seat balancing than a history the pairing
balanced itself, so the figures err on the slow side. What is timed is the pairing alone (grouping,
repeat search, seat swaps, seating), given the ranking, scores and history; the standings
(``scoring.standings``, integer units) are timed apart, since a round start needs both. Growth: the
ratio of the medians and the log-log slope of time over n (1 is linear), within one run. Times are
CPU seconds of this process (``time.process_time``), less disturbed than wall time on a loaded
machine; the wall-clock median is printed beside them.

Quality: ``--quality-runs`` Swisses of ``--rounds + 1`` rounds of a field of ``--quality`` players
(default 10,000) paired by ``swiss_round`` itself from the start (random placings), each round's
median [min-max] over the runs: its pairing CPU time, the repeats it made, the first-seat counts'
max-min over the field and the share of players "two apart" (outside the best band of two
neighbouring counts; 0 when within one), the share two apart in their own positions (their most-
less least-held position of their table's size), and the share seated by the first-seat
arrangement on a place of the standings that a player of another score held (its cost). The
garbage collector is off while timing (collected before each run).
"""

from __future__ import annotations

import argparse
import gc
import math
import random
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.tournament.scoring import TableResult, placement_units, standings  # noqa: E402
from service.tournament.swiss import (  # noqa: E402
    arrange_claims,
    first_seat_claims,
    history,
    swiss_round,
)
from service.tournament.tables import table_sizes  # noqa: E402

SIZES = (1_000, 2_000, 5_000, 10_000)
K = 4


def synthetic(n: int, rounds: int, rng: random.Random):
    """``rounds`` synthesised rounds of ``n`` players (see the module doc)."""
    players = [f"p{i:05d}" for i in range(n)]
    ratings = {p: rng.gauss(1500, 200) for p in players}
    score = dict.fromkeys(players, 0)
    past: list[list[list[str]]] = []
    results: list[list[TableResult]] = []
    for _ in range(rounds):
        order = sorted(players, key=lambda p: (-score[p], rng.random()))
        tables = [order[i : i + K] for i in range(0, n, K)]
        for t in tables:
            rng.shuffle(t)
        done = [TableResult(tuple(t), tuple((p,) for p in rng.sample(t, len(t)))) for t in tables]
        for result in done:
            for p, u in placement_units(result).items():
                score[p] += u
        past.append(tables)
        results.append(done)
    return ratings, past, results


def timed(fn, runs: int) -> tuple[list[float], list[float]]:
    """CPU seconds of this process and wall seconds of each run."""
    cpu, wall = [], []
    for _ in range(runs):
        gc.collect()
        gc.disable()
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
        gc.enable()
    return cpu, wall


def repeats(tables, met) -> int:
    return sum(met.get(a, {}).get(b, 0) for t in tables for a, b in combinations(t, 2))


def spread(tables: list[list[str]], seats) -> tuple[int, int]:
    """How many players of ``tables`` are more than one apart between their most- and least-held
    position (of their table's size), and how many players ``tables`` seat."""
    over = 0
    for t in tables:
        for p in t:
            c = seats[p][: len(t)]
            over += max(c) - min(c) > 1
    return over, sum(len(t) for t in tables)


def fmt(xs: list[float]) -> str:
    return f"{statistics.median(xs):7.3f} [{min(xs):.3f}-{max(xs):.3f}]"


def speed(args, rng: random.Random) -> None:
    print(
        f"Swiss round {args.rounds + 1} at tables of {K} after {args.rounds} synthesised rounds, "
        f"{args.runs} runs each: median [min-max] s"
    )
    print(
        f"{'n':>7} {'pairing CPU':>24} {'(wall)':>7} {'standings CPU':>24} "
        f"{'repeats':>8} {'seat spread>1':>14}"
    )
    medians = []
    for n in SIZES:
        ratings, past, results = synthetic(n, args.rounds, rng)
        table = standings(ratings, results)
        ranked = [s.player for s in table]
        scores = {s.player: s.units for s in table}
        met, seats = history(past)
        got: list[list[list[str]]] = []
        pair_t, pair_wall = timed(
            lambda g=got, r=ranked, s=scores, m=met, h=seats: g.append(swiss_round(r, s, K, 3, m, h)),
            args.runs,
        )
        stand_t, _ = timed(lambda r=ratings, x=results: standings(r, x), max(3, args.runs // 2))
        tables = got[-1]
        _, after = history([*past, tables])
        over, _ = spread(tables, after)
        medians.append(statistics.median(pair_t))
        print(
            f"{n:>7} {fmt(pair_t):>24} {statistics.median(pair_wall):7.3f} {fmt(stand_t):>24} "
            f"{repeats(tables, met):>8} {over:>14}"
        )
    slope = math.log(medians[-1] / medians[0]) / math.log(SIZES[-1] / SIZES[0])
    print(
        f"growth 1,000 -> 10,000 (x10 players): pairing x{medians[-1] / medians[0]:.1f}, "
        f"log-log slope {slope:.2f} (1 = linear)"
    )


def first_seat_gap(players: Sequence[str], seats: Mapping[str, Sequence[int]]) -> tuple[int, int]:
    """Over ``players``: the most first seats held less the fewest, and how many players fall
    outside the best band of two neighbouring counts (the players "two apart": 0 when within one)."""
    counts = [seats.get(p, [0])[0] for p in players]
    tally: dict[int, int] = {}
    for c in counts:
        tally[c] = tally.get(c, 0) + 1
    band = max(tally.get(c, 0) + tally.get(c + 1, 0) for c in tally)
    return max(counts) - min(counts), len(counts) - band


def off_score(
    ranked: Sequence[str],
    scores: Mapping[str, object],
    sizes: Sequence[int],
    seats: Mapping[str, Sequence[int]],
) -> int:
    """How many players the first-seat arrangement put on a place of the standings that a player of
    another score held (the cost of keeping first seats within one)."""
    claims = first_seat_claims(ranked, len(sizes), seats) if seats else {}
    arranged = arrange_claims(ranked, sizes, claims)
    return sum(1 for a, b in zip(arranged, ranked, strict=True) if scores[a] != scores[b])


def played(n: int, rounds: int, rng: random.Random) -> list[tuple[float, int, int, int, int, int]]:
    """A Swiss of ``n`` played through ``swiss_round``: per round its pairing CPU seconds, repeats,
    first-seat max-min and players two apart, players two apart in their own positions, and players
    seated on a place of another score."""
    players = [f"p{i:05d}" for i in range(n)]
    ratings = {p: rng.gauss(1500, 200) for p in players}
    past: list[list[list[str]]] = []
    results: list[list[TableResult]] = []
    rows = []
    for _ in range(rounds):
        table = standings(ratings, results)
        ranked = [s.player for s in table]
        scores = {s.player: s.units for s in table}
        met, seats = history(past)
        start = time.process_time()
        tables = swiss_round(ranked, scores, K, 3, met, seats)
        took = time.process_time() - start
        moved = off_score(ranked, scores, table_sizes(n, K, 3), seats)
        past.append(tables)
        results.append([TableResult(tuple(t), tuple((p,) for p in rng.sample(t, len(t)))) for t in tables])
        _, after = history(past)
        gap, apart = first_seat_gap(players, after)
        over, _ = spread(tables, after)
        rows.append((took, repeats(tables, met), gap, apart, over, moved))
    return rows


def quality(args, rng: random.Random) -> None:
    n = args.quality
    runs = [played(n, args.rounds + 1, rng) for _ in range(args.quality_runs)]
    print(
        f"\nA Swiss of {n} played through swiss_round (tables of {K}, random placings), "
        f"{args.quality_runs} runs: median [min-max] over the runs"
    )
    print(
        f"{'round':>5} {'pairing CPU s':>22} {'repeats':>8} {'first-seat max-min':>19} "
        f"{'first seat two apart %':>23} {'own positions two apart %':>26} {'on another score %':>19}"
    )

    def col(xs: Sequence[float], pct: bool = False) -> str:
        xs = [100 * x / n for x in xs] if pct else xs
        form = "{:.2f}" if pct else "{:g}"
        return f"{form.format(statistics.median(xs))} [{form.format(min(xs))}-{form.format(max(xs))}]"

    for r in range(args.rounds + 1):
        got = [run[r] for run in runs]
        print(
            f"{r + 1:>5} {fmt([g[0] for g in got]):>22} {col([g[1] for g in got]):>8} "
            f"{col([g[2] for g in got]):>19} {col([g[3] for g in got], True):>23} "
            f"{col([g[4] for g in got], True):>26} {col([g[5] for g in got], True):>19}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=4, help="rounds played before the one timed")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quality", type=int, default=10000, help="the played-through field (0: none)")
    parser.add_argument("--quality-runs", type=int, default=3, help="how many Swisses to play through")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    speed(args, rng)
    if args.quality:
        quality(args, rng)


if __name__ == "__main__":
    main()
