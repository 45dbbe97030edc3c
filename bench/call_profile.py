"""Python function calls per move in the web worker, by function: counts, not times, so the load of
a shared machine does not move them.

    .venv/bin/python bench/call_profile.py CHECKOUT [--games 9] [--base-games 1] [--top 40]
    .venv/bin/python bench/call_profile.py A_DIR --against B_DIR     # the per-function difference

The web worker (one gunicorn worker, as ``paired_ab.py`` starts it) runs under cProfile from
``post_worker_init`` to ``worker_exit``; the games are ``paired_ab.py``'s (4-seat games, each seat
following its view stream, seeds 1000, 1001, ...). Two servers are run, one playing ``--base-games``
and one ``--games``, and the first's counts are subtracted from the second's: start-up, the first
requests' imports and the warm-up drop out, what is left is the calls of the extra games, divided
by their moves.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import http_bench  # noqa: E402

_WRAPPER = """
import cProfile, gc, json, re, types
exec(compile(open({conf!r}).read(), {conf!r}, "exec"))

_profile = cProfile.Profile()


def post_worker_init(worker):
    _profile.enable()


def worker_exit(server, worker):
    _profile.disable()
    # Named by module and qualified name, not pstats's (file, first line, name): every dataclass's
    # generated __init__ is ("<string>", 2, "__init__"), which pstats would fold into one.
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

    calls, callers = {{}}, {{}}
    for entry in _profile.getstats():
        name = label(entry.code)
        calls[name] = calls.get(name, 0) + entry.callcount
        for sub in entry.calls or ():
            by = callers.setdefault(label(sub.code), {{}})
            by[name] = by.get(name, 0) + sub.callcount
    with open({out!r}, "w") as f:
        json.dump({{"calls": calls, "callers": callers}}, f)
"""


def run(root: Path, games: int, players: int, seed: int) -> tuple[int, dict[str, tuple[int, Counter]]]:
    """Play ``games`` games on ``root``'s server under cProfile: moves, and per function its calls and
    its callers' calls of it."""
    tmp = Path(tempfile.mkdtemp(prefix="call-profile-"))
    out, conf = tmp / "stats.json", tmp / "gunicorn.conf.py"
    conf.write_text(_WRAPPER.format(conf=str(root / "gunicorn.conf.py"), out=str(out)))
    popen = subprocess.Popen

    def with_wrapper(args, **kwargs):
        args = [str(conf) if a == str(root / "gunicorn.conf.py") else a for a in args]
        kwargs["env"] = {**kwargs["env"], "PYTHONPATH": str(root)}
        return popen(args, **kwargs)

    class Subprocess:  # http_bench's view of subprocess, starting gunicorn with the wrapper config
        def __getattr__(self, name: str):
            return with_wrapper if name == "Popen" else getattr(subprocess, name)

    http_bench.ROOT = root
    http_bench.subprocess = Subprocess()  # type: ignore[assignment]
    try:
        server = http_bench.Server(web_workers=1, fsync="everysec").start()
    finally:
        http_bench.subprocess = subprocess
    moves = 0
    try:
        for i in range(games):
            tally = http_bench.Tally()
            lobby, seats = http_bench.Client(server.url), http_bench.Client(server.url)
            try:
                if not http_bench.play_one_game_streamed(
                    lobby, players, random.Random(seed + i), tally, time.monotonic() + 120, True, seats
                ):
                    raise RuntimeError(f"game {seed + i} did not finish in time")
            finally:
                lobby.close()
                seats.close()
            moves += tally.moves
    finally:
        server.stop()
    deadline = time.monotonic() + 30
    while not out.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)  # the file is written by then
    stats = json.loads(out.read_text())
    shutil.rmtree(tmp, ignore_errors=True)
    return moves, {name: (n, Counter(stats["callers"].get(name, {}))) for name, n in stats["calls"].items()}


def per_move(root: Path, games: int, base_games: int, players: int, seed: int):
    big_moves, big = run(root, games, players, seed)
    small_moves, small = run(root, base_games, players, seed)
    moves = big_moves - small_moves
    calls: dict[str, float] = {}
    callers: dict[str, Counter] = {}
    here = str(root) + "/"  # a comprehension is named by its file: the same name in both checkouts
    big = {
        name.replace(here, ""): (n, Counter({c.replace(here, ""): k for c, k in by.items()}))
        for name, (n, by) in big.items()
    }
    small = {
        name.replace(here, ""): (n, Counter({c.replace(here, ""): k for c, k in by.items()}))
        for name, (n, by) in small.items()
    }
    for name, (n, by) in big.items():
        m, small_by = small.get(name, (0, Counter()))
        calls[name] = (n - m) / moves
        callers[name] = Counter({caller: (c - small_by.get(caller, 0)) / moves for caller, c in by.items()})
    return moves, calls, callers


def measured(checkout: Path, args: argparse.Namespace):
    if checkout.suffix == ".json":  # a run kept with --save
        moves, calls, callers = json.loads(checkout.read_text())
        return moves, calls, {name: Counter(by) for name, by in callers.items()}
    return per_move(checkout.resolve(), args.games, args.base_games, args.players, args.seed)


def summary(calls: dict[str, float]) -> str:
    python = sum(n for name, n in calls.items() if not name.startswith("<"))
    return f"per move {python:,.1f} calls of Python functions, {sum(calls.values()):,.1f} with built-ins"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--against", type=Path, help="a second checkout: print B - A by function")
    parser.add_argument("--games", type=int, default=9)
    parser.add_argument("--base-games", type=int, default=1)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--save", type=Path, help="keep A's counts in this .json (give it as A later)")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args(argv)
    a = measured(args.checkout, args)
    if args.save:
        args.save.write_text(json.dumps(a))
    print(f"A {args.checkout}: {a[0]} moves counted, {summary(a[1])}")
    if args.against is None:
        for name, n in sorted(a[1].items(), key=lambda kv: -kv[1])[: args.top]:
            print(f"{n:9.2f}  {name}")
        return 0
    b = measured(args.against, args)
    print(f"B {args.against}: {b[0]} moves counted, {summary(b[1])}")
    names = set(a[1]) | set(b[1])
    diffs = sorted(((b[1].get(n, 0.0) - a[1].get(n, 0.0), n) for n in names), key=lambda d: -abs(d[0]))
    for d, name in diffs[: args.top]:
        if abs(d) < 0.1:
            break
        print(f"{d:+9.2f}  {name}  (A {a[1].get(name, 0.0):.2f}, B {b[1].get(name, 0.0):.2f})")
        who = b[2].get(name, Counter())
        who.subtract(a[2].get(name, Counter()))
        for caller, c in sorted(who.items(), key=lambda kv: -abs(kv[1]))[:4]:
            if abs(c) >= 0.05:
                print(f"            {c:+7.2f} from {caller}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
