"""A matcher process the fault tests kill at a named point (``FAULT_POINT``, ``service.faults``).

python -m tests.faults.meet_actor <redis url> match     one matcher pass (``SeekService.match``)
python -m tests.faults.meet_actor <redis url> accept <challenge id> <account token>
python -m tests.faults.meet_actor <redis url> rematch <game id> <seat token>   a rematch acceptance
"""

from __future__ import annotations

import os
import sys

from service import composition, rematch
from store import queue_url
from tests.api import toy_game

toy_game.register()


def main(url: str, action: str, *args: str) -> None:
    settings = composition.Settings(redis_url=url, queue_url=queue_url(url, os.environ.get("RQ_REDIS_URL")))
    services = composition.build(settings)
    if action == "match":
        print(services.seeks.match(), flush=True)
    elif action == "accept":
        challenge_id, token = args
        accounts = services.accounts
        print(services.challenges.accept(challenge_id, accounts.identify(token)), flush=True)
    elif action == "rematch":
        game_id, token = args
        print(rematch.offer_rematch(services.games, game_id, token), flush=True)
    else:
        raise SystemExit(f"unknown action {action!r}")


if __name__ == "__main__":
    main(*sys.argv[1:])
