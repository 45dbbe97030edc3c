"""Starting archive jobs: pick the data version a job depends on, share identical requests, enqueue
on RQ with retries. Used by the API and by the game-finished signal receiver."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job

from store.archive import Archive, game_version
from store.jobs import JobBook

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
    return jid


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


def on_events_appended(sender: Any, **kwargs: Any) -> None:
    """Receiver of ``service.signals.events_appended``: a game that has just finished enters the
    archive and gets a verify job. Cheap (two round trips) and idempotent; the verify job enters
    the game again, so a receiver that failed is healed by the job."""
    if not kwargs.get("finished"):
        return
    client = sender.store.redis
    from store.archive import load_meta, summary_of

    game_id = kwargs["game_id"]
    log = load_meta(client, game_id)
    if log is None or not log.finished:
        return
    if (log.result or {}).get("rated") is not False:  # an aborted game is verified, never archived
        Archive(client).enter(summary_of(log))
    start(client, "verify", {"game_id": game_id})


def connect_signals() -> None:
    """Connect the receiver for the life of this process (idempotent)."""
    from service.signals import connect_receiver

    connect_receiver(on_events_appended)


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
