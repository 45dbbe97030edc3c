"""Strength of the expert bot: one expert against heuristic bots (seats rotated), per game, ruleset
and player count, with 95% Wilson intervals on the expert's win rate and the time it spent per
decision (median and 95th percentile of CPU time, one process per core: the machine's load does
not inflate it as it does wall time).

    .venv/bin/python bench/expert_strength.py [--games 40] [--iterations 300] [--seconds 1.0]
        [--rollout 40] [--players 3,4,5] [--only condottiere-2006,condottiere-classic,rio]
        [--rio-games 12] [--rio-iterations 40] [--processes 2] [--seed 4600]
        [--playout guided,uniform] [--exploration 0.7]

``--playout`` (and ``--exploration``) take a comma-separated list: every variant plays the same
games (same seeds, same seats), so their rows are paired; the last column counts the games the
variant won and the first variant lost, and the reverse (a sign test's inputs).

A win is a game the expert's seat is among the winners of (a shared win counts, as it does for
every seat; shared wins are rare and printed). The fair share of one seat among n equal bots is 1/n.
Games are played in-process (engine only), two processes at a time by default; each game's seed
and every bot's random generator derive from ``--seed`` and the game's index, so a run repeats
(except for the wall time budget, ``--seconds``, which only ever cuts a search shorter: ``--seconds
0`` searches on the iteration budget alone, so the machine's load does not change the result).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import Future, ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bots  # noqa: E402
from bots.search import EXPLORATION, Budget  # noqa: E402
from cli.simulate import play_game, rotated, wilson_interval  # noqa: E402

SETUPS = {
    "condottiere-2006": ("condottiere", {"ruleset": "2006"}),
    "condottiere-classic": ("condottiere", {"ruleset": "classic"}),
    "rio": ("rio_de_la_plata", {}),
}


def _one_game(task: tuple[str, dict[str, Any], int, int, int, Budget]) -> dict[str, Any]:
    game_name, config, players, index, seed, budget = task
    expert = bots.get_bot(game_name, "expert")
    expert.budget = budget  # type: ignore[attr-defined]
    timings: list[float] = []
    choose_in = expert.choose_in  # type: ignore[attr-defined]

    def timed(state: Any, seat: int, rng: Any) -> Any:
        started = time.process_time()
        move = choose_in(state, seat, rng)
        timings.append(time.process_time() - started)
        return move

    expert.choose_in = timed  # type: ignore[attr-defined]
    levels = rotated(["expert"] + ["heuristic"] * (players - 1), index)
    game_seed = seed * 1000 + index
    record = play_game(
        game_name, {**config, "players": players, "seed": game_seed}, levels, game_seed, index=index
    )
    seat = levels.index("expert")
    return {
        "won": seat in record.winners,
        "shared": seat in record.winners and len(record.winners) > 1,
        "timings": timings,
        "moves": record.moves,
    }


def _progress(key: str, players: int, index: int, budget: Budget, future: Future[dict[str, Any]]) -> None:
    result = future.result()
    timings = sorted(result["timings"])
    cpu = sum(timings)
    # Each game's own decision times, so a run cut short still tells the cost per decision.
    median = statistics.median(timings) * 1000 if timings else 0.0
    top = timings[-1] * 1000 if timings else 0.0
    print(
        f"game {key} {players}p #{index} {budget.playout} c={budget.exploration} it={budget.iterations}: "
        f"{'won' if result['won'] else 'lost'}, {len(timings)} decisions, {cpu:.0f} CPU s "
        f"(median {median:.0f} ms, max {top:.0f} ms a decision)",
        file=sys.stderr,
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per Condottiere row")
    parser.add_argument("--rio-games", type=int, default=12, help="games per Rio de la Plata row")
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--rio-iterations", type=int, default=40)
    parser.add_argument(
        "--seconds", type=float, default=1.0, help="wall time cap per decision (0: none, iterations only)"
    )
    parser.add_argument("--rollout", type=int, default=40, help="random moves per playout")
    parser.add_argument("--players", default="3,4,5")
    parser.add_argument("--only", default=",".join(SETUPS))
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=4600)
    parser.add_argument("--playout", default="guided", help="playout policies to compare (paired)")
    parser.add_argument("--exploration", default=str(EXPLORATION), help="UCB constants to compare")
    args = parser.parse_args(argv)
    variants = [
        (playout, float(c)) for playout in args.playout.split(",") for c in args.exploration.split(",")
    ]
    rows = []
    for key in args.only.split(","):
        game_name, config = SETUPS[key]
        for players in (int(p) for p in args.players.split(",")):
            rio = game_name == "rio_de_la_plata"
            budgets = [
                Budget(
                    iterations=args.rio_iterations if rio else args.iterations,
                    seconds=args.seconds or None,
                    rollout_moves=args.rollout,
                    playout=playout,
                    exploration=c,
                )
                for playout, c in variants
            ]
            games = args.rio_games if rio else args.games
            rows.append((key, game_name, config, players, games, budgets))
    print(
        f"expert vs heuristic; seats rotated; seed {args.seed}; {args.processes} processes; "
        f"cap {args.seconds or 'none'} s/decision; rollout {args.rollout} moves; "
        f"load {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{'setup':<22}{'n':>3}{'playout':>8}{'c':>5}{'games':>6}{'iters':>6}{'wins':>6}{'rate':>7}  "
        f"{'95% CI':<16}{'fair':>6}{'shared':>7}{'CPU ms/dec med':>15}{'p95':>7}{'wall s':>8}{'+/- 1st':>9}"
    )
    with ProcessPoolExecutor(max_workers=args.processes) as pool:
        for key, game_name, config, players, games, budgets in rows:
            # Every variant's games go to the pool at once, so a slow variant does not wait alone.
            started = time.perf_counter()
            # Submitted game by game, every variant of a game together: a run cut short still holds
            # paired results (each printed to stderr as it ends).
            futures: list[list[Future[dict[str, Any]]]] = [[] for _ in budgets]
            for i in range(games):
                for batch, budget in zip(futures, budgets, strict=True):
                    future = pool.submit(_one_game, (game_name, config, players, i, args.seed, budget))
                    future.add_done_callback(partial(_progress, key, players, i, budget))
                    batch.append(future)
            first: list[bool] = []
            for budget, batch in zip(budgets, futures, strict=True):
                results = [f.result() for f in batch]
                wall = time.perf_counter() - started
                won = [r["won"] for r in results]
                first = first or won
                better = sum(w and not f for w, f in zip(won, first, strict=True))
                worse = sum(f and not w for w, f in zip(won, first, strict=True))
                wins = sum(won)
                shared = sum(r["shared"] for r in results)
                low, high = wilson_interval(wins, games)
                timings = sorted(t for r in results for t in r["timings"])
                median = statistics.median(timings) * 1000 if timings else 0.0
                p95 = timings[int(len(timings) * 0.95)] * 1000 if timings else 0.0
                print(
                    f"{key:<22}{players:>3}{budget.playout:>8}{budget.exploration:>5}{games:>6}"
                    f"{budget.iterations:>6}{wins:>6}{wins / games:>7.1%}  "
                    f"{f'[{low:.1%}, {high:.1%}]':<16}{1 / players:>6.0%}{shared:>7}"
                    f"{median:>15.0f}{p95:>7.0f}"
                    f"{wall:>8.0f}{f'+{better}/-{worse}':>9}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
