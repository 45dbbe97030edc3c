"""Swiss pairing of n entrants at tables of 4 (``service.tournament.swiss.swiss_round``) for n from
1,000 to 10,000: the time of one round's pairing (median of the runs, with the min-max spread), the
repeats it left, the players outside "within one" seat balance, and how the time grows.

    /work/main/.venv/bin/python bench/pairing.py [--runs 7] [--rounds 4] [--seed 1]

The field is a simulated Swiss: ``--rounds`` rounds paired by the same code with random results,
so the round timed has a real history (opponents met, seats held, scores in groups). What is timed
is the pairing alone (grouping, repeat search, seating), given the ranking, scores and history;
the standings (``scoring.standings``, exact fractions) are timed apart, since a round start needs
both. Growth: the log-log slope of time over n (1 is linear). The garbage collector is off while
timing (collected before each run).
"""

from __future__ import annotations

import argparse
import gc
import math
import random
import statistics
import sys
import time
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.tournament.scoring import TableResult, standings  # noqa: E402
from service.tournament.swiss import history, swiss_round  # noqa: E402

SIZES = (1_000, 2_000, 5_000, 10_000)


def field(n: int, rounds: int, rng: random.Random):
    players = [f"p{i:05d}" for i in range(n)]
    ratings = {p: rng.gauss(1500, 200) for p in players}
    past: list[list[list[str]]] = []
    results: list[list[TableResult]] = []
    for _ in range(rounds):
        table = standings(ratings, results)
        ranked = [s.player for s in table]
        scores = {s.player: float(s.score) for s in table}
        met, seats = history(past)
        tables = swiss_round(ranked, scores, 4, 3, met, seats)
        past.append(tables)
        results.append([TableResult(tuple(t), tuple((p,) for p in rng.sample(t, len(t)))) for t in tables])
    return ratings, past, results


def timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
        gc.enable()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=4, help="rounds played before the one timed")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    medians = []
    print(f"Swiss round {args.rounds + 1} at tables of 4, {args.runs} runs each (median [min-max])")
    print(f"{'n':>7} {'pairing s':>24} {'standings s':>24} {'repeats':>8} {'seat spread>1':>14}")
    for n in SIZES:
        ratings, past, results = field(n, args.rounds, rng)
        table = standings(ratings, results)
        ranked = [s.player for s in table]
        scores = {s.player: float(s.score) for s in table}
        met, seats = history(past)
        got: list[list[list[str]]] = []
        pair_t = timed(
            lambda g=got, r=ranked, s=scores, m=met, h=seats: g.append(swiss_round(r, s, 4, 3, m, h)),
            args.runs,
        )
        stand_t = timed(lambda r=ratings, x=results: standings(r, x), max(3, args.runs // 2))
        tables = got[-1]
        repeats = sum(met.get(a, {}).get(b, 0) for t in tables for a, b in combinations(t, 2))
        _, after = history([*past, tables])
        unbalanced = sum(1 for p in ranked if max(after[p][:4]) - min(after[p][:4]) > 1)
        med = statistics.median(pair_t)
        medians.append(med)
        sm = statistics.median(stand_t)
        print(
            f"{n:>7} {med:>9.3f} [{min(pair_t):.3f}-{max(pair_t):.3f}] "
            f"{sm:>9.3f} [{min(stand_t):.3f}-{max(stand_t):.3f}] {repeats:>8} {unbalanced:>14}"
        )
    slope = math.log(medians[-1] / medians[0]) / math.log(SIZES[-1] / SIZES[0])
    print(f"growth 1,000 -> 10,000: x{medians[-1] / medians[0]:.1f}, log-log slope {slope:.2f} (1 = linear)")


if __name__ == "__main__":
    main()
