"""The job queues (RQ): enqueueing, a job's status, and the repairs RQ itself makes too late (jobs
lost inside a dequeue, abandoned runs). RQ keeps its own keys in a plain Redis (``RQ_REDIS_URL``,
by default the store's own when that is a plain server; never a cluster, which RQ does not
support), so it gets its connection here like every other Redis user; callers never see the
client."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Any

import redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.registry import StartedJobRegistry

log = logging.getLogger(__name__)

# RQ statuses after which a job will never run again by itself.
GAVE_UP = frozenset({"failed", "stopped", "canceled"})


class QueueRedisRequired(RuntimeError):
    """The event store is a Redis Cluster and no plain Redis was named for RQ (``RQ_REDIS_URL``)."""


def _is_cluster_url(url: str) -> bool:
    return url.split("://", 1)[0] in ("redis+cluster", "rediss+cluster")


def queue_url(store_url: str, rq_url: str | None = None) -> str:
    """The Redis RQ works on: ``rq_url`` (``RQ_REDIS_URL``) when given, else the store's own
    (``REDIS_URL``) when that is a plain server.

    RQ does not support Redis Cluster (its queues, registries and job hashes are plain keys that its
    commands and scripts combine across slots), so a cluster store needs a plain Redis beside it."""
    if rq_url:
        if _is_cluster_url(rq_url):
            raise QueueRedisRequired(f"RQ_REDIS_URL must name a plain Redis, not a cluster: {rq_url}")
        return rq_url
    if _is_cluster_url(store_url):
        raise QueueRedisRequired(
            "REDIS_URL names a Redis Cluster, which RQ cannot use: set RQ_REDIS_URL to a plain Redis"
        )
    return store_url


def queue_connection(url: str, **kwargs: Any) -> redis.Redis:
    """The connection to RQ's Redis (``queue_url``): an RQ worker process works with it (RQ needs a
    plain client, not a pool bound for a web process), enqueuers and the janitor too."""
    if _is_cluster_url(url):
        raise QueueRedisRequired(f"RQ needs a plain Redis, not a cluster: {url}")
    return redis.Redis.from_url(url, **kwargs)


class JobQueues:
    """RQ's queues on one connection."""

    def __init__(self, client: redis.Redis):
        self.client = client

    def enqueue(
        self,
        queue: str,
        function: str,
        *args: Any,
        job_id: str,
        retries: int,
        timeout: int,
        result_ttl: int,
        failure_ttl: int,
        description: str,
    ) -> None:
        """Put ``function(*args)`` (a dotted name: the queue never imports the worker) on ``queue``."""
        Queue(queue, connection=self.client).enqueue(
            function,
            *args,
            job_id=job_id,
            retry=Retry(max=retries),
            job_timeout=timeout,
            result_ttl=result_ttl,
            failure_ttl=failure_ttl,
            description=description,
        )

    def status(self, job_id: str) -> str | None:
        """RQ's status of the job (``queued``, ``started``, ``finished``, ``failed``...), None when RQ
        does not know it (never enqueued, or expired)."""
        try:
            status = Job.fetch(job_id, connection=self.client).get_status(refresh=True)
        except NoSuchJobError:
            return None
        return None if status is None else str(getattr(status, "value", status))

    def first_arg(self, job_id: str) -> Any:
        """The first argument the job was enqueued with (None for an unknown job)."""
        try:
            args = Job.fetch(job_id, connection=self.client).args
        except NoSuchJobError:
            return None
        return args[0] if args else None

    def waiting_in(self, queue: str, job_id: str) -> bool:
        """Is the job on ``queue`` itself, waiting for a worker? (A job a worker took with BLMOVE and
        then died sits in RQ's intermediate list, still "queued", until RQ's maintenance pass.)"""
        return Queue(queue, connection=self.client).get_job_position(job_id) is not None

    def requeue_abandoned(self, queue: str, timestamp: float | None = None) -> list[str]:
        """Hand back to ``queue`` the jobs of workers that died mid-job (SIGKILL, lost machine).

        This is RQ's own abandoned-job handling (``StartedJobRegistry.cleanup``): an execution whose
        heartbeat has expired is retried while the job has retries left. ``timestamp`` lets a caller
        (a test, an operator) treat heartbeats that expire before it as expired now."""
        registry = StartedJobRegistry(queue, connection=self.client)
        before = set(registry.get_job_ids(cleanup=False))
        registry.cleanup(timestamp=timestamp)
        return sorted(before - set(registry.get_job_ids(cleanup=False)))

    def abandon(self, queue: str, job_id: str, started_before: float) -> bool:
        """Treat the execution of ``job_id`` on ``queue`` as abandoned now, as RQ would once its
        heartbeat expired (``requeue_abandoned``): retried while it has retries left, else failed.
        For a run whose death we know sooner than RQ (our own heartbeat, ``store.jobs``). A run RQ
        started at or after ``started_before`` (epoch seconds) is left alone: it may be the retry
        another janitor has just handed back, not yet beating. Returns whether it was abandoned."""
        try:
            job = Job.fetch(job_id, connection=self.client)
        except NoSuchJobError:
            return False
        if job.started_at is None or job.started_at.timestamp() >= started_before:
            return False
        registry = StartedJobRegistry(queue, connection=self.client)
        prefix = f"{job_id}:".encode()
        entries = [entry for entry in self.client.zrange(registry.key, 0, -1) if entry.startswith(prefix)]
        if not entries:
            return False
        # RQ handles abandoned executions by expiry score: this one's expiry is moved to the dawn of
        # time and only executions that old are handled, with RQ's own retry accounting.
        self.client.zadd(registry.key, dict.fromkeys(entries, 1), xx=True)
        registry.cleanup(timestamp=1)
        return True

    def rescue_lost_dequeues(
        self, seen: dict[tuple[str, str], float], queues: Iterable[str], min_age: float = 5.0
    ) -> list[str]:
        """Put back on their queue the jobs a worker took (RQ's BLMOVE into the queue's intermediate
        list) and died before starting: RQ's own maintenance does it only after a minute or more, at
        its ten-minute maintenance tick. ``seen`` (kept by the caller between calls) remembers since
        when each job has sat there; a live worker moves a job out within milliseconds."""
        now = time.monotonic()
        rescued: list[str] = []
        for name in queues:
            queue = Queue(name, connection=self.client)
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
