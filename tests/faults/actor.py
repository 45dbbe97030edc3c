"""A process the fault-injection tests kill at a named point (``FAULT_POINT``, ``service.faults``).

    python -m tests.faults.actor <redis url> finish-toy <game id>   play both moves of a toy game
    python -m tests.faults.actor <redis url> create-bots            create an all-bot Condottiere game
    python -m tests.faults.actor <redis url> bot-job <game id>      play its bot turns (a bot job)
    python -m tests.faults.actor <redis url> verify <game id>       start the game's verify job

It connects the follow-up handlers as the web process and the workers do, and prints the game id.
"""

from __future__ import annotations

import os
import sys

from service import composition
from service.jobs import JobService
from store import queue_url
from tests.api import toy_game
from worker import bots

toy_game.register()


def main(url: str, action: str, *args: str) -> None:
    service = composition.game_service_at(url, queue_url=queue_url(url, os.environ.get("RQ_REDIS_URL")))
    if action == "finish-toy":
        (game_id,) = args
        tokens = [service.claim_seat(game_id, name=name).token for name in ("Ann", "Bob")]
        for _ in range(2):
            _, cached = service.viewer_seat(game_id, None)
            seat = toy_game.ToyGame().awaiting(cached.state)[0]
            hand = sorted(cached.state["hands"][seat])
            service.submit_command(game_id, tokens[seat], {"type": "play", "card": hand[0]})
    elif action == "create-bots":
        summary = service.create_game(
            "condottiere", {"players": 2, "seed": 5}, bots={0: "heuristic", 1: "random"}
        )
        print(summary["id"], flush=True)
    elif action == "bot-job":
        (game_id,) = args
        bots.play_bot_turns(game_id, service=service)
    elif action == "verify":
        (game_id,) = args
        JobService(service.store).start("verify", {"game_id": game_id})
    else:
        raise SystemExit(f"unknown action {action!r}")


if __name__ == "__main__":
    main(*sys.argv[1:])
