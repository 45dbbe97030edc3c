"""RQ worker subprocesses for the tests that kill workers (tests/archive/test_worker_kill.py,
tests/faults): start one in a session of its own, find its work horse, kill both, wait for a state."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def rq_worker(
    url: str, worker_class: str, *queues: str, env: dict | None = None, burst: bool = False
) -> subprocess.Popen:
    """``python -m worker`` on ``queues`` with ``env`` added. Its own session, so a kill takes the
    worker's whole process group, as a lost machine or an OOM-killed container would."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "worker",
            *(["--burst"] if burst else []),
            "--url",
            url,
            "--worker-class",
            worker_class,
            "--logging-level",
            "WARNING",
            *queues,
        ],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT), **(env or {})),
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def children(pid: int) -> list[int]:
    """The process ids of ``pid``'s children (a worker's work horse)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def kill_worker(process: subprocess.Popen) -> None:
    """SIGKILL the worker's process group and its work horse (RQ puts the horse in a group of its
    own, so killing the group alone would leave it running)."""
    if process.poll() is not None:
        return
    horses = children(process.pid)
    os.killpg(process.pid, signal.SIGKILL)
    for horse in horses:
        try:
            os.kill(horse, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait(timeout=10)


def wait_for(
    predicate: Callable[[], Any], timeout: float = 60.0, what: str = "condition", interval: float = 0.05
) -> Any:
    """``predicate()``'s first true value, polled every ``interval`` seconds; an AssertionError naming
    ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}")
