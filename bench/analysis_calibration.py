"""Calibration of the analysis' win chances: over finished bot games, the decider's chance to win
before each judged decision (``replays.analysis``, the ``before`` figure, from its information set)
against whether it won, beside the rating predictor's chance for the same seat and 1/N.

    .venv/bin/python bench/analysis_calibration.py [--game condottiere] [--games 20] [--players 4]
        [--stride 1] [--warmup 200] [--iterations 0] [--rollout 0] [--processes 2] [--seed 4610]

Seats are drawn per game from the ``heuristic`` and ``random`` levels (seeded), so that the rating
predictor has something to tell apart. ``--warmup`` cheap games (no analysis) are rated first, so
its ratings have settled; then each analysed game is predicted from the ratings before it
(``replays.ratings.predict_win`` over one rater per level, as the archive rates bot seats) and
rated after it. ``--stride k`` judges every k-th decision with a choice only (the cost is the
analysis'; the budget is the game's default unless ``--iterations``/``--rollout`` say otherwise).

Prints N (games, decisions), the Brier score of each predictor (mean squared difference between
the chance and the outcome, 1 for a won game, 1/k of a win shared by k, else 0; lower is better)
with a 95% interval (games resampled, 1000 bootstrap draws: decisions of one game are not
independent), the analysis' score less each other predictor's with a 95% interval from the same
resampling applied to both (paired: below zero, the analysis is the better), and a reliability
table (chances in tenths: decisions, mean chance, share won).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.search import Budget  # noqa: E402
from cli.simulate import play_game  # noqa: E402
from games import get_game  # noqa: E402
from games.base import fold  # noqa: E402
from replays import analysis  # noqa: E402
from replays import ratings as model  # noqa: E402

LEVELS = ("heuristic", "random")


def _levels(seed: int, index: int, players: int) -> list[str]:
    rng = random.Random(f"calibration/{seed}/{index}")
    return [rng.choice(LEVELS) for _ in range(players)]


def _analysed(task: tuple[str, int, int, int, int, Budget | None]) -> dict[str, Any]:
    """One analysed game: per judged decision (seat, chance before), and the winners."""
    game_name, players, seed, index, stride, budget = task
    game = get_game(game_name)
    levels = _levels(seed, index, players)
    game_seed = seed * 1000 + index
    record = play_game(
        game_name, {"players": players, "seed": game_seed}, levels, game_seed, keep_events=True
    )
    events = record.events or []
    # One fold along the log (a fold from the start per decision costs a Rio game of random seats,
    # thousands of decisions long, more than its analysis).
    choices = []
    state, folded = None, 0
    for version, seat, _ in game.decisions(events):  # type: ignore[attr-defined]
        state, folded = fold(game, events[folded:version], state), version
        if len(game.legal_moves(state, seat)) > 1:
            choices.append(version)
    rows = analysis.analyse(game, events, budget, seed=game_seed, versions=set(choices[::stride]))
    return {
        "index": index,
        "levels": levels,
        "winners": list(record.winners),
        "rows": [(row.seat, row.before / analysis.SCALE) for row in rows],
    }


def _outcome(seat: int, winners: Sequence[int]) -> float:
    return 1.0 / len(winners) if seat in winners else 0.0


def _brier(games: list[list[tuple[float, float]]]) -> float:
    pairs = [pair for game in games for pair in game]
    return sum((chance - won) ** 2 for chance, won in pairs) / max(1, len(pairs))


def _interval(games: list[list[tuple[float, float]]], draws: int = 1000) -> tuple[float, float]:
    rng = random.Random(0)
    values = sorted(_brier([games[rng.randrange(len(games))] for _ in games]) for _ in range(draws))
    return values[int(0.025 * draws)], values[int(0.975 * draws) - 1]


def _paired(
    ours: list[list[tuple[float, float]]], theirs: list[list[tuple[float, float]]], draws: int = 1000
) -> tuple[float, float, float]:
    """The Brier score of ``ours`` less that of ``theirs`` over the same decisions, with a 95%
    interval from resampling games (both predictors judged on each drawn game, so the game's own
    difficulty cancels out, which two separate intervals leave in)."""

    def difference(indices: list[int]) -> float:
        pairs = [(a, b) for i in indices for a, b in zip(ours[i], theirs[i], strict=True)]
        return sum((a[0] - a[1]) ** 2 - (b[0] - b[1]) ** 2 for a, b in pairs) / max(1, len(pairs))

    rng = random.Random(0)
    games = range(len(ours))
    values = sorted(difference([rng.randrange(len(ours)) for _ in games]) for _ in range(draws))
    return difference(list(games)), values[int(0.025 * draws)], values[int(0.975 * draws) - 1]


def _table(pairs: list[tuple[float, float]]) -> list[str]:
    bins: list[list[tuple[float, float]]] = [[] for _ in range(10)]
    for chance, won in pairs:
        bins[min(9, int(chance * 10))].append((chance, won))
    lines = []
    for i, cell in enumerate(bins):
        if cell:
            mean = statistics.mean(c for c, _ in cell)
            share = statistics.mean(w for _, w in cell)
            lines.append(f"  {i / 10:.1f}-{(i + 1) / 10:.1f}  {len(cell):>6}  {mean:>6.3f}  {share:>6.3f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="condottiere")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--stride", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--iterations", type=int, default=0, help="0: the game's default budget")
    parser.add_argument("--rollout", type=int, default=0)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=4610)
    args = parser.parse_args(argv)
    game = get_game(args.game)
    budget = analysis.default_budget(game)
    if args.iterations or args.rollout:
        budget = Budget(
            iterations=args.iterations or budget.iterations,
            rollout_moves=args.rollout or budget.rollout_moves,
        )
    ratings: dict[str, model.Rating] = {}

    def rate(levels: list[str], winners: list[int]) -> None:
        raters = [model.bot_rater(level) for level in levels]
        if winners:
            ratings.update(model.rate(raters, ratings, winners))

    for index in range(args.warmup):
        levels = _levels(args.seed + 1, index, args.players)
        seed = (args.seed + 1) * 1000 + index
        rate(
            levels, list(play_game(args.game, {"players": args.players, "seed": seed}, levels, seed).winners)
        )
    tasks = [(args.game, args.players, args.seed, i, args.stride, budget) for i in range(args.games)]
    with ProcessPoolExecutor(max_workers=args.processes) as pool:
        results = sorted(pool.map(_analysed, tasks), key=lambda r: r["index"])
    searched: list[list[tuple[float, float]]] = []
    rated: list[list[tuple[float, float]]] = []
    fair: list[list[tuple[float, float]]] = []
    for result in results:
        levels, winners = result["levels"], result["winners"]
        chances = model.predict_win(
            [ratings.get(model.bot_rater(level)) or model.Rating() for level in levels]
        )
        searched.append([(before, _outcome(seat, winners)) for seat, before in result["rows"]])
        rated.append([(chances[seat], _outcome(seat, winners)) for seat, _ in result["rows"]])
        fair.append([(1.0 / args.players, _outcome(seat, winners)) for seat, _ in result["rows"]])
        rate(levels, winners)
    decisions = sum(len(g) for g in searched)
    print(
        f"{args.game}, {args.players} players (levels drawn from {', '.join(LEVELS)}); N = {len(results)} "
        f"games, {decisions} judged decisions (every {args.stride}); budget {budget.iterations} "
        f"iterations, rollout {budget.rollout_moves}; {args.warmup} warm-up games rated first; "
        f"load {os.getloadavg()[0]:.1f}"
    )
    print(f"{'predictor':<12}{'Brier':>8}  95% CI (games resampled)")
    for name, games in (("analysis", searched), ("rating", rated), ("1/N", fair)):
        low, high = _interval(games) if games else (0.0, 0.0)
        print(f"{name:<12}{_brier(games):>8.4f}  [{low:.4f}, {high:.4f}]")
    for name, games in (("rating", rated), ("1/N", fair)):
        if searched:
            difference, low, high = _paired(searched, games)
            print(f"analysis - {name:<8}{difference:>+8.4f}  [{low:+.4f}, {high:+.4f}] (paired by game)")
    for name, games in (("analysis", searched), ("rating", rated)):
        print(f"reliability of {name}: chance bin, decisions, mean chance, share won")
        print("\n".join(_table([pair for game in games for pair in game])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
