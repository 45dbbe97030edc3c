"""An RQ worker that dies (SIGKILL) right after taking a job off its queue, before starting it:
the moment between RQ's BLMOVE into the queue's intermediate list and its started registry."""

from __future__ import annotations

import os
import signal
from typing import Any

from rq import Worker


class DyingInDequeueWorker(Worker):
    def dequeue_job_and_maintain_ttl(self, *args: Any, **kwargs: Any) -> Any:
        result = super().dequeue_job_and_maintain_ttl(*args, **kwargs)
        if result is not None:
            os.kill(os.getpid(), signal.SIGKILL)
        return result
