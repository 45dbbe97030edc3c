"""``python -m launcher serve`` really starts the service: gunicorn and an RQ worker on an embedded
Redis (issue 3, item 4), and stops everything on SIGTERM."""

from __future__ import annotations

import os
import re
import time

import requests

from launcher.embedded_redis import EmbeddedRedis
from tests.platform.service import start_service, stop_service, wait_for_health, wait_for_worker


def test_serve_runs_api_and_workers_on_embedded_redis_and_stops_cleanly_on_ctrl_c(tmp_path):
    process, port, log = start_service(tmp_path)
    try:
        response = wait_for_health(process, port, log)
        assert response.status_code == 200, response.text

        config = (tmp_path / "data" / "redis" / "redis.conf").read_text()
        redis_port = int(re.search(r"^port (\d+)$", config, re.M).group(1))
        assert redis_port != 6379
        redis_url = f"redis://127.0.0.1:{redis_port}/0"
        workers = wait_for_worker(redis_url, count=3)
        queues = sorted(tuple(worker.queue_names()) for worker in workers)
        # Archive jobs (default) and bot turns (bots); a dedicated bots worker keeps bot turns
        # from waiting behind a long export, and computer analysis (analysis) has a worker of its
        # own, so a long search never delays a move, a bot turn or an export.
        assert queues == [("analysis",), ("bots",), ("default", "bots")], f"{queues}\n{log.read_text()}"
        redis_pid = int((tmp_path / "data" / "redis" / "redis.pid").read_text())
    finally:
        returncode = stop_service(process, log, ctrl_c=True)
    assert returncode == 128 + 2, log.read_text()  # the launcher answers a signal with 128 + its number

    # Everything stopped: the API port is closed and Redis exited (after flushing its AOF).
    try:
        requests.get(f"http://127.0.0.1:{port}/v1/health", timeout=1)
        raise AssertionError("the API still answers after the launcher stopped")
    except requests.ConnectionError:
        pass
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(redis_pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"the embedded redis-server (pid {redis_pid}) outlived the launcher")
    assert "stopping the embedded redis-server" in log.read_text()
    assert (tmp_path / "data" / "redis" / "appendonly.aof").exists()


def test_serve_uses_redis_url_when_set_starts_no_redis_and_stops_on_sigterm(tmp_path, redis_server):
    process, port, log = start_service(tmp_path, REDIS_URL=redis_server.url)
    try:
        response = wait_for_health(process, port, log)
        assert response.status_code == 200, response.text
        assert wait_for_worker(redis_server.url), f"no RQ worker on REDIS_URL:\n{log.read_text()}"
    finally:
        returncode = stop_service(process, log)
    assert returncode == 128 + 15, log.read_text()  # the launcher answers a signal with 128 + its number
    assert not (tmp_path / "data" / "redis").exists()
    assert f"using REDIS_URL={redis_server.url}" in log.read_text()


def test_a_second_service_on_the_same_data_directory_is_refused_plainly(tmp_path):
    with EmbeddedRedis(tmp_path / "data" / "redis") as first:
        process, port, log = start_service(tmp_path)
        returncode = process.wait(timeout=60)
        assert first.client().ping()  # the first one is untouched
    assert returncode == 1
    output = log.read_text()
    assert "in use by another launcher" in output
    assert "Traceback" not in output
