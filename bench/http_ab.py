"""Interleaved runs of ``http_bench.py --mode stream`` on two checkouts: A, B, then B, A, ...

    .venv/bin/python bench/http_ab.py BEFORE_DIR AFTER_DIR [--pairs 5] [-- http_bench args]

Each run starts the checkout's own server (its ``bench/http_bench.py``, its code on PYTHONPATH) and
prints its stream RATIO, stream CPU RATIO and web CPU per move cycle and per health request; the
end prints each figure's median and range per side and the median and range of B/A over the pairs.
On a shared machine a single run's RATIO moves by a tenth or more: only the pairs' B/A, whose two
runs follow each other, compare. A checkout's ``.venv`` is not used: this script's Python runs both.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

FIGURES = {
    "stream RATIO": r"\[stream\] RATIO move cycles/s / health req/s: ([0-9.]+)",
    "stream CPU RATIO": r"CPU RATIO \(health CPU / move cycle CPU.*?: ([0-9.]+)",
    "web ms per move cycle": r"\[stream\] client [0-9.]+ ms, web ([0-9.]+) ms",
    "web ms per health request": r"client [0-9.]+ ms, web ([0-9.]+) ms, web in kernel [0-9.]+ ms, "
    r"redis [0-9.]+ ms of CPU per health",
}


def run(root: Path, extra: list[str]) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(root))
    command = [sys.executable, str(root / "bench" / "http_bench.py"), "--mode", "stream", *extra]
    out = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=1800).stdout
    found = {}
    for name, pattern in FIGURES.items():
        values = [float(v) for v in re.findall(pattern, out)]
        if not values:
            raise RuntimeError(f"{root}: no {name} in the bench's output:\n{out[-2000:]}")
        found[name] = statistics.median(values)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="checkout A")
    parser.add_argument("after", type=Path, help="checkout B")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("extra", nargs="*", help="after --: arguments for http_bench.py")
    args = parser.parse_args(argv)
    sides = {"A": args.before.resolve(), "B": args.after.resolve()}
    results: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
    for pair in range(args.pairs):
        for label in ("A", "B") if pair % 2 == 0 else ("B", "A"):
            load = os.getloadavg()[0]
            figures = run(sides[label], args.extra)
            results[label].append(figures)
            shown = ", ".join(f"{name} {value:.3f}" for name, value in figures.items())
            print(f"{time.strftime('%H:%M:%S')} {label}: {shown} (load {load:.1f})", flush=True)
    for name in FIGURES:
        a = [r[name] for r in results["A"]]
        b = [r[name] for r in results["B"]]
        ratios = [y / x for x, y in zip(a, b, strict=True)]
        print(
            f"{name}: A median {statistics.median(a):.3f} ({min(a):.3f}-{max(a):.3f}), "
            f"B median {statistics.median(b):.3f} ({min(b):.3f}-{max(b):.3f}); "
            f"B/A per pair median {statistics.median(ratios):.3f} "
            f"({min(ratios):.3f}-{max(ratios):.3f}), {len(ratios)} pairs"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
