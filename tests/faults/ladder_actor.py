"""A ladder tick the fault tests kill at a named point (``FAULT_POINT``, ``service.faults``).

python -m tests.faults.ladder_actor <redis url>     one pass of the bot ladder (``LadderService.tick``)
"""

from __future__ import annotations

import os
import sys

from service import composition
from store import queue_url


def main(url: str) -> None:
    settings = composition.Settings(redis_url=url, queue_url=queue_url(url, os.environ.get("RQ_REDIS_URL")))
    print(composition.build(settings).ladder.tick(), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
