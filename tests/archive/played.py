"""Random games played to their end through the service, every seat's view recorded at every version
the game reached (what each seat was served live), and their exported logs."""

from __future__ import annotations

import random

from games import get_game
from replays import export


def play_recorded(svc, name: str, config: dict, rng: random.Random):
    """Create a game (the server draws the seed), claim every seat and play random legal moves to
    the end through the service, recording every seat's view at every version it reached."""
    summary = svc.create_game(name, config)
    game_id = summary["id"]
    tokens = [svc.claim_seat(game_id, name=f"P{s}").token for s in range(summary["seat_count"])]
    seen: dict[tuple[int, int], dict] = {}
    while True:
        views = [svc.get_view(game_id, token) for token in tokens]
        for seat, view in enumerate(views):
            seen[(view.version, seat)] = view.to_dict()["view"]
        if views[0].status == "finished":
            return summary, seen
        awaited = [seat for seat, view in enumerate(views) if view.view["legal_moves"]]
        seat = rng.choice(awaited)
        svc.submit_command(game_id, tokens[seat], rng.choice(views[seat].view["legal_moves"]))


def exported_log(svc, game_id: str) -> dict:
    from service import composition

    log = composition.archive_service(svc.store).log(game_id)
    game = get_game(log.name)
    return export.export_log(
        game, log.events, players=log.players, finished=log.finished, game_id=game_id, result=log.result
    )
