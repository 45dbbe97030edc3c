"""Playing a bound game to its end in the API tests: an account's seat by random legal moves over
HTTP with its own token, a server bot's as the bots queue would, an idle seat by its clock."""

from __future__ import annotations

import random
from collections.abc import Collection

from service import bot_turns
from tests.api.test_accounts import bearer
from worker.clocks import enforce_due

MOVES_PER_GAME_AT_MOST = 3000


def play_to_the_end(
    client, svc, game_id: str, tokens: dict[str, str], rng: random.Random, idle: Collection[str] = ()
) -> dict:
    """Play the game to its end and answer its finished summary. ``tokens`` and ``idle``: by
    handle; the idle never move (their clock runs out: ``enforce_due`` at each deadline)."""
    for _ in range(MOVES_PER_GAME_AT_MOST):
        summary = client.get(f"/v1/games/{game_id}").get_json()
        if summary["status"] == "finished":
            return summary
        seats = {s["seat"]: s for s in summary["seats"]}
        movers = [s for s in summary["awaiting"] if seats[s].get("kind") == "human"]
        accounts = {s: seats[s]["name"] for s in movers}
        ours = [s for s in movers if accounts[s] in tokens and accounts[s] not in idle]
        if ours:
            token = tokens[accounts[ours[0]]]
            view = client.get(f"/v1/games/{game_id}/view", headers=bearer(token)).get_json()["view"]
            command = rng.choice(view["legal_moves"])
            moved = client.post(
                f"/v1/games/{game_id}/moves", json={"command": command}, headers=bearer(token)
            )
            assert moved.status_code in (200, 409), moved.get_json()
        elif movers:
            deadline = min(summary["clock"]["seats"][s]["deadline_ms"] for s in movers)
            assert enforce_due(svc, now_ms=deadline), "an idle seat's deadline did nothing"
        else:
            bot_turns.play_bot_turns(svc, game_id)
    raise AssertionError(f"game {game_id} did not end")
