"""A matcher killed at each point of a pass (``after_seek_claim``: seeks claimed into tables, no
game made; ``after_seek_game``: a game made, its table not yet dropped nor its follow-ups run)
loses no seek and makes no game twice: the next pass (the janitor's) finishes every table, each
into exactly one game, and every seeker is told of its game (the outbox)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from service import composition
from store import parts
from store.outbox import Outbox
from tests.api.test_accounts import FAST_HASH
from tests.faults.test_crash_points import recover
from tests.janitors import janitor_for

ROOT = Path(__file__).resolve().parents[2]
SEEKERS = 8  # two tables of four


def kill_matcher(url: str, fault: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, FAULT_POINT=fault, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "tests.faults.meet_actor", url, "match"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
    )


@pytest.mark.parametrize("fault", ["after_seek_claim", "after_seek_game"])
def test_a_killed_matcher_loses_and_doubles_nothing(service, redis_server, fault):
    settings = composition.Settings(redis_url=redis_server.url, password_parameters=FAST_HASH)
    services = composition.build(settings, store=service.store)
    accounts, seeks = services.accounts, services.seeks
    people = {}
    for n in range(SEEKERS):
        handle = f"p{n}"
        accounts.create_account(handle, "correct horse")
        who = accounts.identify(accounts.sign_in(handle, "correct horse")["token"])
        people[who.account_id] = seeks.seek(who, {"game": "condottiere", "config": {"players": 4}})["id"]
    killed = kill_matcher(redis_server.url, fault)
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    store = parts.seeks(service.store)
    (pool,) = store.pools()
    assert len(store.tables(pool)) >= 1  # the killed pass left a table behind
    janitor = janitor_for(service)

    def done() -> bool:
        if store.tables(pool) or store.seeks(pool):
            return False
        games = {g for a in people for g in parts.accounts(service.store).games(a)}
        return len(games) == SEEKERS // 4 and all(not Outbox(service.store.redis).pending(g) for g in games)

    recover(janitor, done)
    games_of = {a: list(parts.accounts(service.store).games(a)) for a in people}
    assert all(len(g) == 1 for g in games_of.values()), games_of  # every seeker in exactly one game
    games = {g[0] for g in games_of.values()}
    assert len(games) == SEEKERS // 4
    for game_id in games:
        meta = service.store.meta(game_id)
        assert meta is not None and meta["status"] == "active"
        bound = sorted(meta[f"account:{s}"] for s in range(4))
        assert bound == sorted(a for a, g in games_of.items() if g == [game_id])
    assert janitor.seeks.match()["games"] == 0  # nothing made twice on a later pass
