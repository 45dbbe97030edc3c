"""Paired A/B of two checkouts: the server CPU of whole streamed games, on both at once.

    .venv/bin/python bench/paired_ab.py BEFORE_DIR AFTER_DIR [--games 40] [--players 4]
    git worktree add /tmp/before HEAD~3 && ln -s "$PWD/.venv" /tmp/before/.venv   # for instance

Each directory is a checkout of this project (its ``.venv`` may be a link to this one's). The
script starts both servers (one gunicorn worker each, on an embedded Redis of its own, as
``bench/http_bench.py`` does), then plays the same games on both, alternately, one at a time:
game i on A then on B with the same seed (B first on odd i), each with its four seats following
their view streams (``http_bench.play_one_game_streamed``). It prints each server's web worker CPU
and Redis CPU per move and their ratios B/A.

Why: on a shared 2-core machine ``http_bench``'s rates drift by a tenth between runs, so a change
of a few percent is lost between two runs of it; here the drift hits A and B alike, game by game,
and the same moves are played on both (three runs of it once agreed within 1%).
It measures CPU per move of a lone game, not a rate under load: ``http_bench`` remains the
measure of the RATIO.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import http_bench  # noqa: E402
import redis  # noqa: E402

WARM_UP_GAMES = 2  # per server: scripts loaded, caches and code paths warm; not counted


class Side:
    """One checkout's server, and the CPU its games cost."""

    def __init__(self, label: str, root: Path):
        self.label = label
        http_bench.ROOT = root  # Server starts gunicorn from ROOT (its code and gunicorn.conf.py)
        self.server = http_bench.Server(web_workers=1, fsync="everysec").start()
        self.worker = http_bench.children_of(self.server.process.pid)[0]
        self.redis = redis.Redis.from_url(self.server.redis.url)
        self.web = self.redis_cpu = 0.0
        self.moves = 0

    def cpu(self) -> tuple[float, float]:
        user, system = http_bench.process_cpu_seconds(self.worker)
        info = self.redis.info("cpu")
        return user + system, float(info["used_cpu_user"]) + float(info["used_cpu_sys"])

    def play(self, players: int, seed: int, counted: bool) -> None:
        tally = http_bench.Tally()
        lobby, seats = http_bench.Client(self.server.url), http_bench.Client(self.server.url)
        web, redis_cpu = self.cpu()
        try:
            finished = http_bench.play_one_game_streamed(
                lobby, players, random.Random(seed), tally, time.monotonic() + 120, True, seats
            )
        finally:
            lobby.close()
            seats.close()
        if not finished:
            raise RuntimeError(f"{self.label}: game {seed} did not finish in time")
        if counted:
            after_web, after_redis = self.cpu()
            self.web += after_web - web
            self.redis_cpu += after_redis - redis_cpu
            self.moves += tally.moves

    def stop(self) -> None:
        self.redis.close()
        self.server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="checkout A")
    parser.add_argument("after", type=Path, help="checkout B")
    parser.add_argument("--games", type=int, default=40, help="games counted on each side (40)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args(argv)
    sides: list[Side] = []
    try:
        for label, root in (("A", args.before), ("B", args.after)):
            sides.append(Side(label, root.resolve()))
        for i in range(WARM_UP_GAMES + args.games):
            for side in sides if i % 2 == 0 else reversed(sides):
                side.play(args.players, args.seed + i, counted=i >= WARM_UP_GAMES)
        a, b = sides
        if a.moves != b.moves:  # the engines differ: the figures per move still compare
            print(f"note: the same seeds gave different games ({a.moves} and {b.moves} moves)")
        for side, root in ((a, args.before), (b, args.after)):
            print(
                f"{side.label} ({root}): {side.moves} moves; per move: web worker "
                f"{side.web / side.moves * 1e6:.1f} us, Redis {side.redis_cpu / side.moves * 1e6:.1f} us"
            )
        print(
            f"B/A per move: web {(b.web / b.moves) / (a.web / a.moves):.3f}, "
            f"Redis {(b.redis_cpu / b.moves) / (a.redis_cpu / a.moves):.3f}, "
            f"web + Redis {((b.web + b.redis_cpu) / b.moves) / ((a.web + a.redis_cpu) / a.moves):.3f}"
        )
        return 0
    finally:
        for side in sides:
            side.stop()


if __name__ == "__main__":
    sys.exit(main())
