"""The operator's ratings commands: ``python -m worker.ratings recount [GAME ...]``.

``recount`` rebuilds every rating, leaderboard, history and head-to-head count of each engine (all
of them without arguments) from the archived logs (``service.ratings.recount_while_quiet``) and
prints one JSON line per engine: ``{"game", "rated", "attempts", "quiet", "changed"}``. It is
idempotent: on an archive nothing enters meanwhile, a second run writes the same figures, the
incremental updates' figures (``changed`` false). It may run while the server runs: a recount that
saw games enter the archive under it runs again (up to ``--attempts``); the exit status is 1 when
one never saw a quiet archive (run it again, or stop the workers and the janitor first, which enter
games). The Redis is ``--url`` or ``REDIS_URL``, as for every other process.

Why a command and not an RQ job: it is an operator's repair, run by hand after a change of the
rating model or a damaged key, and its output is for the operator's terminal; a job would need a
route (and a permission to guard it) that no client needs.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import asdict

import orjson

from games import game_names
from service.ratings import RECOUNT_ATTEMPTS, recount_while_quiet
from store.archive import Archive
from store.connections import connect


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m worker.ratings", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    recount = commands.add_parser("recount", help="rebuild every rating from the archive")
    recount.add_argument(
        "games", nargs="*", metavar="GAME", help=f"engines (default: all: {', '.join(game_names())})"
    )
    recount.add_argument(
        "--url", default=os.environ.get("REDIS_URL"), help="the event store (default: REDIS_URL)"
    )
    recount.add_argument("--attempts", type=int, default=RECOUNT_ATTEMPTS, help="recounts at most per engine")
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("no Redis: give --url or set REDIS_URL")
    unknown = [name for name in args.games if name not in game_names()]
    if unknown:
        parser.error(f"unknown games {', '.join(unknown)} (games: {', '.join(game_names())})")
    archive = Archive(connect(args.url), engines=game_names())
    status = 0
    for game in args.games or game_names():
        done = recount_while_quiet(archive, game, args.attempts)
        sys.stdout.write(orjson.dumps(asdict(done)).decode() + "\n")
        sys.stdout.flush()
        if not done.quiet:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
