"""A ladder tick killed at each point of a pass (``after_ladder_pairing``: the pairing recorded, its
game not made; ``after_ladder_game``: the game made, the pairing not yet marked started) makes its
game exactly once: the janitor's sweep of the ladder's outbox finishes it, and later passes pair the
busy bots into no second game."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from service import composition
from service.ladder import pairing_game_id
from store import parts
from store.outbox import Outbox
from tests.api.test_accounts import FAST_HASH
from tests.faults.test_crash_points import recover
from tests.janitors import janitor_for

ROOT = Path(__file__).resolve().parents[2]
BOTS = 4  # two tables of two bot accounts and a level


def kill_tick(url: str, fault: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, FAULT_POINT=fault, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "tests.faults.ladder_actor", url],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
    )


@pytest.mark.parametrize("fault", ["after_ladder_pairing", "after_ladder_game"])
def test_a_killed_ladder_tick_makes_each_game_once(service, redis_server, fault):
    settings = composition.Settings(redis_url=redis_server.url, password_parameters=FAST_HASH)
    services = composition.build(settings, store=service.store)
    online = parts.bot_accounts(service.store)
    bots = []
    for n in range(BOTS):
        services.accounts.create_account(f"droid{n}", "correct horse", bot=True)
        who = services.accounts.identify(services.accounts.sign_in(f"droid{n}", "correct horse")["token"])
        online.online(who.account_id, int(time.time() * 1000) + 600_000)  # as an open stream's lease
        bots.append(who.account_id)
    killed = kill_tick(redis_server.url, fault)
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    ladder = parts.ladder(service.store)
    assert ladder.starting() == ["condottiere:1"]  # killed with its first pairing's game unmarked
    janitor = janitor_for(service)

    def done() -> bool:
        return not ladder.starting() and not Outbox(service.store.redis).pending("L")

    recover(janitor, done)
    first = service.store.meta(pairing_game_id("condottiere", 1))
    assert first is not None and first["status"] == "active"
    assert services.ladder.tick()["paired"] == 1  # the bots the killed pass did not reach
    assert services.ladder.tick()["paired"] == 0  # all busy: nothing paired twice
    assert ladder.last_number("condottiere") == 2
    seated = []
    for number in (1, 2):
        meta = service.store.meta(pairing_game_id("condottiere", number))
        assert meta is not None and meta["rated"] == "true"
        seated += [meta[f"account:{s}"] for s in range(3) if meta.get(f"account:{s}")]
    assert sorted(seated) == sorted(bots)  # every bot in exactly one game
    for bot in bots:
        assert len(list(parts.accounts(service.store).games(bot))) == 1
