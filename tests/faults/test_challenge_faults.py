"""The answer that starts a challenge's game, killed right after the start's script
(``after_challenge_start``: before its follow-ups ran): the game is whole (every seat bound, its
genesis events, the challenge started) because one script wrote it all, and the janitor finishes
what the dead process left (the seats' accounts told, the indexes), once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from service import composition
from service.challenges import ChallengeService
from store import parts
from store.outbox import Outbox
from tests.api.test_accounts import FAST_HASH
from tests.faults.test_crash_points import recover
from tests.janitors import janitor_for

ROOT = Path(__file__).resolve().parents[2]


def test_a_process_killed_after_the_start_leaves_a_whole_game_and_the_janitor_tells_everyone(
    service, redis_server
):
    settings = composition.Settings(redis_url=redis_server.url, password_parameters=FAST_HASH)
    services = composition.build(settings, store=service.store)
    accounts = services.accounts
    tokens = {}
    for handle in ("Ann", "Bob"):
        accounts.create_account(handle, "correct horse")
        tokens[handle] = accounts.sign_in(handle, "correct horse")["token"]
    ann = accounts.identify(tokens["Ann"])
    bob = accounts.identify(tokens["Bob"])
    made = services.challenges.create(ann, {"game": "toy", "invite": ["Bob"]})
    env = dict(os.environ, FAULT_POINT="after_challenge_start", PYTHONPATH=str(ROOT))
    killed = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.faults.meet_actor",
            redis_server.url,
            "accept",
            made["id"],
            tokens["Bob"],
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    # Whole at once: metadata, bound seats, events, the challenge's status: one script wrote them.
    meta = service.store.meta(made["id"])
    assert meta is not None and meta["status"] == "active"
    assert {meta["account:0"], meta["account:1"]} == {ann.account_id, bob.account_id}
    assert service.store.read_events(made["id"])
    assert ChallengeService(service).get(made["id"])["status"] == "started"
    assert Outbox(service.store.redis).pending(made["id"])  # what the dead process left
    games = parts.accounts(service.store)

    def done() -> bool:
        return not Outbox(service.store.redis).pending(made["id"]) and all(
            made["id"] in games.games(who.account_id) for who in (ann, bob)
        )

    recover(janitor_for(service), done)
    kinds = [e.kind for e in games.feed_after(bob.account_id, None)]
    assert kinds.count("game_started") == 1 and kinds.count("challenge") == 1
