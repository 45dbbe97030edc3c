"""The operator's analytical-store commands (``service.facts``, ``store.facts``):

    python -m worker.facts rebuild   write every archived game's facts again from the logs, compacted
    python -m worker.facts compact   merge each partition's files into one (safe while games enter)

The Redis is ``--url`` or ``REDIS_URL``, the files ``--dir`` or ``FACTS_DIR`` (default var/facts).
A rebuild gives the same bytes as the incremental appends followed by a compaction; it writes into
the directory it clears, so pause the workers meanwhile (a game entering during it is added by its
follow-up, run again by the janitor). Prints one JSON line.

Why a command and not a job: as ``worker.ratings``, an operator's repair (after a change of an
engine's explorer hook or lost files), whose output is for the operator's terminal.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import orjson

from service.facts import facts_dir, rebuild
from store import GameStore
from store.connections import connect
from store.facts import FactStore


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m worker.facts", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("rebuild", "compact"))
    parser.add_argument(
        "--url", default=os.environ.get("REDIS_URL"), help="the event store (default: REDIS_URL)"
    )
    parser.add_argument("--dir", default=str(facts_dir()), help="the facts' directory (default: FACTS_DIR)")
    args = parser.parse_args(argv)
    facts = FactStore(args.dir)
    started = time.monotonic()
    out: dict[str, float]
    if args.command == "compact":
        out = {"compacted": facts.compact()}
    else:
        if not args.url:
            parser.error("no Redis: give --url or set REDIS_URL")
        out = {"games": rebuild(GameStore(connect(args.url)), facts)}
    out["seconds"] = round(time.monotonic() - started, 3)
    out["bytes"] = facts.size()
    sys.stdout.write(orjson.dumps(out).decode() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
