"""``python -m launcher serve`` with ``REDIS_URL`` naming a Redis Cluster and no ``RQ_REDIS_URL``
(issue 13): the launcher starts its embedded Redis for RQ's queues (RQ cannot use a cluster), the
games live on the cluster, and the workers it runs play an all-bot game to its end and run its
verify job. Runs in the cluster pass (``--redis-topology=cluster``)."""

from __future__ import annotations

import time

import pytest
import requests

from tests.platform.service import start_service, stop_service, wait_for_health

pytestmark = pytest.mark.timeout(240)


def test_the_launcher_serves_a_cluster_with_its_embedded_redis_for_rq(
    redis_topology, redis_server, redis_client, tmp_path, monkeypatch
):
    if redis_topology != "cluster":
        pytest.skip("needs the private cluster (--redis-topology=cluster)")
    monkeypatch.delenv("RQ_REDIS_URL", raising=False)  # the session names one: the launcher must not
    process, port, log = start_service(tmp_path, REDIS_URL=redis_server.url, RATE_LIMITS_ENABLED="false")
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(process, port, log, timeout=90)
        assert requests.get(f"{base}/v1/health?deep=true", timeout=10).status_code == 200
        created = requests.post(
            f"{base}/v1/games",
            json={"game": "condottiere", "config": {"players": 2}, "bots": {"0": "random", "1": "random"}},
            timeout=10,
        )
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        deadline = time.monotonic() + 120
        while (summary := requests.get(f"{base}/v1/games/{game_id}", timeout=10).json())[
            "status"
        ] != "finished":
            assert time.monotonic() < deadline, summary
            time.sleep(0.5)
        # The game is on the cluster (not on the embedded Redis), and its verify job ran.
        assert redis_client.hget(f"game:{{g:{game_id}}}:meta", "status") == b"finished"
        job = requests.post(f"{base}/v1/games/{game_id}/verify", timeout=10).json()
        while job["status"] not in ("finished", "failed"):
            assert time.monotonic() < deadline, job
            time.sleep(0.5)
            job = requests.get(f"{base}/v1/jobs/{job['id']}", timeout=10).json()
        assert job["status"] == "finished", job
    finally:
        stop_service(process, log)
    text = log.read_text()
    assert "launcher: embedded redis-server at" in text and "RQ's queues on RQ_REDIS_URL=redis://" in text
