"""``paired_ab.py`` with each side's live-reader race counted: B/A per move, and for each side the
share of moves the live reader delivered before the move's own ``deliver_local``.

    .venv/bin/python bench/paired_race.py BEFORE_DIR AFTER_DIR [--games 16]

Why: that share ("reader first") moves from 0% to 30% between runs of one checkout, and with it
the CPU per move (each such move costs an XREAD round trip more and skips the echo pause), so a
B/A of ``paired_ab.py`` compares the code only where both sides' shares agree. Fit B/A against the
difference of the shares over several runs: the intercept is the code's (bench/README.md).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import command_cost  # noqa: E402
import http_bench  # noqa: E402
import redis  # noqa: E402

WARM_UP_GAMES = 2
# Student's t at 97.5% by degrees of freedom (a fit over a few runs has few).
T975 = {
    1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
    11: 2.20, 12: 2.18, 13: 2.16, 14: 2.14, 15: 2.13, 16: 2.12, 17: 2.11, 18: 2.10, 19: 2.09, 20: 2.09,
    25: 2.06, 30: 2.04,
}  # fmt: skip


@dataclass(frozen=True)
class Fit:
    """B/A = at_equal + per_share * (B's share - A's share), by least squares over runs."""

    at_equal: float
    at_equal_se: float
    per_share: float  # B/A per unit of share difference (per 0.01: a hundredth of it)
    per_share_se: float
    residual_sd: float
    runs: int

    def interval(self) -> tuple[float, float]:
        """The 95% interval of ``at_equal`` (Student's t with runs - 2 degrees of freedom)."""
        df = self.runs - 2
        t = T975.get(df) or T975[max(k for k in T975 if k <= df)]
        return self.at_equal - t * self.at_equal_se, self.at_equal + t * self.at_equal_se

    def __str__(self) -> str:
        low, high = self.interval()
        return (
            f"at equal shares B/A {self.at_equal:.3f} +- {self.at_equal_se:.3f} (standard error; 95% "
            f"{low:.3f}-{high:.3f}), per 0.01 of share B-A {self.per_share / 100:+.4f} "
            f"+- {self.per_share_se / 100:.4f}, residual sd {self.residual_sd:.3f}, {self.runs} runs"
        )


def fit_at_equal_shares(ratios: list[float], share_differences: list[float]) -> Fit:
    """The fit this script's runs are read by (bench/README.md): each run's B/A against the
    difference of its two sides' reader-first shares; the intercept is B/A at equal shares."""
    n = len(ratios)
    if n < 3:
        raise ValueError("a fit of two parameters needs three runs or more")
    slope, intercept = statistics.linear_regression(share_differences, ratios)
    mean_x = statistics.fmean(share_differences)
    sxx = sum((x - mean_x) ** 2 for x in share_differences)
    residuals = [y - intercept - slope * x for x, y in zip(share_differences, ratios, strict=True)]
    sd = math.sqrt(sum(r * r for r in residuals) / (n - 2))
    return Fit(
        at_equal=intercept,
        at_equal_se=sd * math.sqrt(1 / n + mean_x**2 / sxx),
        per_share=slope,
        per_share_se=sd / math.sqrt(sxx),
        residual_sd=sd,
        runs=n,
    )


class Side:
    """One checkout's server under command_cost's gunicorn wrapper (which counts deliveries)."""

    def __init__(self, label: str, root: Path):
        self.label, self.root = label, root
        self.out = Path(tempfile.mkdtemp(prefix="paired-race-")) / "deliveries.json"
        with command_cost.under_wrapper(root, self.out):
            self.server = http_bench.Server(web_workers=1, fsync="everysec").start()
        self.worker = http_bench.children_of(self.server.process.pid)[0]
        self.redis = redis.Redis.from_url(self.server.redis.url)
        self.web = self.redis_cpu = 0.0
        self.moves = 0

    def cpu(self) -> tuple[float, float]:
        return sum(http_bench.process_cpu_seconds(self.worker)), command_cost.redis_cpu(self.redis)

    def play(self, seed: int, counted: bool) -> None:
        tally = http_bench.Tally()
        lobby, seats = http_bench.Client(self.server.url), http_bench.Client(self.server.url)
        web, spent = self.cpu()
        try:
            if not http_bench.play_one_game_streamed(
                lobby, 4, random.Random(seed), tally, time.monotonic() + 120, True, seats
            ):
                raise RuntimeError(f"{self.label}: game {seed} did not finish in time")
        finally:
            lobby.close()
            seats.close()
        if counted:
            after_web, after_redis = self.cpu()
            self.web += after_web - web
            self.redis_cpu += after_redis - spent
            self.moves += tally.moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args(argv)
    sides: list[Side] = []
    try:
        for label, root in (("A", args.before), ("B", args.after)):
            sides.append(Side(label, root.resolve()))
        for i in range(WARM_UP_GAMES + args.games):
            if i == WARM_UP_GAMES:
                for side in sides:
                    side.redis.config_resetstat()
                    os.kill(side.worker, signal.SIGUSR2)  # the wrapper counts from here
            for side in sides if i % 2 == 0 else reversed(sides):
                side.play(args.seed + i, counted=i >= WARM_UP_GAMES)
        xreads = [
            int(s.redis.info("commandstats").get("cmdstat_xread", {"calls": 0})["calls"]) for s in sides
        ]
    finally:
        for side in sides:
            side.redis.close()
            side.server.stop()  # the wrapper writes its counts at the worker's exit
    for side, xread in zip(sides, xreads, strict=True):
        counts = command_cost.read_counts(side.out, [side.worker])
        first = counts["deliveries"].get("_run fresh", 0) / side.moves
        print(
            f"{side.label} ({side.root}): {side.moves} moves; per move: web worker "
            f"{side.web / side.moves * 1e6:.1f} us, Redis {side.redis_cpu / side.moves * 1e6:.1f} us, "
            f"reader first {first:.3f}, XREAD {xread / side.moves:.3f}"
        )
    a, b = sides
    print(
        f"B/A per move: web {(b.web / b.moves) / (a.web / a.moves):.3f}, "
        f"Redis {(b.redis_cpu / b.moves) / (a.redis_cpu / a.moves):.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
