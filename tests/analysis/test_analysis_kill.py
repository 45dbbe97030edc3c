"""A worker killed with SIGKILL in the middle of an analysis leaves no analysis at all (it is
written in one step at the end), and the job, handed back to the ``analysis`` queue, is done by
the next worker, once."""

from __future__ import annotations

import os
import random
import signal
import time

import pytest

from service.analysis import AnalysisService
from service.jobs import ANALYSIS_QUEUE, JobService
from store import parts
from store.jobs import JobBook
from tests.analysis.test_analysis_api import _play
from tests.worker_processes import kill_worker, rq_worker, wait_for


@pytest.mark.timeout(300)
def test_a_worker_killed_mid_analysis_leaves_nothing_and_the_job_is_redone(
    svc, redis_server, redis_client, queue_client
):
    summary = svc.create_game("condottiere", {"players": 2})
    game_id = summary["id"]
    tokens = [svc.claim_seat(game_id, name=f"P{s}").token for s in range(2)]
    _play(svc, game_id, tokens, random.Random(8))
    service = AnalysisService(svc.store, JobService(svc.store))
    jid = service.request(game_id, None)
    assert jid is not None
    book = JobBook(redis_client)
    revision = service.revision("condottiere")

    slow = {"ANALYSIS_ITERATIONS": "60"}
    first = rq_worker(redis_server.url, "rq.Worker", ANALYSIS_QUEUE, env=slow)
    try:
        wait_for(lambda: (r := book.get(jid)) and r.status == "started" and 0 < r.progress < 0.8, timeout=120)
        kill_worker(first)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    assert parts.analyses(svc.store).get(game_id, revision) is None  # nothing half-written
    assert service.document(game_id) is None
    assert book.get(jid).status == "started" and book.result(jid) is None

    jobs = JobService(svc.store)
    assert jobs.requeue_abandoned(ANALYSIS_QUEUE, timestamp=time.time() + 3600) == [jid]
    second = rq_worker(
        redis_server.url, "rq.Worker", ANALYSIS_QUEUE, env={"ANALYSIS_ITERATIONS": "3"}, burst=True
    )
    _, err = second.communicate(timeout=200)
    assert second.returncode == 0, err.decode()
    record = book.get(jid)
    assert record.status == "finished" and record.completions == 1
    document = service.document(game_id)
    assert document is not None and document["decisions"]
    assert service.request(game_id, None) is None  # stored: nothing more to start
