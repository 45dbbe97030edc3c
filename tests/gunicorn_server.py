"""The API under the production server for the tests that need real web nodes: gunicorn with the gevent
worker (gunicorn.conf.py), in a subprocess of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import requests

from tests.redis_server import free_port

ROOT = Path(__file__).resolve().parents[1]


def start_gunicorn(
    redis_url: str, log, app: str = "tests.api.gevent_app:app", **extra_env: str
) -> tuple[subprocess.Popen, str]:
    """A gunicorn (gevent, gunicorn.conf.py) serving ``app`` (tests/api/gevent_app.py) on a free
    port, on ``redis_url`` with ``extra_env``, its log to ``log``; the process and its base URL."""
    port = free_port()
    env = dict(os.environ, REDIS_URL=redis_url, WEB_CONCURRENCY="1", SSE_HEARTBEAT_SECONDS="1")
    env.update(extra_env)
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
            app,
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    return process, f"http://127.0.0.1:{port}"


def wait_until_serving(process: subprocess.Popen, base: str, log_path: Path | None = None) -> None:
    """Wait until the gunicorn of ``start_gunicorn`` answers ``GET /v1/health``; an AssertionError
    (with the end of its log, if given) when it exits first or takes over a minute (a loaded 2-core
    machine can be slow to boot a worker)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            requests.get(f"{base}/v1/health", timeout=1)
            return
        except requests.RequestException:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                log = log_path.read_text()[-3000:] if log_path is not None else ""
                raise AssertionError(f"gunicorn did not start\n{log}") from None
            time.sleep(0.1)


def play_toy_turn(base: str, game_id: str, tokens: list[str]) -> tuple[dict, int | None]:
    """One turn of a toy game over HTTP: the seat whose turn it is plays its first card. Returns the
    public view read before the turn and the version the move reached (None: the game was over)."""
    view = requests.get(f"{base}/v1/games/{game_id}/view").json()
    if view["status"] == "finished":
        return view, None
    seat = view["view"]["turn"]
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    hand = requests.get(f"{base}/v1/games/{game_id}/view", headers=auth).json()["view"]["hand"]
    moved = requests.post(
        f"{base}/v1/games/{game_id}/moves", json={"command": {"type": "play", "card": hand[0]}}, headers=auth
    )
    assert moved.status_code == 200, moved.text
    return view, moved.json()["version"]
