"""The analysis worker of ``./run serve`` (``worker.idle.IdleAnalysisWorker``) analyses the archive
when its queue is empty, requested games first, through the requests' own job path; off with
``ANALYSIS_IDLE=0``. Real worker processes (``python -m worker``), as the kill tests use."""

from __future__ import annotations

import random

import pytest

from service import composition
from service.analysis import revision
from service.jobs import ANALYSIS_QUEUE
from store import parts
from store.jobs import JobBook
from tests.analysis.test_analysis_api import _play
from tests.worker_processes import rq_worker

IDLE_WORKER = "worker.idle.IdleAnalysisWorker"
TINY = {"ANALYSIS_ITERATIONS": "2", "ANALYSIS_ROLLOUT": "2"}


def _finished_games(svc, count: int) -> list[str]:
    ids = []
    for n in range(count):
        game_id = svc.create_game("condottiere", {"players": 2})["id"]
        tokens = [svc.claim_seat(game_id, name=f"P{s}").token for s in range(2)]
        _play(svc, game_id, tokens, random.Random(30 + n))
        ids.append(game_id)
    return ids


def _stored(svc, game_id: str) -> bool:
    return parts.analyses(svc.store).get(game_id, revision("condottiere")) is not None


def _burst(redis_server, env: dict) -> None:
    worker = rq_worker(redis_server.url, IDLE_WORKER, ANALYSIS_QUEUE, env=env, burst=True)
    _, err = worker.communicate(timeout=400)
    assert worker.returncode == 0, err.decode()


@pytest.mark.timeout(600)
def test_at_idle_the_worker_analyses_the_archive_after_the_requested_games(svc, redis_server, redis_client):
    archived = _finished_games(svc, 3)
    assert len(parts.archive(svc.store).search(limit=10).items) == 3
    analysis = composition.analysis_service(svc.store)
    requested = analysis.request(archived[0], None)  # the oldest: the idle scan would take it last
    assert requested is not None

    _burst(redis_server, TINY)  # a burst worker stops once the archive is analysed too

    assert all(_stored(svc, game_id) for game_id in archived)
    book = JobBook(redis_client)
    # The same request again names each game's job (finished: joined, nothing enqueued).
    jobs = {
        g: analysis.jobs.start("analysis", {"game_id": g, "revision": revision("condottiere")})
        for g in archived
    }
    assert jobs[archived[0]] == requested
    records = {g: book.get(jid) for g, jid in jobs.items()}
    assert all(r.status == "finished" and r.completions == 1 for r in records.values())
    # The request first, then the archive newest first.
    assert sorted(archived, key=lambda g: records[g].started) == [archived[0], archived[2], archived[1]]
    assert analysis.enqueue_idle() is None  # nothing left to do


@pytest.mark.timeout(600)
def test_with_analysis_idle_off_the_worker_only_serves_requests(svc, redis_server):
    archived = _finished_games(svc, 2)
    assert composition.analysis_service(svc.store).request(archived[1], None) is not None
    _burst(redis_server, {**TINY, "ANALYSIS_IDLE": "0"})
    assert _stored(svc, archived[1]) and not _stored(svc, archived[0])
