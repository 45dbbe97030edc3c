"""How long the analysis of a finished game takes on one core, and how many bytes it stores.

    .venv/bin/python bench/analysis_speed.py [--game condottiere|rio_de_la_plata] [--players 4]
        [--iterations 0] [--rollout 0] [--games 2] [--decisions 0] [--seed 46] [--playout guided]

Each game is played by heuristic bots, then analysed by ``replays.analysis.analyse`` (one search
per decision with a choice, two where a seat hides cards) at the game's default budget unless
``--iterations``/``--rollout`` say otherwise. ``--decisions N`` analyses N judged decisions spread
over each game (every k-th) and extrapolates the whole game's time from their mean (said so in
the output), for games too long to analyse whole on a shared machine.

Prints per game: decisions judged, wall seconds and CPU seconds (``time.process_time``: the
process' own time, much less sensitive to other processes than wall time on a loaded machine,
though not immune: caches are shared), seconds per decision (mean and standard deviation) and
the stored size; then the mean and spread over the games, and the load average before and after.
For a figure independent of load, count instructions of a fixed set of decisions with
``valgrind --tool=callgrind`` (see the docs).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.search import Budget  # noqa: E402
from cli.simulate import play_game  # noqa: E402
from games import get_game  # noqa: E402
from games.base import fold  # noqa: E402
from replays import analysis  # noqa: E402


def _stopwatch(times: list[float]) -> Callable[[float], None]:
    """A progress callback recording the time between calls (one call per decision)."""
    last = [time.perf_counter()]

    def progress(_: float) -> None:
        now = time.perf_counter()
        times.append(now - last[0])
        last[0] = now

    return progress


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="condottiere")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=0, help="0: the game's default budget")
    parser.add_argument("--rollout", type=int, default=0, help="0: the game's default budget")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--decisions", type=int, default=0, help="analyse only this many (0: all)")
    parser.add_argument("--seed", type=int, default=46)
    parser.add_argument(
        "--playout", default="", help="the search's playout policy (guided, uniform; default: the game's)"
    )
    args = parser.parse_args(argv)
    game = get_game(args.game)
    default = analysis.default_budget(game)
    budget = Budget(
        iterations=args.iterations or default.iterations,
        rollout_moves=args.rollout or default.rollout_moves,
        playout=args.playout or default.playout,
    )
    totals = []
    cpu_totals = []
    load_before = os.getloadavg()
    print(
        f"{args.game}, {args.players} players, {budget.iterations} iterations, "
        f"rollout {budget.rollout_moves}, {budget.playout} playouts; "
        f"load {load_before[0]:.1f} (1 min) on {os.cpu_count()} cores"
    )
    for index in range(args.games):
        seed = args.seed * 100 + index
        config = {"players": args.players, "seed": seed}
        record = play_game(args.game, config, ["heuristic"] * args.players, seed, keep_events=True)
        events = record.events or []
        choices = [
            version
            for version, seat, _ in game.decisions(events)  # type: ignore[attr-defined]
            if len(game.legal_moves(fold(game, events[:version]), seat)) > 1
        ]
        step = max(1, len(choices) // args.decisions) if args.decisions else 1
        chosen = set(choices[::step][: args.decisions]) if args.decisions else None
        times: list[float] = []
        progress = _stopwatch(times)

        started, cpu_started = time.perf_counter(), time.process_time()
        rows = analysis.analyse(game, events, budget, seed=seed, progress=progress, versions=chosen)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        per = seconds / max(1, len(rows))
        whole = per * len(choices)
        cpu_whole = cpu / max(1, len(rows)) * len(choices)
        data = analysis.encode(rows, args.players)
        spread = statistics.pstdev([t for t in times if t > 0.001]) if len(times) > 2 else 0.0
        note = "" if chosen is None else f" (extrapolated from {len(rows)} of {len(choices)})"
        print(
            f"game {index}: {len(choices)} decisions with a choice, {record.moves} moves; "
            f"{seconds:.1f} s for {len(rows)}: {per:.2f} s/decision (sd {spread:.2f}); "
            f"whole game {whole:.0f} s wall, {cpu_whole:.0f} s CPU{note}; stored {len(data)} bytes "
            f"({len(data) / max(1, len(rows)):.1f} bytes/decision)",
            flush=True,
        )
        totals.append(whole)
        cpu_totals.append(cpu_whole)
    if totals:
        mean, cpu_mean = statistics.mean(totals), statistics.mean(cpu_totals)
        sd = statistics.pstdev(totals) if len(totals) > 1 else 0.0
        cpu_sd = statistics.pstdev(cpu_totals) if len(cpu_totals) > 1 else 0.0
        print(
            f"whole-game analysis: wall mean {mean:.0f} s (sd {sd:.0f}), CPU mean {cpu_mean:.0f} s "
            f"(sd {cpu_sd:.0f}) over {len(totals)} games (one core); load {load_before[0]:.1f} before, "
            f"{os.getloadavg()[0]:.1f} after"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
