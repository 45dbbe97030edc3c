"""The ``default`` queue's job: ``run(job_id)``. The job record (``store.jobs``) says what to compute;
the computations are the services' (``service.archive``, ``service.stats``), and ``service.jobs``
records the outcome. A job re-run after a crash recomputes exactly the same thing and overwrites its
own result key (nothing is duplicated).
"""

from __future__ import annotations

import os
from typing import cast

from rq import get_current_job
from rq.job import Job

from bots.search import Budget
from service import composition
from service.jobs import Handler
from store import GameStore
from worker.stores import store_for


def analysis_budget() -> Budget | None:
    """The analysis' search budget per decision when the operator sets one (``ANALYSIS_ITERATIONS``,
    ``ANALYSIS_ROLLOUT``): fewer iterations analyse faster and judge coarser."""
    iterations = os.environ.get("ANALYSIS_ITERATIONS")
    if not iterations:
        return None
    # No playout policy: each game's own (``replays.analysis.budget_for``).
    return Budget(
        iterations=int(iterations), rollout_moves=int(os.environ.get("ANALYSIS_ROLLOUT") or 30), playout=None
    )


def handlers(store: GameStore) -> dict[str, Handler]:
    """Every job kind's computation on ``store`` (built by ``service.composition``)."""
    return composition.job_handlers(store, analysis_budget=analysis_budget())[1]


def run(jid: str) -> str:
    """The entry point RQ runs, on the connection it was started with (``python -m worker``)."""
    job = cast(Job, get_current_job())  # RQ runs it: there is a current job
    # With the operator's analysis budget (ANALYSIS_ITERATIONS), which a worker process reads here.
    jobs, handlers = composition.job_handlers(store_for(job.connection), analysis_budget=analysis_budget())
    return jobs.run(jid, handlers, retries_left=lambda: bool(job.retries_left and job.retries_left > 0))
