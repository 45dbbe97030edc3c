"""Starting archive jobs: pick the data version a job depends on, share identical requests, enqueue
on RQ with retries. Used by the API and by the game-finished signal receiver."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

import redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job

from service.faults import fault_point
from store.archive import Archive, game_version
from store.jobs import JobBook

log = logging.getLogger(__name__)

QUEUE = "default"
JOB_TIMEOUT_SECONDS = 15 * 60
# No retry interval: an interval needs a worker running with --with-scheduler to bring the job
# back, and the Procfile worker should not depend on that; a retry starts on the next free worker.
RETRY = dict(max=3)
GAME_KINDS = frozenset({"verify", "game-stats", "export"})
ARCHIVE_KINDS = frozenset({"global-stats", "player-stats", "bulk-export"})


class NoSuchGame(LookupError):
    pass


def data_version(client: redis.Redis, kind: str, params: Mapping[str, Any]) -> str:
    """What the result depends on: a game's version, or the archive's version."""
    if kind in GAME_KINDS:
        found = game_version(client, params["game_id"])
        if found is None:
            raise NoSuchGame(params["game_id"])
        status, version = found
        return f"game:{status}:{version}"
    return f"archive:{Archive(client).version()}"


def start(client: redis.Redis, kind: str, params: Mapping[str, Any]) -> str:
    """The id of the job computing ``kind(params)`` on the current data: a new one enqueued, or the
    one already queued, running or finished for the same request and data."""
    version = data_version(client, kind, params)
    book = JobBook(client)
    jid, created = book.create(kind, params, version)
    if created or not _in_rq(client, jid, book):
        fault_point("between_record_and_enqueue")
        _enqueue(client, jid, kind, params)
    return jid


def _enqueue(client: redis.Redis, jid: str, kind: str, params: Mapping[str, Any]) -> None:
    Queue(QUEUE, connection=client).enqueue(
        "worker.jobs.run",
        jid,
        job_id=jid,
        retry=Retry(**RETRY),
        job_timeout=JOB_TIMEOUT_SECONDS,
        result_ttl=3600,
        failure_ttl=24 * 3600,
        description=f"{kind} {dict(params)}",
    )


def _in_rq(client: redis.Redis, jid: str, book: JobBook) -> bool:
    """False when our record waits for a job RQ does not know (an enqueue lost between the record
    and the queue): the caller enqueues it again."""
    status = book.status(jid)
    if status not in ("queued", "started"):
        return True
    try:
        Job.fetch(jid, connection=client)
    except NoSuchJobError:
        return False
    return True


def rq_status(client: redis.Redis, jid: str) -> str | None:
    try:
        return Job.fetch(jid, connection=client).get_status(refresh=True)
    except NoSuchJobError:
        return None


# -- the game-finished hook --------------------------------------------------------------------


def verify_followup(service: Any, game_id: str, value: str) -> bool:
    """The ``verify`` follow-up action of a finished game (``service.followups``; the ``archive``
    action enters it in the archive): its verify job, recorded and enqueued once (the job id is
    derived from the game's final version, so a second run finds the first job)."""
    try:
        start(service.store.redis, "verify", {"game_id": game_id})
    except NoSuchGame:
        pass
    return True


def connect_signals() -> None:
    """Register the ``verify`` follow-up handler in this process (idempotent)."""
    from service import followups

    followups.register("verify", verify_followup)


def requeue_abandoned(client: redis.Redis, timestamp: float | None = None) -> list[str]:
    """Hand back to the queue the jobs of workers that died mid-job (SIGKILL, lost machine).

    This is RQ's own abandoned-job handling (``StartedJobRegistry.cleanup``): an execution whose
    heartbeat has expired is retried while the job has retries left. Workers run it on their
    maintenance tick; ``timestamp`` lets a caller (a test, an operator) treat heartbeats that
    expire before it as expired now."""
    from rq.registry import StartedJobRegistry

    registry = StartedJobRegistry(QUEUE, connection=client)
    before = set(registry.get_job_ids(cleanup=False))
    registry.cleanup(timestamp=timestamp)
    return sorted(before - set(registry.get_job_ids(cleanup=False)))


# -- reconciliation (run by worker.janitor) -----------------------------------------------------

# A record younger than this is left alone: its creator is normally enqueueing it right now.
RECONCILE_AFTER_SECONDS = 5.0


def reconcile(client: redis.Redis, older_than: float = RECONCILE_AFTER_SECONDS) -> dict[str, int]:
    """Make every pending job record (``store.jobs``) older than ``older_than`` seconds agree with
    RQ: a record whose RQ job is missing (lost between the record and the enqueue, or expired) is
    enqueued again; one whose RQ job failed for good (retries spent, abandoned) is failed, so the
    client sees it and may ask again; a settled record leaves the pending set."""
    book = JobBook(client)
    counts = {"enqueued": 0, "failed": 0, "settled": 0}
    for jid in book.pending_since(time.time() - older_than):
        record = book.get(jid)
        if record is None or record.status in ("finished", "failed"):
            book.settle(jid)
            counts["settled"] += 1
            continue
        status = rq_status(client, jid)
        if status is None or status == "finished":
            # "finished" with an unfinished record: the record was created again after an old run.
            log.warning("job %s (%s) had no RQ job behind it: enqueued again", jid, record.status)
            _enqueue(client, jid, record.kind, record.params)
            counts["enqueued"] += 1
        elif status in ("failed", "stopped", "canceled"):
            problem = {"status": 500, "code": "JOB_FAILED", "title": "The job failed", "detail": status}
            book.fail(jid, problem, final=True)
            counts["failed"] += 1
    return counts


def rescue_lost_dequeues(
    client: redis.Redis,
    seen: dict[tuple[str, str], float],
    min_age: float = 5.0,
    queues: tuple[str, ...] = (),
) -> list[str]:
    """Put back on their queue the jobs a worker took (RQ's BLMOVE into the queue's intermediate
    list) and died before starting: RQ's own maintenance does it only after a minute or more, at its
    ten-minute maintenance tick. ``seen`` (kept by the caller between calls) remembers since when
    each job has sat there; a live worker moves a job out within milliseconds."""
    now = time.monotonic()
    rescued: list[str] = []
    for name in queues or (QUEUE, "bots"):
        queue = Queue(name, connection=client)
        waiting = queue.intermediate_queue.get_job_ids()
        for key in [k for k in seen if k[0] == name and k[1] not in waiting]:
            del seen[key]
        for jid in waiting:
            if jid in queue.started_job_registry:
                seen.pop((name, jid), None)
                continue
            first = seen.setdefault((name, jid), now)
            if now - first < min_age:
                continue
            queue.intermediate_queue.remove(jid)
            if queue.fetch_job(jid) is not None:
                queue.push_job_id(jid)
            seen.pop((name, jid), None)
            rescued.append(jid)
            log.warning("job %s was lost inside a dequeue of %s: put back on the queue", jid, name)
    return rescued
