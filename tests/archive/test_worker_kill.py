"""A worker killed with SIGKILL in the middle of a job loses nothing: the job is handed back to the
queue by RQ's abandoned-job handling and a new worker runs it to completion, once."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import orjson
import pytest
from rq import Queue
from rq.job import Job
from rq.registry import FailedJobRegistry, StartedJobRegistry

from games import get_game
from games.base import fold
from service.archive import import_finished_game
from service.jobs import JobService
from store import GameStore
from store.archive import Archive
from store.jobs import JobBook
from tests.api import toy_game
from tests.archive.test_replays_generic import play_out
from tests.worker_processes import kill_worker, rq_worker, wait_for

toy_game.register()
GAME = get_game("toy")


def archive_toy_games(client, count: int) -> list[tuple[list[str], list[dict]]]:
    games = []
    for i in range(count):
        events = play_out(seed=100 + i, hand_size=2 + i % 3)
        players = ["Ann", "Bob"] if i % 2 == 0 else ["Bob", "Cid"]
        state = fold(GAME, events)
        import_finished_game(
            GameStore(client),
            game_id=f"toy{i:04d}",
            name="toy",
            title=GAME.title,
            public_config={},
            full_config=events[0]["config"],
            players=players,
            events=events,
            snapshot_state=GAME.state_to_json(state),
            result=GAME.result(state),
            now="2026-11-29T12:00:00Z",
        )
        games.append((players, events))
    return games


def start_worker(url: str, *, burst: bool, delay: float) -> subprocess.Popen:
    return rq_worker(
        url, "tests.archive.rq_support.ToyWorker", "default", env={"TOY_FACTS_DELAY": str(delay)}, burst=burst
    )


@pytest.mark.timeout(120)
def test_sigkill_mid_job_then_a_new_worker_finishes_it_once(
    redis_server, redis_client, queue_client, jobs_store
):
    games = archive_toy_games(redis_client, 12)
    version_before = Archive(redis_client).version()
    jobs = JobService(jobs_store)
    # Bulk export: a job that reads every archived log, one step per game (global statistics were
    # such a job before they became aggregates read in one step: service/aggregates.py).
    params = {"filters": {"game": ["toy"]}}
    jid = jobs.start("bulk-export", params)
    book = JobBook(redis_client)

    first = start_worker(redis_server.url, burst=False, delay=0.25)
    try:
        # Mid-job: started, some progress made, not finished.
        wait_for(lambda: (r := book.get(jid)) and r.status == "started" and 0 < r.progress < 0.9)
        # RQ 3 puts the work horse in a process group of its own (os.setpgrp): kill_worker kills it by
        # pid too, or it lives on, finishes the job after the second worker and the job completes twice.
        kill_worker(first)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    killed = book.get(jid)
    assert killed.status == "started" and killed.completions == 0 and book.result(jid) is None
    assert jid in StartedJobRegistry("default", connection=queue_client).get_job_ids(cleanup=False)

    # RQ's maintenance requeues an execution once its heartbeat (at least 60 s) has expired; the
    # test moves the registry's clock forward instead of sleeping through it.
    assert jobs.requeue_abandoned(timestamp=time.time() + 3600) == [jid]
    assert jid in Queue("default", connection=queue_client).job_ids

    second = start_worker(redis_server.url, burst=True, delay=0)
    _, err = second.communicate(timeout=60)
    assert second.returncode == 0, err.decode()

    record = book.get(jid)
    assert record.status == "finished" and record.attempts == 2 and record.completions == 1
    assert Job.fetch(jid, connection=queue_client).get_status() == "finished"
    assert FailedJobRegistry("default", connection=queue_client).count == 0
    assert Archive(redis_client).version() == version_before  # nothing entered twice

    lines = [orjson.loads(line) for line in book.result(jid).splitlines()]
    assert len(lines) == 12  # each archived game exported once
    by_id = {doc["id"]: doc for doc in lines}
    assert [by_id[f"toy{i:04d}"]["events"] for i in range(12)] == [events for _, events in games]

    # The same request again shares the finished job instead of computing anything.
    assert jobs.start("bulk-export", params) == jid
    assert book.get(jid).attempts == 2
