"""A job whose worker dies mid-job (SIGKILL of the RQ worker and its work horse, as a lost machine
or an OOM kill would) is noticed by its own heartbeat (``service.jobs.ALIVE_SECONDS``) and handed
back to RQ by the janitor within a bound, instead of RQ's own 60-90 s heartbeat expiry: the record
finishes, or fails clearly when no retry is left. And a live run, however long, is never taken for
dead. Each test prints the recovery time it measured."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from rq import Worker
from rq.job import Job
from rq.registry import FailedJobRegistry, StartedJobRegistry

from service import GameService
from service.jobs import ALIVE_SECONDS, JobService
from store.jobs import JobBook
from tests.archive.test_worker_kill import archive_toy_games
from tests.janitors import janitor_for
from tests.worker_processes import children, kill_worker, rq_worker, wait_for
from worker.janitor import Janitor

# Heartbeat expiry, a janitor tick or two and the re-run of a short job, on a loaded machine.
RECOVERY_BOUND_SECONDS = ALIVE_SECONDS + 10.0
TOY_WORKER = "tests.archive.rq_support.ToyWorker"


@pytest.fixture()
def workers(redis_server):
    """``start(**env)`` runs an RQ worker on the ``default`` queue until the test ends."""
    started: list[subprocess.Popen] = []

    def start(**env: str) -> subprocess.Popen:
        process = rq_worker(redis_server.url, TOY_WORKER, "default", env=env)
        started.append(process)
        return process

    yield start
    for process in started:
        kill_worker(process)


def kill_horse(process: subprocess.Popen) -> None:
    """SIGKILL only the work horse running the job; the worker itself lives on."""
    for horse in children(process.pid):
        os.kill(horse, signal.SIGKILL)


def start_slow_job(service: GameService) -> str:
    archive_toy_games(service.store.redis, 12)
    # A bulk export reads every archived log, one slowed step per game (tests/archive/rq_support.py);
    # global statistics are read from aggregates in one step (service/aggregates.py)
    return JobService(service.store).start("bulk-export", {"filters": {"game": ["toy"]}})


def kill_mid_job(book: JobBook, jid: str, worker: subprocess.Popen, kill=kill_worker) -> float:
    wait_for(lambda: (r := book.get(jid)) and r.status == "started" and 0 < r.progress < 0.9)
    kill(worker)
    return time.monotonic()


def tick_until(janitor: Janitor, done, bound: float) -> tuple[float, list[dict]]:
    """Tick the janitor (a little more often than ``python -m worker.janitor``) until ``done()``;
    return the seconds it took and the janitor's dead-run reports."""
    started = time.monotonic()
    reports = []
    while time.monotonic() - started < bound:
        reports.append(janitor.tick()["dead_runs"])
        if done():
            return time.monotonic() - started, reports
        time.sleep(0.2)
    raise AssertionError(f"not recovered within {bound} s")


@pytest.mark.timeout(120)
def test_a_job_whose_worker_dies_mid_job_finishes_within_the_bound(
    service, workers, redis_client, queue_client
):
    """The record of a job killed mid-run (``started``, some progress) does not wait for RQ's
    heartbeat expiry: it is queued again and finished by a healthy worker within the bound."""
    book = JobBook(redis_client)
    jid = start_slow_job(service)
    killed_at = kill_mid_job(book, jid, workers(TOY_FACTS_DELAY="0.25"))
    assert book.status(jid) == "started" and book.result(jid) is None
    workers()  # a healthy worker
    janitor = janitor_for(service)
    requeued_after = None
    while time.monotonic() - killed_at < RECOVERY_BOUND_SECONDS:
        report = janitor.tick()["dead_runs"]
        if report["requeued"] and requeued_after is None:
            requeued_after = time.monotonic() - killed_at
        if book.status(jid) == "finished":
            break
        time.sleep(0.2)
    took = time.monotonic() - killed_at
    handed_back = "never" if requeued_after is None else f"after {requeued_after:.2f} s"
    print(f"\ndead worker mid-job: handed back {handed_back}, finished after {took:.2f} s")
    record = book.get(jid)
    assert record.status == "finished", f"still {record.status} {took:.1f} s after the kill"
    assert requeued_after is not None and requeued_after <= ALIVE_SECONDS + 3
    assert record.attempts == 2 and record.completions == 1
    assert Job.fetch(jid, connection=queue_client).get_status() == "finished"
    assert FailedJobRegistry("default", connection=queue_client).count == 0
    assert book.pending_count() == 0


@pytest.mark.timeout(120)
def test_a_job_whose_worker_dies_with_no_retry_left_fails_clearly(
    service, workers, redis_client, queue_client
):
    """No retry left: the record is failed (JOB_FAILED, "the process running it stopped") within the
    bound, so a client stops waiting and may ask again; RQ's job is failed too."""
    book = JobBook(redis_client)
    jid = start_slow_job(service)
    worker = workers(TOY_FACTS_DELAY="0.25")
    wait_for(lambda: book.status(jid) == "started")
    queue_client.hset(f"rq:job:{jid}", "retries_left", 0)  # as if this were its last retry
    killed_at = kill_mid_job(book, jid, worker)
    _, reports = tick_until(
        janitor_for(service),
        lambda: book.status(jid) == "failed",
        RECOVERY_BOUND_SECONDS,
    )
    took = time.monotonic() - killed_at
    print(f"\ndead worker, no retry left: record failed after {took:.2f} s")
    record = book.get(jid)
    assert record.error["code"] == "JOB_FAILED" and "stopped" in record.error["detail"]
    assert {"requeued": 0, "failed": 1} in reports
    assert Job.fetch(jid, connection=queue_client).get_status() == "failed"
    assert book.pending_count() == 0


@pytest.mark.timeout(120)
def test_a_job_whose_work_horse_alone_dies_mid_job_finishes_within_the_bound(
    service, workers, redis_client, queue_client
):
    """Only the work horse is killed (OOM killer): its worker notices and RQ retries the job, which
    the same worker runs again; the record finishes within the bound, once."""
    book = JobBook(redis_client)
    jid = start_slow_job(service)
    killed_at = kill_mid_job(book, jid, workers(TOY_FACTS_DELAY="0.25"), kill=kill_horse)
    tick_until(
        janitor_for(service),
        lambda: book.status(jid) == "finished",
        RECOVERY_BOUND_SECONDS,
    )
    took = time.monotonic() - killed_at
    print(f"\nwork horse killed mid-job: finished after {took:.2f} s")
    record = book.get(jid)
    assert record.attempts == 2 and record.completions == 1
    assert FailedJobRegistry("default", connection=queue_client).count == 0
    assert book.pending_count() == 0


@pytest.mark.timeout(120)
def test_a_live_job_longer_than_its_heartbeat_is_never_taken_for_dead(service, workers, redis_client):
    """A run lasting several heartbeat periods (JOB_ALIVE_SECONDS=1, a job of about 3 s) renews its
    heartbeat: the janitor, ticking all along, never hands it back, and it runs once."""
    book = JobBook(redis_client)
    jid = start_slow_job(service)
    started = time.monotonic()
    workers(TOY_FACTS_DELAY="0.25", JOB_ALIVE_SECONDS="1")
    took, reports = tick_until(
        janitor_for(service),
        lambda: book.status(jid) == "finished",
        60,
    )
    assert took > 2.5, "the job was shorter than its heartbeat: nothing was tested"
    assert all(report == {"requeued": 0, "failed": 0} for report in reports)
    record = book.get(jid)
    assert record.attempts == 1 and record.completions == 1
    print(f"\nlive job of {time.monotonic() - started:.1f} s with a 1 s heartbeat: run once")


def test_a_run_rq_has_just_started_is_not_taken_for_dead(service, redis_client, queue_client):
    """Several janitors may run: one that found a dead run's record must not hand back the retry RQ
    started meanwhile (another janitor handed the job back), before that retry's first heartbeat."""
    jobs = JobService(service.store)
    archive_toy_games(redis_client, 1)
    jid = jobs.start("global-stats", {"game": "toy"})
    jobs.book.started(jid, alive_seconds=0.001)  # the dead attempt: its heartbeat is gone at once
    time.sleep(0.01)
    job = Job.fetch(jid, connection=queue_client)
    worker = Worker(["default"], connection=queue_client)
    worker.prepare_execution(job)  # RQ starts the retry: the worker's side, then the work horse's
    with queue_client.pipeline() as pipeline:  # RQ's own keys: on RQ's Redis
        job.prepare_for_execution(worker.name, pipeline)
        pipeline.execute()
    assert jobs.book.dead_runs() == [jid]
    assert jobs.recover_dead_runs() == {"requeued": 0, "failed": 0}
    assert jid in StartedJobRegistry("default", connection=queue_client).get_job_ids(cleanup=False)
    assert Job.fetch(jid, connection=queue_client).get_status() == "started"
