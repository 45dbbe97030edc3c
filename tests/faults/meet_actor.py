"""A matcher process the fault tests kill at a named point (``FAULT_POINT``, ``service.faults``).

python -m tests.faults.meet_actor <redis url> match     one matcher pass (``SeekService.match``)
"""

from __future__ import annotations

import os
import sys

from service import GameService, followups
from service.seeks import SeekService
from store import queue_url
from tests.api import toy_game

toy_game.register()


def main(url: str, action: str) -> None:
    followups.connect_receivers()
    service = GameService.from_url(url, queue_url=queue_url(url, os.environ.get("RQ_REDIS_URL")))
    if action != "match":
        raise SystemExit(f"unknown action {action!r}")
    print(SeekService(service).match(), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
