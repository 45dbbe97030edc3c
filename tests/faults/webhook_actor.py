"""The moves of a webhook fault test, in a process killed at ``FAULT_POINT`` (``service.faults``).

    python -m tests.faults.webhook_actor <redis url> <game id> <token of seat 0> <token of seat 1>

Plays a one-card toy game out (each awaited seat plays its only card), running the follow-up work
of each move as the web process does (the accounts feed, then the webhook fan-out)."""

from __future__ import annotations

import sys

from service import composition
from tests.api import toy_game

toy_game.register()


def main(url: str, game_id: str, *tokens: str) -> None:
    service = composition.game_service_at(url)
    for _ in range(2):
        _, cached = service.viewer_seat(game_id, None)
        seat = toy_game.ToyGame().awaiting(cached.state)[0]
        hand = sorted(cached.state["hands"][seat])
        service.submit_command(game_id, tokens[seat], {"type": "play", "card": hand[0]})


if __name__ == "__main__":
    main(*sys.argv[1:])
