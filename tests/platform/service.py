"""Start and stop the real service (``python -m launcher serve``) for tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis
import requests
from rq import Worker

from tests.redis_server import free_port

ROOT = Path(__file__).resolve().parents[2]


def start_service(tmp_path: Path, **env_overrides: str) -> tuple[subprocess.Popen, int, Path]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REDIS_PORT")}
    env.update(PORT=str(port), DATA_DIR=str(tmp_path / "data"), WEB_CONCURRENCY="1", RQ_WORKERS="1")
    # The analysis worker analyses the archive at idle by default: not while a test runs the service.
    env.setdefault("ANALYSIS_IDLE", "0")
    env.update(env_overrides)
    log = tmp_path / "service.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "launcher", "serve"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    return process, port, log


def wait_for_health(
    process: subprocess.Popen, port: int, log: Path, timeout: float = 60
) -> requests.Response:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the service exited early:\n{log.read_text()}"
        try:
            return requests.get(f"http://127.0.0.1:{port}/v1/health", timeout=5)
        except (requests.ConnectionError, requests.Timeout):  # not listening yet / worker booting
            time.sleep(0.1)
    raise AssertionError(f"no answer on port {port} within {timeout} s:\n{log.read_text()}")


def wait_for_worker(url: str, count: int = 1, timeout: float = 30) -> list[Worker]:
    connection = redis.Redis.from_url(url)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            workers = Worker.all(connection=connection)
            if len(workers) >= count:
                return workers
            time.sleep(0.1)
        return Worker.all(connection=connection)
    finally:
        connection.close()


def stop_service(process: subprocess.Popen, log: Path, ctrl_c: bool = False) -> int:
    """SIGTERM to the launcher, or (``ctrl_c``) SIGINT to its whole process group, as a terminal's
    Ctrl-C does."""
    if process.poll() is None:
        if ctrl_c:
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        raise AssertionError(f"the service did not stop:\n{log.read_text()}") from None
