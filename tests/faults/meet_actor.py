"""A matcher process the fault tests kill at a named point (``FAULT_POINT``, ``service.faults``).

python -m tests.faults.meet_actor <redis url> match     one matcher pass (``SeekService.match``)
"""

from __future__ import annotations

import os
import sys

from service import GameService, followups
from service.accounts import AccountService
from service.challenges import ChallengeService
from service.seeks import SeekService
from store import queue_url
from tests.api import toy_game

toy_game.register()


def main(url: str, action: str, *args: str) -> None:
    followups.connect_receivers()
    service = GameService.from_url(url, queue_url=queue_url(url, os.environ.get("RQ_REDIS_URL")))
    if action == "match":
        print(SeekService(service).match(), flush=True)
    elif action == "accept":
        challenge_id, token = args
        accounts = AccountService(service)
        service.identity = accounts
        print(ChallengeService(service, accounts).accept(challenge_id, accounts.identify(token)), flush=True)
    else:
        raise SystemExit(f"unknown action {action!r}")


if __name__ == "__main__":
    main(*sys.argv[1:])
