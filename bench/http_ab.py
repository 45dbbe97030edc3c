"""Interleaved runs of ``http_bench.py --mode stream`` on two checkouts: A, B, then B, A, ...

    .venv/bin/python bench/http_ab.py BEFORE_DIR AFTER_DIR [--pairs 5] [-- http_bench args]

Each run starts the checkout's own server (its code on PYTHONPATH, its ``gunicorn.conf.py`` under
``command_cost.py``'s wrapper) and prints its stream RATIO, stream CPU RATIO, web CPU per move cycle
and per health request, and its reader-first share: the share of the games phases' moves whose
events the live reader handed the streams before the move's own ``deliver_local`` (summed over the
web workers; bench/README.md). The end prints each figure's median and range per side, the median
and range of B/A over the pairs, and B/A fitted at equal shares (``paired_race.fit_at_equal_shares``:
each pair's B/A against B's share less A's). On a shared machine a single run's RATIO moves by a
tenth or more, and with the share: only the pairs' B/A compare, and best at equal shares.

The client side is this checkout's ``http_bench.py`` for both (the same client code on both sides);
a checkout's ``.venv`` is not used: this script's Python runs both. ``--one DIR [-- args]`` is one
counted run (what each run of a pair is, in a process of its own).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import command_cost  # noqa: E402
import http_bench  # noqa: E402
import paired_race  # noqa: E402

FIGURES = {
    "stream RATIO": r"\[stream\] RATIO move cycles/s / health req/s: ([0-9.]+)",
    "stream CPU RATIO": r"CPU RATIO \(health CPU / move cycle CPU.*?: ([0-9.]+)",
    "web ms per move cycle": r"\[stream\] client [0-9.]+ ms, web ([0-9.]+) ms",
    "web ms per health request": r"client [0-9.]+ ms, web ([0-9.]+) ms, web in kernel [0-9.]+ ms, "
    r"redis [0-9.]+ ms of CPU per health",
}
SHARE = r"reader first share: ([0-9.]+)"


def one(root: Path, extra: list[str]) -> int:
    """``http_bench.py --mode stream`` on ``root``'s server, its workers counting deliveries during
    the games phases only (SIGUSR2 around each); prints the reader-first share of those phases."""
    out = Path(tempfile.mkdtemp(prefix="http-ab-")) / "deliveries.json"
    games_phase = http_bench.games_phase
    moves, workers = 0, set()
    with command_cost.under_wrapper(root, out) as started:

        def counted(*args, **kwargs):
            nonlocal moves
            if "minimal" not in kwargs:  # the warm-up's phases (http_bench passes minimal= to its rounds')
                return games_phase(*args, **kwargs)
            running = started.workers()
            workers.update(running)
            for pid in running:
                os.kill(pid, signal.SIGUSR2)
            try:
                tally, elapsed = games_phase(*args, **kwargs)
            finally:
                for pid in running:
                    os.kill(pid, signal.SIGUSR2)
            moves += tally.moves
            return tally, elapsed

        http_bench.games_phase = counted
        try:
            code = http_bench.main(["--mode", "stream", *extra])
        finally:
            http_bench.games_phase = games_phase
    deliveries = command_cost.read_counts(out, sorted(workers))["deliveries"]
    first = deliveries.get("_run fresh", 0)
    print(
        f"reader first share: {first / max(moves, 1):.4f} ({first} of {moves} moves; the moves' own "
        f"deliver_local first: {deliveries.get('deliver_local fresh', 0)})",
        flush=True,
    )
    return code


def run(root: Path, extra: list[str]) -> dict[str, float]:
    command = [sys.executable, str(Path(__file__).resolve()), "--one", str(root), "--", *extra]
    out = subprocess.run(command, capture_output=True, text=True, timeout=1800).stdout
    found = {}
    for name, pattern in {**FIGURES, "reader first": SHARE}.items():
        values = [float(v) for v in re.findall(pattern, out)]
        if not values:
            raise RuntimeError(f"{root}: no {name} in the bench's output:\n{out[-2000:]}")
        found[name] = statistics.median(values)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog="after --: arguments for http_bench.py"
    )
    parser.add_argument("before", type=Path, nargs="?", help="checkout A")
    parser.add_argument("after", type=Path, nargs="?", help="checkout B")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--one", action="store_true", help="one counted run of checkout A alone")
    argv = sys.argv[1:] if argv is None else argv
    # What follows "--" is http_bench.py's, split off here (argparse would not give it to a list
    # after optional positionals).
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: len(argv) - len(extra) - ("--" in argv)])
    args.extra = extra
    if args.one and args.before is not None:
        return one(args.before.resolve(), args.extra)
    if args.before is None or args.after is None:
        parser.error("give two checkouts (or --one and one)")
    sides = {"A": args.before.resolve(), "B": args.after.resolve()}
    results: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
    loads: list[tuple[float, float]] = []
    for pair in range(args.pairs):
        started = time.monotonic()
        first_load = os.getloadavg()[0]
        for label in ("A", "B") if pair % 2 == 0 else ("B", "A"):
            load = os.getloadavg()[0]
            figures = run(sides[label], args.extra)
            results[label].append(figures)
            shown = ", ".join(f"{name} {value:.3f}" for name, value in figures.items())
            print(f"{time.strftime('%H:%M:%S')} {label}: {shown} (load {load:.1f})", flush=True)
        loads.append((first_load, os.getloadavg()[0]))
        a, b = results["A"][-1], results["B"][-1]
        print(
            f"pair {pair + 1}: stream RATIO A {a['stream RATIO']:.3f} B {b['stream RATIO']:.3f} "
            f"B/A {b['stream RATIO'] / a['stream RATIO']:.3f}; reader first A {a['reader first']:.4f} "
            f"B {b['reader first']:.4f}; load {first_load:.1f}-{loads[-1][1]:.1f}; "
            f"{time.monotonic() - started:.0f} s",
            flush=True,
        )
    differences = [b["reader first"] - a["reader first"] for a, b in zip(*results.values(), strict=True)]
    for name in (*FIGURES, "reader first"):
        a = [r[name] for r in results["A"]]
        b = [r[name] for r in results["B"]]
        line = (
            f"{name}: A median {statistics.median(a):.3f} ({min(a):.3f}-{max(a):.3f}), "
            f"B median {statistics.median(b):.3f} ({min(b):.3f}-{max(b):.3f})"
        )
        if name != "reader first":
            ratios = [y / x for x, y in zip(a, b, strict=True)]
            line += (
                f"; B/A per pair median {statistics.median(ratios):.3f} "
                f"({min(ratios):.3f}-{max(ratios):.3f}), {len(ratios)} pairs"
            )
            if len(ratios) >= 3 and len(set(differences)) > 1:
                line += f"\n  {paired_race.fit_at_equal_shares(ratios, differences)}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
