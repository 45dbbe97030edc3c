"""``paired_ab.py`` with each side's live-reader race counted: B/A per move, and for each side the
share of moves the live reader delivered before the move's own ``deliver_local``.

    .venv/bin/python bench/paired_race.py BEFORE_DIR AFTER_DIR [--games 16]

Why: that share ("reader first") moves from 0% to 30% between runs of one checkout, and with it
the CPU per move (each such move costs an XREAD round trip more and skips the echo pause), so a
B/A of ``paired_ab.py`` compares the code only where both sides' shares agree. Fit B/A against the
difference of the shares over several runs: the intercept is the code's (bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import command_cost  # noqa: E402
import http_bench  # noqa: E402
import redis  # noqa: E402

WARM_UP_GAMES = 2


class Side:
    """One checkout's server under command_cost's gunicorn wrapper (which counts deliveries)."""

    def __init__(self, label: str, root: Path):
        self.label, self.root = label, root
        tmp = Path(tempfile.mkdtemp(prefix="paired-race-"))
        self.out, conf = tmp / "deliveries.json", tmp / "gunicorn.conf.py"
        conf.write_text(
            command_cost._WRAPPER.format(
                conf=str(root / "gunicorn.conf.py"), out=str(self.out), profile=False
            )
        )
        popen = subprocess.Popen

        def with_wrapper(args, **kwargs):
            args = [str(conf) if a == str(root / "gunicorn.conf.py") else a for a in args]
            kwargs["env"] = {**kwargs["env"], "PYTHONPATH": str(root)}
            return popen(args, **kwargs)

        class Subprocess:
            def __getattr__(self, name: str):
                return with_wrapper if name == "Popen" else getattr(subprocess, name)

        http_bench.ROOT = root
        http_bench.subprocess = Subprocess()  # type: ignore[assignment]
        try:
            self.server = http_bench.Server(web_workers=1, fsync="everysec").start()
        finally:
            http_bench.subprocess = subprocess
        self.worker = http_bench.children_of(self.server.process.pid)[0]
        self.redis = redis.Redis.from_url(self.server.redis.url)
        self.web = self.redis_cpu = 0.0
        self.moves = 0

    def cpu(self) -> tuple[float, float]:
        return sum(http_bench.process_cpu_seconds(self.worker)), command_cost.redis_cpu(self.redis)

    def play(self, seed: int, counted: bool) -> None:
        tally = http_bench.Tally()
        lobby, seats = http_bench.Client(self.server.url), http_bench.Client(self.server.url)
        web, spent = self.cpu()
        try:
            if not http_bench.play_one_game_streamed(
                lobby, 4, random.Random(seed), tally, time.monotonic() + 120, True, seats
            ):
                raise RuntimeError(f"{self.label}: game {seed} did not finish in time")
        finally:
            lobby.close()
            seats.close()
        if counted:
            after_web, after_redis = self.cpu()
            self.web += after_web - web
            self.redis_cpu += after_redis - spent
            self.moves += tally.moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args(argv)
    sides: list[Side] = []
    try:
        for label, root in (("A", args.before), ("B", args.after)):
            sides.append(Side(label, root.resolve()))
        for i in range(WARM_UP_GAMES + args.games):
            if i == WARM_UP_GAMES:
                for side in sides:
                    side.redis.config_resetstat()
                    os.kill(side.worker, signal.SIGUSR2)  # the wrapper counts from here
            for side in sides if i % 2 == 0 else reversed(sides):
                side.play(args.seed + i, counted=i >= WARM_UP_GAMES)
        xreads = [
            int(s.redis.info("commandstats").get("cmdstat_xread", {"calls": 0})["calls"]) for s in sides
        ]
    finally:
        for side in sides:
            side.redis.close()
            side.server.stop()  # the wrapper writes its counts at the worker's exit
    time.sleep(1)
    for side, xread in zip(sides, xreads, strict=True):
        first = json.loads(side.out.read_text())["deliveries"].get("_run fresh", 0) / side.moves
        print(
            f"{side.label} ({side.root}): {side.moves} moves; per move: web worker "
            f"{side.web / side.moves * 1e6:.1f} us, Redis {side.redis_cpu / side.moves * 1e6:.1f} us, "
            f"reader first {first:.3f}, XREAD {xread / side.moves:.3f}"
        )
    a, b = sides
    print(
        f"B/A per move: web {(b.web / b.moves) / (a.web / a.moves):.3f}, "
        f"Redis {(b.redis_cpu / b.moves) / (a.redis_cpu / a.moves):.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
