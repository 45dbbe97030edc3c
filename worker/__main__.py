"""``python -m worker [QUEUE ...]``: the RQ worker process (the Procfile's ``worker`` and ``bots``).

Its jobs' services come from the composition root (``service.composition``: a bot move that finishes
a game queues its verify job, a bot left awaited gets its job). It runs RQ's worker on the
connection ``store.queues`` gives it: RQ's plain Redis (``--queue-url``, ``RQ_REDIS_URL``), while the
jobs work on the event store (``--url``, ``REDIS_URL``; a Redis Cluster is fine there). Queues:
``default`` (archive jobs) and ``bots`` unless named.
"""

from __future__ import annotations

import argparse
import os
import sys

from rq.utils import import_attribute

from store.queues import queue_connection, queue_url
from worker import stores

DEFAULT_QUEUES = ("default", "bots")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m worker", description=__doc__.split("\n\n")[0])
    parser.add_argument("queues", nargs="*", default=list(DEFAULT_QUEUES), help="queues to work on, in order")
    parser.add_argument(
        "--url", default=os.environ.get("REDIS_URL"), help="the event store's Redis URL (default: $REDIS_URL)"
    )
    parser.add_argument(
        "--queue-url",
        default=os.environ.get("RQ_REDIS_URL"),
        help="RQ's plain Redis (default: $RQ_REDIS_URL, else the store's own when it is not a cluster)",
    )
    parser.add_argument("--burst", action="store_true", help="stop once the queues are empty")
    parser.add_argument(
        "--worker-class", default="rq.Worker", help="dotted path of the RQ worker class (default rq.Worker)"
    )
    parser.add_argument("--logging-level", default=os.environ.get("LOG_LEVEL", "INFO").upper())
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("set REDIS_URL or --url")
    stores.configure(args.url)
    worker_class = import_attribute(args.worker_class)
    worker = worker_class(args.queues, connection=queue_connection(queue_url(args.url, args.queue_url)))
    worker.work(burst=args.burst, logging_level=args.logging_level)
    return 0


if __name__ == "__main__":
    sys.exit(main())
