"""Where one checkout's CPU per move goes: Redis per command type, the web worker per function.

    .venv/bin/python bench/command_cost.py CHECKOUT --games 16 --out a.json [--profile]
    .venv/bin/python bench/command_cost.py --compare a.json b.json

Starts the checkout's server as ``paired_ab.py`` does (one gunicorn worker on an embedded Redis),
plays 2 warm-up games, then resets Redis's stats (``CONFIG RESETSTAT``) and plays ``--games``
seeded games. It keeps ``INFO commandstats`` (calls and usec per command type), the Redis and web
worker CPU, Redis's bytes in and out and reads processed, per move. With ``--profile`` the worker
runs cProfile with a CPU clock (``time.process_time``: wall-clock tottimes of socket calls are
the load, not the code) over the counted games only (switched on and off by SIGUSR2), and keeps
each function's calls and tottime; the CPU clock multiplies the worker's CPU about five times, so
compare tottimes only between two profiled runs.

Why: ``paired_ab.py``'s B/A moves by 10-20% between runs on the shared machine; the command
counts, their usec and the bytes per move say what the code does per move, whatever the load.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import http_bench  # noqa: E402
import redis  # noqa: E402

WARM_UP_GAMES = 2

_WRAPPER = """
import cProfile, gc, json, os, re, signal, sys, time, types
exec(compile(open({conf!r}).read(), {conf!r}, "exec"))

_profile = cProfile.Profile(time.process_time)
_on = [False]
_deliveries = {{}}


def _toggle(signum, frame):
    if _on[0] and {profile!r}:
        _profile.disable()
    elif {profile!r}:
        _profile.enable()
    _on[0] = not _on[0]


def post_worker_init(worker):
    import service.live

    deliver = service.live.LiveHub._deliver

    def counted(self, game_id, entries):  # who delivered a move's events first: the move or the reader
        fresh = deliver(self, game_id, entries)
        if _on[0]:
            key = sys._getframe(1).f_code.co_name + (" fresh" if fresh else " stale")
            _deliveries[key] = _deliveries.get(key, 0) + 1
        return fresh

    service.live.LiveHub._deliver = counted
    signal.signal(signal.SIGUSR2, _toggle)


def worker_exit(server, worker):
    _profile.disable()
    functions = {{}}
    for o in gc.get_objects():
        if isinstance(o, types.FunctionType):
            functions.setdefault(o.__code__, o)

    def label(code):
        if isinstance(code, str):
            return re.sub(r" at 0x[0-9a-f]+", "", code)
        f = functions.get(code)
        if f is not None:
            return f"{{f.__module__}}:{{f.__qualname__}}"
        return f"{{code.co_filename}}:{{code.co_qualname}}"

    found = {{}}
    for entry in _profile.getstats():
        name = label(entry.code)
        calls, tottime = found.get(name, (0, 0.0))
        found[name] = (calls + entry.callcount, tottime + entry.inlinetime)
    with open({out!r} + "." + str(os.getpid()), "w") as f:  # one file a worker
        json.dump({{"functions": found, "deliveries": _deliveries}}, f)
"""


class Started(list):
    """The gunicorn processes started under the wrapper (``http_bench.Server``'s arbiter)."""

    def workers(self) -> list[int]:
        return [pid for process in self for pid in http_bench.children_of(process.pid)]


@contextlib.contextmanager
def under_wrapper(root: Path, out: Path, profile: bool = False) -> Iterator[Started]:
    """While inside, ``http_bench`` starts ``root``'s gunicorn (its code on PYTHONPATH) with
    ``_WRAPPER`` as its configuration: each worker counts deliveries (and profiles with ``profile``)
    while toggled on by SIGUSR2, and writes them at its exit to ``out``.PID (``read_counts``)."""
    conf = out.parent / "gunicorn.conf.py"
    conf.write_text(_WRAPPER.format(conf=str(root / "gunicorn.conf.py"), out=str(out), profile=profile))
    popen, started = subprocess.Popen, Started()

    def with_wrapper(args, **kwargs):
        if str(root / "gunicorn.conf.py") not in args:  # not gunicorn (py-spy, say)
            return popen(args, **kwargs)
        args = [str(conf) if a == str(root / "gunicorn.conf.py") else a for a in args]
        kwargs["env"] = {**kwargs["env"], "PYTHONPATH": str(root)}
        process = popen(args, **kwargs)
        started.append(process)
        return process

    class Subprocess:  # http_bench's view of subprocess: gunicorn on root's code, under the wrapper
        def __getattr__(self, name: str):
            return with_wrapper if name == "Popen" else getattr(subprocess, name)

    root_before = http_bench.ROOT
    http_bench.ROOT = root
    http_bench.subprocess = Subprocess()  # type: ignore[assignment]
    try:
        yield started
    finally:
        http_bench.subprocess = subprocess
        http_bench.ROOT = root_before


def read_counts(out: Path, workers: list[int], timeout: float = 30) -> dict:
    """The counts the wrapper's ``workers`` wrote at their exit, summed over the workers."""
    files = [out.parent / f"{out.name}.{pid}" for pid in workers]
    deadline = time.monotonic() + timeout
    while not all(f.exists() for f in files) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)  # written by then
    total: dict = {"functions": {}, "deliveries": {}}
    for f in files:
        kept = json.loads(f.read_text())
        for name, (calls, tottime) in kept["functions"].items():
            before = total["functions"].get(name, (0, 0.0))
            total["functions"][name] = (before[0] + calls, before[1] + tottime)
        for key, n in kept["deliveries"].items():
            total["deliveries"][key] = total["deliveries"].get(key, 0) + n
    return total


def redis_cpu(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def measure(root: Path, games: int, seed: int, profile: bool) -> dict:
    out = Path(tempfile.mkdtemp(prefix="command-cost-")) / "profile.json"
    with under_wrapper(root, out, profile):
        server = http_bench.Server(web_workers=1, fsync="everysec").start()
    worker = http_bench.children_of(server.process.pid)[0]
    client = redis.Redis.from_url(server.redis.url)

    def play(i: int) -> int:
        tally = http_bench.Tally()
        lobby, seats = http_bench.Client(server.url), http_bench.Client(server.url)
        try:
            if not http_bench.play_one_game_streamed(
                lobby, 4, random.Random(seed + i), tally, time.monotonic() + 120, True, seats
            ):
                raise RuntimeError(f"game {seed + i} did not finish in time")
        finally:
            lobby.close()
            seats.close()
        return tally.moves

    try:
        for i in range(WARM_UP_GAMES):
            play(i)
        client.config_resetstat()
        os.kill(worker, signal.SIGUSR2)
        web, redis_before = sum(http_bench.process_cpu_seconds(worker)), redis_cpu(client)
        moves = sum(play(i) for i in range(WARM_UP_GAMES, WARM_UP_GAMES + games))
        web = sum(http_bench.process_cpu_seconds(worker)) - web
        spent = redis_cpu(client) - redis_before
        os.kill(worker, signal.SIGUSR2)
        commands = {
            name.removeprefix("cmdstat_"): (int(v["calls"]), int(v["usec"]))
            for name, v in client.info("commandstats").items()
        }
        stats = client.info("stats")
    finally:
        client.close()
        server.stop()
    kept = read_counts(out, [worker])
    functions = {name.replace(str(root) + "/", ""): v for name, v in kept["functions"].items()}
    return {
        "checkout": str(root),
        "moves": moves,
        "web_us": web / moves * 1e6,
        "redis_us": spent / moves * 1e6,
        "commands": commands,
        "bytes_in": stats["total_net_input_bytes"] / moves,
        "bytes_out": stats["total_net_output_bytes"] / moves,
        "reads": stats.get("total_reads_processed", 0) / moves,
        "functions": functions,
        # "_run fresh": the live reader handed the streams a move's events before the move's own
        # deliver_local did (it then finds them stale): no echo pause, one more XREAD soon after.
        "deliveries": {key: n / moves for key, n in kept["deliveries"].items()},
    }


def compare(a: dict, b: dict, top: int) -> None:
    ma, mb = a["moves"], b["moves"]
    print(f"A {a['checkout']}, B {b['checkout']}: {ma} and {mb} moves")
    for key in ("web_us", "redis_us", "bytes_in", "bytes_out", "reads"):
        print(f"  {key} per move: A {a[key]:.2f}, B {b[key]:.2f}")
    for key in sorted(set(a["deliveries"]) | set(b["deliveries"])):
        da, db = a["deliveries"].get(key, 0), b["deliveries"].get(key, 0)
        print(f"  deliveries per move, {key}: A {da:.3f}, B {db:.3f}")
    rows = []
    for name in set(a["commands"]) | set(b["commands"]):
        (ca, ua), (cb, ub) = a["commands"].get(name, (0, 0)), b["commands"].get(name, (0, 0))
        rows.append((ub / mb - ua / ma, name, ca / ma, cb / mb, ua / ma, ub / mb))
    rows.sort(reverse=True)
    print(f"  {'command':16} {'calls A':>8} {'calls B':>8} {'us A':>8} {'us B':>8} {'B-A us':>8}  (per move)")
    for d, name, ca, cb, ua, ub in rows:
        print(f"  {name:16} {ca:8.3f} {cb:8.3f} {ua:8.2f} {ub:8.2f} {d:+8.2f}")
    total = [sum(r[i] for r in rows) for i in (2, 3, 4, 5)]
    calls_a, calls_b, us_a, us_b = total
    print(f"  {'all':16} {calls_a:8.3f} {calls_b:8.3f} {us_a:8.2f} {us_b:8.2f} {us_b - us_a:+8.2f}")
    if a["functions"] and b["functions"]:
        fa, fb = a["functions"], b["functions"]
        diff = []
        for name in set(fa) | set(fb):
            (ca, ta), (cb, tb) = fa.get(name, (0, 0.0)), fb.get(name, (0, 0.0))
            diff.append(((tb / mb - ta / ma) * 1e6, name, ca / ma, cb / mb))
        diff.sort()
        print(f"  web worker tottime per move (CPU clock), B-A us, calls A and B; top {top} each way:")
        for d, name, ca, cb in diff[::-1][:top] + diff[:top]:
            label = re.sub(r"\s+", " ", name)[:100]
            print(f"  {d:+8.2f} {ca:8.2f} {cb:8.2f}  {label}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, nargs="?")
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--profile", action="store_true", help="cProfile the worker (CPU clock)")
    parser.add_argument("--out", type=Path, help="keep the figures in this .json")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("A", "B"), help="two kept .json")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    if args.compare:
        compare(*(json.loads(p.read_text()) for p in args.compare), top=args.top)
        return 0
    if args.checkout is None:
        parser.error("give a checkout or --compare")
    found = measure(args.checkout.resolve(), args.games, args.seed, args.profile)
    if args.out:
        args.out.write_text(json.dumps(found))
    xreads = found["commands"].get("xread", (0, 0))[0]
    print(
        f"{found['checkout']}: {found['moves']} moves; per move: web worker {found['web_us']:.0f} us, "
        f"Redis {found['redis_us']:.0f} us, Redis commands "
        f"{sum(c for c, _ in found['commands'].values()) / found['moves']:.3f} "
        f"({sum(u for _, u in found['commands'].values()) / found['moves']:.1f} us); reader first "
        f"{found['deliveries'].get('_run fresh', 0):.3f}, XREAD {xreads / found['moves']:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
