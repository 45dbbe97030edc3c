"""The clock enforcer processes (``python -m worker.clocks``, the Procfile's ``clock``) against real
time: a seat that never moves times out at its deadline, within TOLERANCE_MS, also when an enforcer
is SIGKILLed meanwhile; deadlines live in Redis, so a freshly started enforcer applies what is
overdue at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from service import GameService, composition

ROOT = Path(__file__).resolve().parents[2]
# Stated tolerance: a timeout is applied within this long after its deadline (the enforcer polls
# every 0.25 s; the rest is headroom for a loaded test machine). Never before the deadline.
TOLERANCE_MS = 1500


def start_enforcer(url: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "worker.clocks", "--url", url, "--interval", "0.25", "--rescan", "2"],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        start_new_session=True,  # killpg takes the whole process, as a lost machine would
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    for line in process.stderr:  # ready once it says so (imports take a while on a busy machine)
        if "enforcing clocks" in line:
            return process
    raise AssertionError("the enforcer did not start")


def kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


def timed_game(svc: GameService, move_seconds: float = 1) -> tuple[str, int, int]:
    """A started two-player game nobody plays: (id, awaited seat, its deadline in ms)."""
    game_id = svc.create_game(
        "condottiere", {"players": 2, "seed": 42}, clock={"move_seconds": move_seconds}
    )["id"]
    svc.claim_seat(game_id, name="Ann")
    svc.claim_seat(game_id, name="Bob")
    seat = next(s for s in svc.get_summary(game_id)["clock"]["seats"] if s["deadline_ms"] is not None)
    return game_id, seat["seat"], seat["deadline_ms"]


def wait_for_timeout(svc: GameService, game_id: str, after: int, limit_s: float = 30) -> tuple[int, dict]:
    """(wall-clock ms when the first seat_timed_out after version ``after`` was seen, the event)."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        for entry in svc.store.read_events(game_id, after=after):
            if entry.event["type"] == "seat_timed_out":
                return int(time.time() * 1000), entry.event
        time.sleep(0.02)
    raise AssertionError("no timeout")


@pytest.fixture()
def svc(redis_server, redis_client):
    service = composition.game_service_at(redis_server.url)
    yield service
    service.store.redis.close()


@pytest.mark.timeout(120)
def test_rl_x19_a_seat_that_never_moves_times_out_at_its_deadline(svc, redis_server):
    enforcer = start_enforcer(redis_server.url)
    try:
        game_id, seat, deadline = timed_game(svc)
        version = svc.get_summary(game_id)["version"]
        seen, event = wait_for_timeout(svc, game_id, version)
        assert event == {"type": "seat_timed_out", "v": 1, "seat": seat}
        assert deadline <= seen <= deadline + TOLERANCE_MS, seen - deadline
    finally:
        kill(enforcer)


@pytest.mark.timeout(120)
def test_timeouts_survive_a_sigkilled_enforcer(svc, redis_server):
    """One of two enforcers is SIGKILLed just before the deadline: the other applies it in time.
    Then the last one is killed too; the next deadline passes with none running, and a fresh
    enforcer applies it as soon as it is up (the deadline was in Redis, not in a process)."""
    first, second = start_enforcer(redis_server.url), start_enforcer(redis_server.url)
    try:
        game_id, _, deadline = timed_game(svc, move_seconds=2)
        version = svc.get_summary(game_id)["version"]
        time.sleep(max(0.0, (deadline - 300) / 1000 - time.time()))
        kill(first)
        seen, _ = wait_for_timeout(svc, game_id, version)
        assert deadline <= seen <= deadline + TOLERANCE_MS, seen - deadline

        kill(second)
        summary = svc.get_summary(game_id)
        next_deadline = min(s["deadline_ms"] for s in summary["clock"]["seats"] if s["deadline_ms"])
        time.sleep(max(0.0, (next_deadline + 500) / 1000 - time.time()))
        assert svc.get_summary(game_id)["version"] == summary["version"]  # nobody enforces
        third = start_enforcer(redis_server.url)
        try:
            ready = int(time.time() * 1000)
            seen, _ = wait_for_timeout(svc, game_id, summary["version"])
            assert seen <= ready + TOLERANCE_MS, seen - ready
        finally:
            kill(third)
    finally:
        kill(first)
        kill(second)
