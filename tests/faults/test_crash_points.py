"""Fault injection: a real process is SIGKILLed at each named point after a commit, and the janitor
(``worker.janitor``) with ordinary workers brings the system to the right end state:

* ``after_commit``: the process that made a game's last move dies before its follow-up work;
* ``after_start``: the process whose claim started an all-bot game dies before enqueueing the bots;
* ``after_commit`` in a bot job: the worker playing a bot game dies between two moves;
* ``between_record_and_enqueue``: a job record is written, its RQ job never enqueued;
* ``inside the dequeue``: a worker takes the bot job off the queue (RQ's BLMOVE) and dies;
* ``during shutdown``: a worker asked to stop (SIGTERM) is killed when its grace runs out, mid-job.

End state every time: every finished game archived and verified exactly once, every bot turn played
once (the log verifies, one event sequence, no version twice), no job record left pending, the
cross-game indexes right, the outbox empty. Each test prints its recovery time (the measure the
issue asks for) and the follow-up actions that ran twice (harmless, counted).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from rq import Queue

from games import get_game
from service import GameService
from service.jobs import RECONCILE_AFTER_SECONDS, JobService
from store.archive import Archive
from store.jobs import JobBook
from store.outbox import Outbox
from tests.api import toy_game
from tests.janitors import janitor_for
from tests.worker_processes import rq_worker
from worker.janitor import Janitor

toy_game.register()
ROOT = Path(__file__).resolve().parents[2]
# The bound on recovery the issue sets for bot turns; follow-up work must meet it too.
RECOVERY_BOUND_SECONDS = 10.0


def actor(url: str, fault: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, FAULT_POINT=fault, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "tests.faults.actor", url, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
    )


def recover(janitor: Janitor, done, bound: float = RECOVERY_BOUND_SECONDS) -> float:
    """Tick the janitor (as ``python -m worker.janitor`` does, a little more often) until ``done()``,
    with the healthy worker of the ``worker`` fixture running; return the seconds it took."""
    started = time.monotonic()
    while time.monotonic() - started < bound:
        janitor.tick()
        if done():
            return time.monotonic() - started
        time.sleep(0.2)
    raise AssertionError(f"not recovered within {bound} s")


def settled(service: GameService, game_id: str) -> bool:
    client = service.store.redis
    meta = service.store.meta(game_id)
    return (
        meta is not None
        and meta["status"] == "finished"
        and not Outbox(client).pending(game_id)
        and JobBook(client).pending_count() == 0
        and Archive(client).record(game_id)
    )


def assert_end_state(service: GameService, game_id: str, archived_before: int) -> None:
    client = service.store.redis
    store = service.store
    assert store.meta(game_id)["status"] == "finished"
    # Archived exactly once: the archive's version counts entries.
    assert Archive(client).record(game_id)
    assert Archive(client).version() == archived_before + 1
    # Verified exactly once: the same request finds the one finished job, completed once, and ok.
    jid = JobService(service.store).start("verify", {"game_id": game_id})
    book = JobBook(client)
    record = book.get(jid)
    assert record is not None and record.status == "finished" and record.completions == 1, record
    report = orjson.loads(book.result(jid))
    assert report["ok"] is True, report  # the log replays to its snapshot: no move doubled or lost
    assert book.pending_count() == 0
    # Indexes: listed as finished, nowhere else.
    assert game_id in store.index.ids(status="finished", limit=1000)
    assert game_id not in store.index.ids(status="active", limit=1000)
    assert game_id not in store.index.ids(status="open", limit=1000)
    outbox = Outbox(client)
    assert outbox.pending(game_id) == {}
    assert not outbox.is_due(game_id)


def duplicates(client) -> dict[str, int]:
    return {k: v for k, v in Outbox(client).stats().items() if k.startswith("duplicates:")}


@pytest.fixture()
def janitor(service):
    return janitor_for(service)


@pytest.fixture()
def worker(redis_server):
    """``start()`` runs a healthy ``rq worker bots default`` (the Procfile's worker) until the test
    ends."""
    started: list[subprocess.Popen] = []

    def start() -> subprocess.Popen:
        process = rq_worker(redis_server.url, "tests.archive.rq_support.ToyWorker", "bots", "default")
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def test_killed_after_the_commit_of_the_last_move(service, janitor, worker, redis_server):
    """The process that made a game's last move dies before indexing, archiving and verifying it."""
    game_id = service.create_game("toy", {"seed": 3, "hand_size": 1})["id"]
    worker()
    done = actor(redis_server.url, "after_commit:2", "finish-toy", game_id)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    client = service.store.redis
    assert service.store.meta(game_id)["status"] == "finished"
    assert not Archive(client).record(game_id)  # the follow-up work was really lost...
    assert game_id in service.store.index.ids(status="active")
    assert set(Outbox(client).pending(game_id)) == {"index", "archive", "facts", "verify"}
    took = recover(janitor, lambda: settled(service, game_id))  # ...and is finished by the janitor
    print(f"\nrecovery after_commit (last move): {took:.2f} s, twice: {duplicates(client)}")
    assert_end_state(service, game_id, archived_before=0)


def test_killed_after_the_claim_that_starts_an_all_bot_game(service, janitor, worker, redis_server):
    """The process whose claim started a game of bots dies before enqueueing the first bot turn:
    the game would wait for ever. The janitor enqueues it; the bots play the game out."""
    worker()
    done = actor(redis_server.url, "after_start", "create-bots")
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    client = service.store.redis
    (game_id,) = [i for i in service.store.index.ids(limit=10)]
    assert service.store.meta(game_id)["status"] == "active"
    assert Queue("bots", connection=service.store.queue_redis).count == 0  # nothing was enqueued
    took = recover(janitor, lambda: settled(service, game_id), bound=RECOVERY_BOUND_SECONDS + 20)
    print(
        f"\nrecovery after_start (bot game): {took:.2f} s (whole game included), twice: {duplicates(client)}"
    )
    assert_end_state(service, game_id, archived_before=0)


def _first_bot_move_after(service: GameService, game_id: str, version: int):
    return lambda: service.store.status_and_version(game_id)[1] > version


def test_bot_job_killed_between_two_moves(service, janitor, worker, redis_server):
    """A worker playing a bot game dies right after committing a move (its own loop would have
    played the next): the next bot turn comes within the bound, and the game ends right."""
    bots_game = service.create_game(
        "condottiere", {"players": 2, "seed": 5}, bots={0: "heuristic", 1: "random"}
    )
    game_id = bots_game["id"]
    client = service.store.redis
    Queue(
        "bots", connection=service.store.queue_redis
    ).empty()  # the test plays the game through the actor instead
    worker()
    done = actor(redis_server.url, "after_commit:5", "bot-job", game_id)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    killed_at = time.monotonic()
    _, version = service.store.status_and_version(game_id)
    recover(janitor, _first_bot_move_after(service, game_id, version))
    first_move = time.monotonic() - killed_at
    recover(janitor, lambda: settled(service, game_id), bound=30)
    print(
        f"\nrecovery bot job killed after a commit: next bot move {first_move:.2f} s, "
        f"twice: {duplicates(client)}"
    )
    assert first_move < RECOVERY_BOUND_SECONDS
    assert_end_state(service, game_id, archived_before=0)


def test_killed_between_the_job_record_and_the_enqueue(service, janitor, worker, redis_server):
    """A job record written, its RQ job never enqueued: reconciled within the bound, run once."""
    game_id = service.create_game("toy", {"seed": 3, "hand_size": 1})["id"]
    client = service.store.redis
    tokens = [service.claim_seat(game_id, name=n).token for n in ("Ann", "Bob")]
    for _ in range(2):
        _, cached = service.viewer_seat(game_id, None)
        seat = toy_game.ToyGame().awaiting(cached.state)[0]
        service.submit_command(
            game_id, tokens[seat], {"type": "play", "card": cached.state["hands"][seat][0]}
        )
    # Simulate the crash on the verify job only: forget the one the move enqueued, then let the actor
    # write the record and die before the enqueue.
    jid = JobService(service.store).start("verify", {"game_id": game_id})
    Queue("default", connection=service.store.queue_redis).empty()
    client.delete(f"jobs:{{jobs}}:{jid}")
    client.zrem("jobs:{jobs}:pending", jid)
    worker()
    done = actor(redis_server.url, "between_record_and_enqueue", "verify", game_id)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    killed_at = time.monotonic()
    book = JobBook(client)
    assert book.status(jid) == "queued" and Queue("default", connection=service.store.queue_redis).count == 0
    recover(janitor, lambda: book.status(jid) == "finished", bound=RECONCILE_AFTER_SECONDS + 5)
    took = time.monotonic() - killed_at
    print(f"\nrecovery between record and enqueue: {took:.2f} s")
    assert took < RECONCILE_AFTER_SECONDS + 5
    recover(janitor, lambda: settled(service, game_id))
    assert_end_state(service, game_id, archived_before=0)


def test_worker_killed_inside_the_dequeue(service, janitor, worker, redis_server):
    """A worker takes the bot job off the queue and dies before starting it (the job sits in RQ's
    intermediate list, where RQ looks again only minutes later): the bot turn comes within 10 s."""
    client = service.store.redis
    game_id = service.create_game(
        "condottiere", {"players": 2, "seed": 5}, bots={0: "heuristic", 1: "random"}
    )["id"]
    _, version = service.store.status_and_version(game_id)
    assert Queue("bots", connection=service.store.queue_redis).count == 1
    dying = rq_worker(redis_server.url, "tests.faults.rq_support.DyingInDequeueWorker", "bots")
    assert dying.wait(timeout=60) == -signal.SIGKILL
    killed_at = time.monotonic()
    assert Queue("bots", connection=service.store.queue_redis).count == 0
    assert Queue("bots", connection=service.store.queue_redis).intermediate_queue.get_job_ids()
    worker()
    recover(janitor, _first_bot_move_after(service, game_id, version))
    took = time.monotonic() - killed_at
    recover(janitor, lambda: settled(service, game_id), bound=30)
    print(f"\nrecovery inside the dequeue: next bot move {took:.2f} s, twice: {duplicates(client)}")
    assert took < RECOVERY_BOUND_SECONDS
    assert_end_state(service, game_id, archived_before=0)


def test_worker_killed_during_its_shutdown(service, janitor, worker, redis_server):
    """A worker told to stop (SIGTERM) while it plays a slow bot game is killed when the grace runs
    out (SIGKILL to its process group, work horse included): the game goes on within the bound."""
    client = service.store.redis
    game_id = service.create_game(
        "condottiere", {"players": 2, "seed": 5}, bots={0: "heuristic", 1: "random"}
    )["id"]
    stopping = rq_worker(redis_server.url, "rq.worker.Worker", "bots", env={"BOT_MOVE_DELAY": "0.1"})
    try:
        deadline = time.monotonic() + 60
        while service.store.status_and_version(game_id)[1] < 12 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(stopping.pid, signal.SIGTERM)  # warm shutdown: RQ waits for the job...
        time.sleep(0.5)
        os.killpg(stopping.pid, signal.SIGKILL)  # ...the grace runs out
        stopping.wait(timeout=10)
    finally:
        if stopping.poll() is None:
            os.killpg(stopping.pid, signal.SIGKILL)
    killed_at = time.monotonic()
    worker()
    status, version = service.store.status_and_version(game_id)
    assert status == "active", "the game ended before the kill: nothing was tested"
    recover(janitor, _first_bot_move_after(service, game_id, version))
    took = time.monotonic() - killed_at
    recover(janitor, lambda: settled(service, game_id), bound=30)
    print(f"\nrecovery during shutdown: next bot move {took:.2f} s, twice: {duplicates(client)}")
    assert took < RECOVERY_BOUND_SECONDS
    assert_end_state(service, game_id, archived_before=0)


def test_no_followup_left_and_none_run_twice_without_faults(service, janitor):
    """The control: without a kill, follow-up work is done by the process that made the change, at
    once (the janitor finds nothing), and nothing runs twice."""
    game_id = service.create_game("toy", {"seed": 3, "hand_size": 1})["id"]
    tokens = [service.claim_seat(game_id, name=n).token for n in ("Ann", "Bob")]
    for _ in range(2):
        _, cached = service.viewer_seat(game_id, None)
        seat = toy_game.ToyGame().awaiting(cached.state)[0]
        service.submit_command(
            game_id, tokens[seat], {"type": "play", "card": cached.state["hands"][seat][0]}
        )
    client = service.store.redis
    assert Outbox(client).pending(game_id) == {}
    assert Archive(client).record(game_id)
    assert janitor.tick()["games"] == 0
    assert duplicates(client) == {}
    assert get_game("toy")
