"""Win rate of the heuristic bot against three random bots (four-player games, seats rotated),
for the 2006 rules and the classic rules, with 95% Wilson confidence intervals.

    .venv/bin/python bench/bots_winrate.py [--games 500] [--seed 2026]
    .venv/bin/python bench/bots_winrate.py --game rio_de_la_plata --games 300

A random bot in a four-player game wins about 25% if all bots are equal; the heuristic bot's
figure measures how much better than chance it plays. Games run in-process (engine only).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cli.simulate import format_rates, simulate, win_rates  # noqa: E402

RULESETS = {
    "condottiere": {
        "2006, no options": {"ruleset": "2006"},
        "classic, no options": {"ruleset": "classic"},
    },
    "rio_de_la_plata": {"Rio de la Plata, provisional board": {}},
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--lineup", default="heuristic,random,random,random")
    parser.add_argument("--game", choices=sorted(RULESETS), default="condottiere")
    args = parser.parse_args(argv)
    lineup = args.lineup.split(",")
    timings = _time_heuristic_decisions(args.game)
    for title, config in RULESETS[args.game].items():
        started = time.perf_counter()
        records = simulate(args.game, config, lineup, args.games, seed=args.seed)
        elapsed = time.perf_counter() - started
        print(f"{title}: {', '.join(lineup)}; seats rotated; seed {args.seed}; {elapsed:.1f} s")
        print(format_rates(win_rates(records), records))
        print()
    if timings:
        timings.sort()
        print(
            f"heuristic bot: {len(timings)} decisions, median {timings[len(timings) // 2] * 1000:.2f} ms, "
            f"99th percentile {timings[int(len(timings) * 0.99)] * 1000:.2f} ms per decision"
        )
    return 0


def _time_heuristic_decisions(game: str) -> list[float]:
    """Wrap the heuristic bot so each decision's duration is recorded (what a bot worker spends
    per move, before the service call)."""
    from importlib import import_module

    module = import_module(f"games.{game}.bots")
    HEURISTIC, HeuristicBot = module.HEURISTIC, module.HeuristicBot  # noqa: N806

    timings: list[float] = []
    choose = HeuristicBot.choose

    def timed(view, rng):
        started = time.perf_counter()
        try:
            return choose(HEURISTIC, view, rng)
        finally:
            timings.append(time.perf_counter() - started)

    HEURISTIC.choose = timed
    return timings


if __name__ == "__main__":
    raise SystemExit(main())
