"""Background jobs (verify, statistics, exports, imports): starting them on the data version their
result depends on, sharing identical requests, reading their records, running one, and reconciling
the records with RQ. The API, the follow-up handlers and the workers call :class:`JobService`; the
records live in ``store.jobs`` and the queue in ``store.queues``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import orjson

from service import webhook_events
from service.faults import fault_point
from store import GameStore, parts
from store.jobs import DEFAULT_ALIVE_SECONDS, RESULT_TTL_SECONDS, JobBook, JobRecord
from store.queues import GAVE_UP, JobQueues

if TYPE_CHECKING:
    from service.ports import StoreHolder

log = logging.getLogger(__name__)

QUEUE = "default"
# Analysis is long and CPU-bound: its own queue, worked by processes of its own (or listed after
# every other queue), so it never holds up the other jobs, the bot turns or the clocks.
ANALYSIS_QUEUE = "analysis"
QUEUES = {"analysis": ANALYSIS_QUEUE}
ALL_QUEUES = (QUEUE, ANALYSIS_QUEUE)
JOB_FUNCTION = "worker.jobs.run"
JOB_TIMEOUT_SECONDS = 15 * 60
# No retry interval: an interval needs a worker running with --with-scheduler to bring the job
# back, and the worker should not depend on that; a retry starts on the next free worker.
RETRIES = 3
# Jobs whose result depends on one game (its version); the others depend on the archive's version,
# except imports, which depend on nothing stored (their document is their whole input).
GAME_KINDS = frozenset({"verify", "game-stats", "export", "analysis"})
# A record younger than this is left alone by the reconciliation: its creator is normally
# enqueueing it right now.
RECONCILE_AFTER_SECONDS = 5.0
# The kinds whose end a signed-in requester is told of, and the event it is told with.
NOTICES = {
    "verify": "verified",
    "export": "export_ready",
    "bulk-export": "export_ready",
    "observations": "export_ready",
}

# A running attempt renews its heartbeat (store.jobs) every ALIVE_SECONDS / 4; the janitor hands the
# job of a started record without one back to RQ. So a run whose process died is noticed within
# ALIVE_SECONDS plus a janitor tick, instead of RQ's own 60-90 s (its execution heartbeat is the
# monitoring interval plus 60 s). Read by the worker process; the janitor only checks the key.
ALIVE_SECONDS = float(os.environ.get("JOB_ALIVE_SECONDS") or DEFAULT_ALIVE_SECONDS)

Progress = Callable[[float], None]
# A job's work: (params, progress) -> (result body, content type).
Handler = Callable[[Mapping[str, Any], Progress], tuple[bytes, str]]


class NoSuchGame(LookupError):
    """A job was asked about a game that does not exist."""


class JobProblem(Exception):
    """A job that cannot succeed whatever the retries (no such game...): reported, not retried."""

    def __init__(self, status: int, code: str, message: str, title: str | None = None, **extra: Any):
        super().__init__(message)
        self.problem = {"status": status, "code": code, "title": title or message, "detail": message, **extra}


class JobService:
    """Jobs on one store: see the module docstring."""

    def __init__(self, store: GameStore):
        self.book = parts.job_book(store)
        self._store = store

    def verify_followup(self, service: StoreHolder, game_id: str, value: str) -> bool:
        """The ``verify`` follow-up action of a finished game (``service.followups``; the ``archive``
        action enters it in the archive): its verify job, recorded and enqueued once (the job id is
        derived from the game's final version, so a second run finds the first job)."""
        try:
            self.start("verify", {"game_id": game_id})
        except NoSuchGame:
            pass
        return True

    @property
    def queues(self) -> JobQueues:
        """RQ's queues, on the store's queue Redis (looked up when first needed: a store on a cluster
        without one still serves everything but jobs)."""
        return self._store.queues

    # -- starting ----------------------------------------------------------------------------------

    def data_version(self, kind: str, params: Mapping[str, Any]) -> str:
        """What the result depends on: a game's version, or the archive's version."""
        if kind in GAME_KINDS:
            found = parts.game_version(self._store, params["game_id"])
            if found is None:
                raise NoSuchGame(params["game_id"])
            status, version = found
            if kind == "export":  # an export carries the game's analysis once one is stored
                stored = parts.analyses(self._store).revisions([params["game_id"]])[0]
                if stored is not None:  # without one, the version every export job had before
                    return f"game:{status}:{version}:{stored}"
            return f"game:{status}:{version}"
        if kind == "import":
            return "document"
        archive = f"archive:{parts.archive(self._store).version()}"
        if kind == "observations":  # its lines carry every stored analysis' values
            analysed = parts.analyses(self._store).stored_count()
            return f"{archive}:analyses:{analysed}" if analysed else archive
        return archive

    def start(self, kind: str, params: Mapping[str, Any], account_id: str | None = None) -> str:
        """The id of the job computing ``kind(params)`` on the current data: a new one enqueued, or
        the one already queued, running or finished for the same request and data. ``account_id``
        (the signed-in requester of a job of :data:`NOTICES`) is recorded with the job, in the step
        that creates or joins it, and told when it finishes; it is no part of the params (nor the
        id): requests of several accounts still share one job."""
        version = self.data_version(kind, params)
        notify = account_id if kind in NOTICES else None
        jid, created = self.book.create(kind, params, version, notify)
        if created or not self._in_rq(jid):
            fault_point("between_record_and_enqueue")
            self._enqueue(jid, kind, params)
        return jid

    def _enqueue(self, jid: str, kind: str, params: Mapping[str, Any]) -> None:
        description = f"{kind} {dict(params)}" if kind != "import" else "import of a log"
        self.queues.enqueue(
            QUEUES.get(kind, QUEUE),
            JOB_FUNCTION,
            jid,
            job_id=jid,
            retries=RETRIES,
            timeout=JOB_TIMEOUT_SECONDS,
            result_ttl=3600,
            failure_ttl=24 * 3600,
            description=description[:200],
        )

    def _in_rq(self, jid: str) -> bool:
        """False when our record waits for a job RQ does not know (an enqueue lost between the record
        and the queue): the caller enqueues it again."""
        if self.book.status(jid) not in ("queued", "started"):
            return True
        return self.queues.status(jid) is not None

    # -- reading -----------------------------------------------------------------------------------

    def get(self, jid: str) -> JobRecord | None:
        """The job's record; a record RQ gave up on outside our code (it could not even start the
        job, or gave up on an abandoned run with no retry left) is failed first, so a client never
        reads "queued" for ever."""
        record = self.book.get(jid)
        if (
            record is not None
            and record.status in ("queued", "started")
            and self.queues.status(jid) in GAVE_UP
        ):
            self.book.fail(jid, {"status": 500, "code": "JOB_FAILED", "title": "The job failed"}, final=True)
            record = self.book.get(jid)
        return record

    def result(self, jid: str) -> bytes | None:
        """The finished job's result (None before it finished or after it expired)."""
        return self.book.result(jid)

    def finished_result(self, jid: str) -> bytes | None:
        """The result when the job has finished, else None."""
        record = self.book.get(jid)
        return self.book.result(jid) if record is not None and record.status == "finished" else None

    # -- running (the worker's side) ---------------------------------------------------------------

    def run(self, jid: str, handlers: Mapping[str, Handler], retries_left: Callable[[], bool]) -> str:
        """Run job ``jid`` with the handler of its kind and record the outcome. ``retries_left``
        says whether RQ will run it again after an unexpected error (then the record stays queued)."""
        record = self.book.get(jid)
        if record is None:
            return "gone"  # the record expired: nobody waits for this result any more
        self.book.started(jid, ALIVE_SECONDS)
        with _Heartbeat(self.book, jid):
            return self._run_started(jid, record, handlers, retries_left)

    def _run_started(
        self, jid: str, record: JobRecord, handlers: Mapping[str, Handler], retries_left: Callable[[], bool]
    ) -> str:
        handler = handlers[record.kind]
        last = [0.0]

        def progress(fraction: float) -> None:
            if fraction - last[0] >= 0.05 or fraction >= 1.0:
                last[0] = fraction
                self.book.progress(jid, fraction)

        try:
            body, content_type = handler(record.params, progress)
        except JobProblem as problem:
            self.book.fail(jid, problem.problem, final=True)
            return "problem"
        except Exception as error:
            self.book.fail(
                jid,
                {
                    "status": 500,
                    "code": "JOB_FAILED",
                    "title": "The job failed",
                    "detail": type(error).__name__,
                },
                final=not retries_left(),
            )
            raise
        if self.book.finish(jid, body, content_type):
            fault_point("between_job_finish_and_announce")
            try:
                self.announce(jid)
            except Exception:  # noqa: BLE001 - the notice is due in the finish's step: the janitor sends it
                log.warning("job %s: its notices are left to the janitor", jid, exc_info=True)
        return "finished"

    # -- telling the accounts that asked ------------------------------------------------

    def announce(self, jid: str) -> int:
        """Put ``jid``'s notice (``verified``, ``export_ready``) on the feed of every account that
        asked for it while signed in, and turn it into their webhooks' deliveries; then the notice
        is no longer due. Idempotent (the worker and the janitor may both run it, a retried run
        finishes twice): each account's feed gets the notice of one record once. Returns how many
        feeds got it now."""
        record = self.book.get(jid)
        told = 0
        if record is not None and record.status == "finished" and record.kind in NOTICES:
            kind, data = NOTICES[record.kind], self._notice_data(record)
            hooks = parts.webhooks(self._store)
            for account_id in self.book.notified(jid):
                notice = f"{jid}@{record.created}"  # one per record: a record made anew is told again
                told += webhook_events.job_finished(
                    hooks, account_id, notice, kind, data, RESULT_TTL_SECONDS * 2
                )
        self.book.announced(jid)
        return told

    def _notice_data(self, record: JobRecord) -> dict[str, Any]:
        """What a notice says: the job, its result's link, the game; a verification's verdict. Never
        the requester, a viewer's seat or anything of the result but the verdict."""
        data: dict[str, Any] = {
            "job_id": record.id,
            "job": record.kind,
            "result": f"/v1/jobs/{record.id}/result",
        }
        if "game_id" in record.params:
            data["game_id"] = record.params["game_id"]
        if "format" in record.params:
            data["format"] = record.params["format"]
        if record.kind == "verify":
            body = self.book.result(record.id)
            report = orjson.loads(body) if body else {}
            data["ok"] = bool(report.get("ok"))
        return data

    def announce_due(self, older_than: float = 0.0) -> int:
        """The janitor's side: send the notices of finished jobs still due (the worker that
        finished them died before sending them, or Redis failed it)."""
        return sum(self.announce(jid) for jid in self.book.announcing(time.time() - older_than))

    # -- repairs (the janitor's side) --------------------------------------------------------------

    def reconcile(self, older_than: float = RECONCILE_AFTER_SECONDS) -> dict[str, int]:
        """Make every pending job record older than ``older_than`` seconds agree with RQ: a record
        whose RQ job is missing (lost between the record and the enqueue, or expired) is enqueued
        again; one whose RQ job failed for good (retries spent, abandoned) is failed, so the client
        sees it and may ask again; a settled record leaves the pending set."""
        counts = {"enqueued": 0, "failed": 0, "settled": 0}
        for jid in self.book.pending_since(time.time() - older_than):
            record = self.book.get(jid)
            if record is None or record.status in ("finished", "failed"):
                self.book.settle(jid)
                counts["settled"] += 1
                continue
            status = self.queues.status(jid)
            if status is None or status == "finished":
                # "finished" with an unfinished record: the record was created again after an old run.
                log.warning("job %s (%s) had no RQ job behind it: enqueued again", jid, record.status)
                self._enqueue(jid, record.kind, record.params)
                counts["enqueued"] += 1
            elif status in GAVE_UP:
                problem = {"status": 500, "code": "JOB_FAILED", "title": "The job failed", "detail": status}
                self.book.fail(jid, problem, final=True)
                counts["failed"] += 1
        return counts

    def recover_dead_runs(self) -> dict[str, int]:
        """Hand back to RQ the jobs whose run died with its process (a started record whose heartbeat
        expired): RQ retries such a job while it has retries left (the record shows ``queued`` again)
        and fails it after (the record is failed, so the client sees it at once)."""
        counts = {"requeued": 0, "failed": 0}
        for jid in self.book.dead_runs():
            status = self.queues.status(jid)
            if status == "started":
                record = self.book.get(jid)
                queue = QUEUES.get(record.kind, QUEUE) if record is not None else QUEUE
                if not self.queues.abandon(queue, jid, started_before=time.time() - ALIVE_SECONDS):
                    continue  # a run RQ has just started (a retry): its heartbeat is on its way
                status = self.queues.status(jid)
            if status in GAVE_UP:
                log.warning("job %s: its worker died and no retry is left: failed", jid)
                problem = {
                    "status": 500,
                    "code": "JOB_FAILED",
                    "title": "The job failed",
                    "detail": "The process running it stopped.",
                }
                self.book.fail(jid, problem, final=True)
                counts["failed"] += 1
            elif status not in (None, "started") and self.book.back_to_queued(jid):
                log.warning("job %s: its worker died mid-job: queued again (RQ status %s)", jid, status)
                counts["requeued"] += 1
            # No RQ job at all: reconcile() enqueues it again.
        return counts

    def rescue_lost_dequeues(self, seen: dict[tuple[str, str], float], queues: tuple[str, ...]) -> list[str]:
        """See :meth:`store.queues.JobQueues.rescue_lost_dequeues`."""
        return self.queues.rescue_lost_dequeues(seen, queues)

    def requeue_abandoned(self, queue: str = QUEUE, timestamp: float | None = None) -> list[str]:
        """See :meth:`store.queues.JobQueues.requeue_abandoned`."""
        return self.queues.requeue_abandoned(queue, timestamp)


class _Heartbeat:
    """Renews a running attempt's heartbeat from a daemon thread until the block ends: the thread
    dies with the process, which is the point. A beat that fails (Redis away) is retried at the next
    interval; if Redis stays away longer than ALIVE_SECONDS, the run is taken for dead and runs again
    (jobs are idempotent: a second run recomputes the same result)."""

    def __init__(self, book: JobBook, jid: str):
        self._book = book
        self._jid = jid
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat {jid}", daemon=True)

    def _beat(self) -> None:
        while not self._stop.wait(ALIVE_SECONDS / 4):
            try:
                self._book.beat(self._jid, ALIVE_SECONDS)
            except Exception:  # noqa: BLE001 - Redis away: the next beat may get through
                log.warning("job %s: heartbeat failed", self._jid, exc_info=True)

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
