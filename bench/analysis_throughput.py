"""Analysis throughput with one RQ worker and with two: does it grow with the workers?

    .venv/bin/python bench/analysis_throughput.py [--game condottiere] [--players 4] [--jobs 8]
        [--rounds 3] [--workers 2] [--iterations 10] [--rollout 10] [--seed 46]

On a private, throw-away redis-server: one game is played by heuristic bots and imported into the
archive ``--jobs`` times per run under new ids (so every job is the same work), and each copy's
analysis is requested (``AnalysisService.request``, the API's path). Then the project's analysis
workers drain the queue: ``python -m worker --burst --worker-class worker.idle.IdleAnalysisWorker
analysis`` as the Procfile starts them (idle scan off, so they take only the requests; not niced,
so the machine's other processes do not starve them more than the load does), one worker in one
run, ``--workers`` in the next, alternating for ``--rounds`` rounds so a shared machine's drifting
load hits both alike.

Per run: jobs per minute over the span from the first job's start to the last one's end (the job
records' own times; the workers' start-up is outside it) and the CPU seconds per job of the workers
and their work horses (``RUSAGE_CHILDREN``), also net of the workers' start-up (measured first:
burst workers on an empty queue). Then the throughput ratio (several
workers over one) per round, its mean and 95% t-interval over the rounds, the CPU-per-job ratio
(the work must not grow with the workers: near 1), and the load average beside each run. On a
machine whose cores other processes keep busy the ratio is below what the design gives; the CPU
ratio tells the two apart.

``--iterations``/``--rollout`` set the budget per decision (``ANALYSIS_ITERATIONS``,
``ANALYSIS_ROLLOUT``, as an operator would); the default is a small budget, so that a run takes
minutes on a loaded machine: the ratio depends on how the jobs share cores, not on their length,
as long as a job is much longer than a worker's per-job overhead (a fork and a few Redis calls).
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cli.simulate import play_game  # noqa: E402
from games import get_game  # noqa: E402
from games.base import fold  # noqa: E402
from service import composition  # noqa: E402
from service.analysis import AnalysisService  # noqa: E402
from service.ids import new_game_id  # noqa: E402
from store import GameStore, timestamps  # noqa: E402
from store.jobs import JobBook  # noqa: E402
from tests.random_play import import_played  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402

WORKER_CLASS = "worker.idle.IdleAnalysisWorker"
# Student's t at 97.5% for 1..9 degrees of freedom (the rounds are few).
T975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def start_worker(url: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "worker", "--burst", "--url", url, "--worker-class", WORKER_CLASS]
    command += ["--logging-level", "WARNING", "analysis"]
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def drain(url: str, env: dict[str, str], workers: int) -> float:
    """Run ``workers`` burst workers until the queue is empty; their CPU seconds (horses included)."""
    cpu_before = children_cpu()
    processes = [start_worker(url, env) for _ in range(workers)]
    for process in processes:
        _, err = process.communicate(timeout=6 * 3600)
        if process.returncode != 0:
            raise SystemExit(f"a worker failed: {err.decode()[-2000:]}")
    return children_cpu() - cpu_before


def run(
    client: redis.Redis,
    analysis: AnalysisService,
    played: tuple[Any, list[dict[str, Any]], Any, int],
    workers: int,
    jobs: int,
    url: str,
    env: dict[str, str],
    startup: float,
) -> dict[str, float]:
    """Import ``jobs`` copies of the played game, request their analyses, drain the queue with
    ``workers`` burst workers; the run's span, CPU and load."""
    game, events, state, seats = played
    now = timestamps.now()
    ids = []
    for _ in range(jobs):
        game_id = new_game_id()
        import_played(
            client, game, events, state, game_id=game_id, players=[f"P{s}" for s in range(seats)], now=now
        )
        ids.append(game_id)
    job_ids = [jid for jid in (analysis.request(game_id, None) for game_id in ids) if jid]
    assert len(job_ids) == jobs, "every copy needs a job (an analysis was already stored?)"
    load_before = os.getloadavg()[0]
    cpu = drain(url, env, workers)
    book = JobBook(client)
    records = [book.get(jid) for jid in job_ids]
    unfinished = [r for r in records if r is None or r.status != "finished"]
    if unfinished:
        raise SystemExit(f"{len(unfinished)} jobs did not finish")
    starts = [timestamps.to_ms(r.started) for r in records if r and r.started]
    ends = [timestamps.to_ms(r.finished) for r in records if r and r.finished]
    span = (max(ends) - min(starts)) / 1000
    return {
        "workers": workers,
        "span": span,
        "per_minute": jobs / span * 60,
        "cpu_per_job": cpu / jobs,
        "net_cpu_per_job": (cpu - workers * startup) / jobs,
        "load": (load_before + os.getloadavg()[0]) / 2,
    }


def mean_interval(values: list[float]) -> tuple[float, float, float]:
    mean = statistics.mean(values)
    if len(values) < 2:
        return mean, math.nan, math.nan
    half = T975.get(len(values) - 1, 1.96) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="condottiere")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=8, help="jobs per run")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of (1 worker, --workers workers)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=10, help="0: the game's default budget")
    parser.add_argument("--rollout", type=int, default=10, help="0: the game's default budget")
    parser.add_argument("--seed", type=int, default=46)
    args = parser.parse_args(argv)
    env = {"ANALYSIS_IDLE": "0"}
    if args.iterations:
        env["ANALYSIS_ITERATIONS"] = str(args.iterations)
    if args.rollout:
        env["ANALYSIS_ROLLOUT"] = str(args.rollout)
    game = get_game(args.game)
    record = play_game(
        args.game,
        {"players": args.players, "seed": args.seed},
        ["heuristic"] * args.players,
        args.seed,
        keep_events=True,
    )
    events = record.events or []
    played = (game, events, fold(game, events), args.players)
    print(
        f"{args.game}, {args.players} players, {record.moves} moves a game; budget "
        f"{args.iterations or 'default'} iterations, rollout {args.rollout or 'default'}; "
        f"{args.jobs} jobs a run, "
        f"{args.rounds} rounds of 1 and {args.workers} workers; {os.cpu_count()} cores",
        flush=True,
    )
    server = PrivateRedis()
    results: list[tuple[dict[str, float], dict[str, float]]] = []
    try:
        client = server.client()
        analysis = composition.analysis_service(GameStore(client))
        # A worker's start-up and exit on an empty queue (imports, connections): in every run's CPU
        # once per worker, and taken out of the CPU per job.
        startup = statistics.mean(drain(server.url, env, 1) for _ in range(3))
        print(f"a worker's start-up and exit: {startup:.2f} CPU s", flush=True)
        for index in range(args.rounds):
            order = (1, args.workers) if index % 2 == 0 else (args.workers, 1)  # ABBA: drift hits both
            pair: dict[int, dict[str, float]] = {}
            for workers in order:
                pair[workers] = out = run(
                    client, analysis, played, workers, args.jobs, server.url, env, startup
                )
                print(
                    f"round {index + 1}, {workers} worker(s): {out['per_minute']:.2f} jobs/min "
                    f"(span {out['span']:.1f} s), {out['cpu_per_job']:.2f} CPU s/job "
                    f"({out['net_cpu_per_job']:.2f} net of start-up), load {out['load']:.1f}",
                    flush=True,
                )
            results.append((pair[1], pair[args.workers]))
    finally:
        server.stop()
    ratios = [many["per_minute"] / one["per_minute"] for one, many in results]
    cpu_ratios = [many["net_cpu_per_job"] / one["net_cpu_per_job"] for one, many in results]
    mean, low, high = mean_interval(ratios)
    cpu_mean, cpu_low, cpu_high = mean_interval(cpu_ratios)
    loads = [run["load"] for pair in results for run in pair]
    print(
        f"throughput {args.workers} workers / 1: {mean:.2f} [{low:.2f}, {high:.2f}] (95% t-interval over "
        f"{len(ratios)} rounds: {', '.join(f'{r:.2f}' for r in ratios)}); "
        f"CPU per job (net of start-up) {args.workers} / 1: "
        f"{cpu_mean:.2f} [{cpu_low:.2f}, {cpu_high:.2f}]; load average {min(loads):.1f}-{max(loads):.1f} "
        f"on {os.cpu_count()} cores"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
