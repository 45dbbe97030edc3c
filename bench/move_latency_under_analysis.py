"""Move latency with and without computer analysis at full tilt: do analysis jobs delay moves?

    .venv/bin/python bench/move_latency_under_analysis.py [--workers 2] [--phases 6] [--seconds 15]

On a private, throw-away redis-server: plays ``--seed-games`` random 2-player Condottiere games to
their end, so the archive holds work, then starts ``--workers`` analysis worker processes exactly as
the Procfile does (``nice -n 10 python -m worker --worker-class worker.idle.IdleAnalysisWorker
analysis``, the default search budget): with an empty queue they analyse the archive at idle, each
keeping a core busy for minutes per game. Moves are then played through the game service (the
command path a move POST takes: engine, one Lua append, follow-ups) in alternating phases of
``--seconds`` each: workers paused (SIGSTOP to each worker and its work horse) and running
(SIGCONT), ``--phases`` in all, so the drift of a shared machine's load hits both alike. Prints the
median, 95th percentile and mean move latency of each condition with bootstrap 95% intervals, the
ratios on/off, and the machine's load. ``--no-nice`` runs the workers at normal priority, to see
what ``nice`` buys.

It measures the service path of a move, not HTTP: what competes with analysis for a CPU is the
engine and the web process's Python, which this path is; the play edge adds the same work in both
conditions.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service import composition  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402
from tests.worker_processes import children  # noqa: E402


def play_game(svc, rng: random.Random, timings: list[float] | None, stop_at: float | None = None) -> None:
    """One random 2-player game to its end (or to ``stop_at``), each move's latency appended."""
    game_id = svc.create_game("condottiere", {"players": 2})["id"]
    tokens = [svc.claim_seat(game_id, name=f"P{s}").token for s in range(2)]
    while stop_at is None or time.monotonic() < stop_at:
        views = [svc.get_view(game_id, token) for token in tokens]
        if views[0].status == "finished":
            return
        seat = next(s for s, v in enumerate(views) if v.view["legal_moves"])
        move = rng.choice(views[seat].view["legal_moves"])
        started = time.perf_counter()
        svc.submit_command(game_id, tokens[seat], move)
        if timings is not None:
            timings.append((time.perf_counter() - started) * 1000)


def start_worker(url: str, nice: bool) -> subprocess.Popen:
    command = [sys.executable, "-m", "worker", "--url", url]
    command += ["--worker-class", "worker.idle.IdleAnalysisWorker", "--logging-level", "WARNING", "analysis"]
    if nice:
        command = ["nice", "-n", "10", *command]
    env = dict(os.environ, PYTHONPATH=str(ROOT), ANALYSIS_IDLE="1")
    env.pop("ANALYSIS_ITERATIONS", None)
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def family(process: subprocess.Popen) -> list[int]:
    """The worker and its descendants (``nice`` execs the worker; the horse is the worker's child)."""
    found, todo = [], [process.pid]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            todo += children(pid)
        except OSError:
            pass
    return found


def signal_all(workers: list[subprocess.Popen], sig: int) -> None:
    for worker in workers:
        for pid in family(worker):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass


def cpu_seconds(workers: list[subprocess.Popen]) -> float:
    """User + system CPU of the workers and their live descendants so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for worker in workers:
        for pid in family(worker):
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def bootstrap(values: list[float], stat, rounds: int = 400, seed: int = 1) -> tuple[float, float]:
    rng = random.Random(seed)
    found = sorted(stat([rng.choice(values) for _ in values]) for _ in range(rounds))
    return found[int(0.025 * rounds)], found[int(0.975 * rounds) - 1]


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def ratio_interval(on: list[float], off: list[float], stat, rounds: int = 400) -> tuple[float, float]:
    rng = random.Random(2)
    found = sorted(
        stat([rng.choice(on) for _ in on]) / stat([rng.choice(off) for _ in off]) for _ in range(rounds)
    )
    return found[int(0.025 * rounds)], found[int(0.975 * rounds) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--phases", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--seed-games", type=int, default=10)
    parser.add_argument("--no-nice", action="store_true")
    args = parser.parse_args()
    server = PrivateRedis()
    workers: list[subprocess.Popen] = []
    try:
        svc = composition.game_service_at(server.url)
        rng = random.Random(7)
        for _ in range(args.seed_games):
            play_game(svc, rng, None)
        play_game(svc, rng, None)  # warm: scripts loaded, caches filled
        workers = [start_worker(server.url, not args.no_nice) for _ in range(args.workers)]
        time.sleep(5)  # started, the idle scan made, a horse busy on each
        signal_all(workers, signal.SIGSTOP)
        timings: dict[str, list[float]] = {"off": [], "on": []}
        worker_cpu: dict[str, float] = {"off": 0.0, "on": 0.0}
        loads: dict[str, list[float]] = {"off": [], "on": []}
        for phase in range(args.phases):
            condition = "on" if phase % 2 else "off"
            if condition == "on":
                signal_all(workers, signal.SIGCONT)
                time.sleep(1)  # the horses back at full speed before measuring
            cpu_before = cpu_seconds(workers)
            stop_at = time.monotonic() + args.seconds
            while time.monotonic() < stop_at:
                play_game(svc, rng, timings[condition], stop_at)
            worker_cpu[condition] += cpu_seconds(workers) - cpu_before
            loads[condition].append(os.getloadavg()[0])
            if condition == "on":
                signal_all(workers, signal.SIGSTOP)
        total_seconds = args.seconds * (args.phases // 2)
        print(
            f"analysis workers: {args.workers} ({'not ' if args.no_nice else ''}niced), "
            f"phases of {args.seconds:.0f} s, {args.phases} in all"
        )
        for condition in ("off", "on"):
            values = timings[condition]
            med, p, mean = statistics.median(values), p95(values), statistics.fmean(values)
            lo_m, hi_m = bootstrap(values, statistics.median)
            lo_p, hi_p = bootstrap(values, p95)
            print(
                f"analysis {condition:>3}: {len(values):6d} moves  "
                f"median {med:6.2f} ms [{lo_m:.2f}, {hi_m:.2f}]  "
                f"p95 {p:6.2f} ms [{lo_p:.2f}, {hi_p:.2f}]  mean {mean:6.2f} ms  "
                f"workers' CPU {worker_cpu[condition] / total_seconds:.2f} cores  "
                f"load1 {statistics.fmean(loads[condition]):.1f}"
            )
        on, off = timings["on"], timings["off"]
        for name, stat in (("median", statistics.median), ("p95", p95)):
            lo, hi = ratio_interval(on, off, stat)
            print(f"ratio on/off, {name}: {stat(on) / stat(off):.2f} [{lo:.2f}, {hi:.2f}]")
        print(f"moves per second: off {len(off) / total_seconds:.0f}, on {len(on) / total_seconds:.0f}")
    finally:
        signal_all(workers, signal.SIGCONT)
        for worker in workers:
            pids = family(worker)  # before the kill: the horse is in a process group of its own
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            worker.wait(timeout=10)
        server.stop()


if __name__ == "__main__":
    main()
