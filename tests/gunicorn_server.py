"""The API under the production server for the tests that need real web nodes: gunicorn with the gevent
worker (gunicorn.conf.py), in a subprocess of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.redis_server import free_port

ROOT = Path(__file__).resolve().parents[1]


def start_gunicorn(redis_url: str, log, **extra_env: str) -> tuple[subprocess.Popen, str]:
    """A gunicorn (gevent, gunicorn.conf.py) serving tests/api/gevent_app.py on a free port, on
    ``redis_url`` with ``extra_env``, its log to ``log``; the process and its base URL."""
    port = free_port()
    env = dict(os.environ, REDIS_URL=redis_url, WEB_CONCURRENCY="1", SSE_HEARTBEAT_SECONDS="1", **extra_env)
    env["PYTHONPATH"] = str(ROOT)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--config",
            "gunicorn.conf.py",
            "--bind",
            f"127.0.0.1:{port}",
            "tests.api.gevent_app:app",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    return process, f"http://127.0.0.1:{port}"
