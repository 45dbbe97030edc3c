"""Finished games played through the service (the follow-ups run as in production), for the
analytical store's tests."""

from __future__ import annotations

import random


def play_games(
    svc, name: str, count: int, seed: int, players: int = 2, names=None, accounts=None
) -> list[str]:
    """Play ``count`` games of ``name`` to their end with random legal moves; return their ids.
    ``names(i)`` and ``accounts(i)`` give game ``i``'s seat names and account ids (None: anonymous)."""
    rng = random.Random(seed)
    ids = []
    for i in range(count):
        summary = svc.create_game(name, {"players": players, "seed": seed * 1000 + i})
        game_id = summary["id"]
        chosen = names(i) if names else [f"P{s}" for s in range(players)]
        bound = accounts(i) if accounts else [None] * players
        tokens = [svc.claim_seat(game_id, name=chosen[s], account=bound[s]).token for s in range(players)]
        while True:
            views = [svc.get_view(game_id, token) for token in tokens]
            if views[0].status == "finished":
                break
            awaited = [seat for seat, view in enumerate(views) if view.view["legal_moves"]]
            seat = rng.choice(awaited)
            svc.submit_command(game_id, tokens[seat], rng.choice(views[seat].view["legal_moves"]))
        ids.append(game_id)
    return ids
