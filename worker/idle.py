"""The analysis worker that analyses the archive when nobody asks: ``python -m worker
--worker-class worker.idle.IdleAnalysisWorker analysis`` (the Procfile's ``analysis``).

Whenever every queue it serves is empty, it starts the analysis of the newest archived game that has
none (``AnalysisService.enqueue_idle``), through the same path a request takes (a job record, then
the RQ job: crash-safe, joined by a request for the same game, redone if a worker dies), and then
takes it from the queue like any other job. Requested games come first: a request's job waits on the
queue, so the worker is not idle while there is one (an idle analysis already running is finished
first; it takes minutes at most). It looks again every ``IDLE_POLL_SECONDS`` while nothing is left
to analyse, so a newly archived game is reached within that.

``ANALYSIS_IDLE=0`` turns the idle work off (the worker then only serves requests); a plain
``rq.Worker`` on the queue (the tests' workers) never does it.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from rq import Worker

from service import composition
from service.analysis import AnalysisService
from service.jobs import ANALYSIS_QUEUE
from worker.jobs import analysis_budget
from worker.stores import store_for

log = logging.getLogger(__name__)

IDLE_POLL_SECONDS = 5


def idle_enabled() -> bool:
    return os.environ.get("ANALYSIS_IDLE", "1").strip().lower() not in ("0", "false", "no", "off")


class IdleAnalysisWorker(Worker):
    _analysis: AnalysisService | None = None

    def _idle_tick(self) -> None:
        """Start the next archived game's analysis when every queue served is empty."""
        if any(queue.count for queue in self.queues):
            return
        try:
            if self._analysis is None:
                self._analysis = composition.analysis_service(store_for(self.connection), analysis_budget())
            jid = self._analysis.enqueue_idle()
        except Exception:  # a failed scan must not stop the worker serving requests
            log.exception("idle analysis: the archive scan failed")
            return
        if jid is not None:
            log.info("idle analysis: job %s", jid)

    def dequeue_job_and_maintain_ttl(self, timeout: Any, max_idle_time: Any = None) -> Any:
        if not idle_enabled() or ANALYSIS_QUEUE not in self.queue_names():
            return super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
        idle_since = time.monotonic()
        while True:
            self._idle_tick()
            if timeout is None:  # burst: one look, then done when nothing came
                return super().dequeue_job_and_maintain_ttl(None, max_idle_time)
            result = super().dequeue_job_and_maintain_ttl(IDLE_POLL_SECONDS, IDLE_POLL_SECONDS)
            if result is not None or self._stop_requested:
                return result
            if max_idle_time is not None and time.monotonic() - idle_since >= max_idle_time:
                return None
