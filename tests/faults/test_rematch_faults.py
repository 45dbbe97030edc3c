"""The acceptance that completes a rematch, killed at each point (``after_rematch_accept``: the set
complete and the creation recorded in the finished game's outbox, no game made;
``after_rematch_game``: the game made, its follow-ups neither run nor acknowledged): the janitor
finishes the creation, and there is exactly one new game, never an orphan nor two, whose seats
the tokens issued at each acceptance play."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from service import rematch
from store.outbox import Outbox
from tests.api import toy_game
from tests.faults.test_crash_points import recover
from tests.janitors import janitor_for

ROOT = Path(__file__).resolve().parents[2]


def _games(service) -> set[str]:
    return {
        key.decode().split("{g:")[1].split("}")[0]
        for key in service.store.redis.scan_iter(match="game:{g:*}:meta", count=1000)
    }


def _finished_toy(service) -> tuple[str, dict[int, str]]:
    game_id = service.create_game("toy", {"hand_size": 1})["id"]
    tokens = {
        seat: service.claim_seat(game_id, name, seat=seat).token for seat, name in enumerate(("Ann", "Bob"))
    }
    game = toy_game.ToyGame()
    for _ in range(10):
        if service.store.meta(game_id)["status"] == "finished":
            return game_id, {s: t for s, t in tokens.items() if t is not None}
        seen = service.get_view(game_id, None)
        (seat,) = game.awaiting(seen.state)
        service.submit_command(game_id, tokens[seat], game.legal_moves(seen.state, seat)[0])
    raise AssertionError("the toy game did not end")


@pytest.mark.parametrize("fault", ["after_rematch_accept", "after_rematch_game"])
def test_a_killed_rematch_acceptance_leaves_one_new_game_never_an_orphan_nor_two(
    service, redis_server, fault
):
    toy_game.register()
    game_id, tokens = _finished_toy(service)
    offered = rematch.offer_rematch(service, game_id, tokens[0])
    assert offered["rematch"] is None and offered["seat"] == 1
    before = _games(service)
    env = dict(os.environ, FAULT_POINT=fault, PYTHONPATH=str(ROOT))
    killed = subprocess.run(
        [sys.executable, "-m", "tests.faults.meet_actor", redis_server.url, "rematch", game_id, tokens[1]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    made = _games(service) - before
    assert len(made) == (0 if fault == "after_rematch_accept" else 1)
    assert Outbox(service.store.redis).pending(game_id)  # the creation, left for the janitor

    def done() -> bool:
        # The finished game's creation, then the new game's own follow-ups: the killed process
        # recorded those a moment after the acceptance, so their grace period can end a sweep later.
        made, outbox = _games(service) - before, Outbox(service.store.redis)
        return bool(made) and not outbox.pending(game_id) and not any(outbox.pending(g) for g in made)

    recover(janitor_for(service), done)
    (new_id,) = _games(service) - before  # one game, not two
    state = rematch.rematch_state(service, game_id)
    assert state["rematch"] == new_id and state["waiting_for"] == []
    assert service.store.meta(new_id)["status"] == "active"
    # Ann's token, issued when she offered, plays her new seat: nothing had to be rotated.
    assert service.get_view(new_id, offered["token"]).seat == 1
    assert not Outbox(service.store.redis).pending(new_id)  # the new game's own follow-ups ran too
    # Accepting again (Bob, who was killed) makes nothing more.
    again = rematch.offer_rematch(service, game_id, tokens[1])
    assert again["rematch"] == new_id and _games(service) - before == {new_id}
