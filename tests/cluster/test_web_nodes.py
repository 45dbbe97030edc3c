"""Several web nodes on one event store (issue 13): two gunicorn instances (gevent, as deployed) on
different ports, the same Redis Cluster and one queue Redis for RQ, one worker process
(``python -m worker``).

Runs in the cluster pass (``--redis-topology=cluster``, which ``./run test`` runs after the default
pass); on a single server it is skipped, the nodes would only share one process's Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from tests import worker_processes
from tests.api.sse import read_messages
from tests.gunicorn_server import start_gunicorn

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(240)


@pytest.fixture()
def nodes(redis_topology, redis_server, queue_server, redis_client, tmp_path):
    """Two web nodes and one RQ worker (queues ``bots`` and ``default``) on the session's cluster."""
    if redis_topology != "cluster":
        pytest.skip("two web nodes on one event store: runs in the cluster pass (--redis-topology=cluster)")
    env = dict(
        os.environ,
        REDIS_URL=redis_server.url,
        RQ_REDIS_URL=queue_server.url,
        WEB_CONCURRENCY="1",
        SSE_HEARTBEAT_SECONDS="1",
        PYTHONPATH=str(ROOT),
    )
    env.pop("BIND", None)
    processes: list[subprocess.Popen] = []
    bases = []
    try:
        for index in range(2):
            log = open(tmp_path / f"web{index}.log", "wb")  # noqa: SIM115 - closed with the process
            process, base = start_gunicorn(redis_server.url, log, RQ_REDIS_URL=queue_server.url)
            processes.append(process)
            bases.append(base)
        worker_log = open(tmp_path / "worker.log", "wb")  # noqa: SIM115
        processes.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "worker",
                    "--url",
                    redis_server.url,
                    "--queue-url",
                    queue_server.url,
                    "--worker-class",
                    "tests.archive.rq_support.ToyWorker",
                    "--logging-level",
                    "WARNING",
                    "bots",
                    "default",
                ],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=worker_log,
            )
        )
        deadline = time.monotonic() + 90  # a loaded 2-core machine can be slow to boot a worker
        for index, base in enumerate(bases):
            while True:
                try:
                    if requests.get(f"{base}/v1/health?deep=true", timeout=2).status_code == 200:
                        break
                except requests.RequestException:
                    pass
                if processes[index].poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((tmp_path / f"web{index}.log").read_text()[-3000:])
                time.sleep(0.1)
        yield bases
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_for(predicate, timeout: float = 60.0, what: str = "condition"):
    """Polled every 0.1 s: each poll is an HTTP request to a node."""
    return worker_processes.wait_for(predicate, timeout, what, interval=0.1)


def test_a_client_alternating_between_two_nodes_sees_one_game_and_a_stream_on_one_gets_the_others_moves(
    nodes,
):
    a, b = nodes
    node = [a, b]
    game = requests.post(f"{a}/v1/games", json={"game": "toy", "config": {"hand_size": 4, "seed": 9}}).json()
    game_id = game["id"]
    tokens = [
        requests.post(f"{node[i]}/v1/games/{game_id}/seats", json={"name": name}).json()["token"]
        for i, name in enumerate(("Ann", "Bob"))
    ]
    auth = [{"Authorization": f"Bearer {token}"} for token in tokens]
    start = requests.get(f"{b}/v1/games/{game_id}/view", headers=auth[0]).json()
    assert start["status"] == "active"

    # A spectator's stream on node B, while every move goes through node A.
    received: list[int] = []
    ended = threading.Event()

    def follow() -> None:
        with requests.get(f"{b}/v1/games/{game_id}/stream", stream=True, timeout=60) as response:
            assert response.status_code == 200
            for message in read_messages(response.iter_content(chunk_size=None)):
                if message.id is not None:
                    received.append(message.id)
                if message.event == "end":
                    break
        ended.set()

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    # The stream is open and following (it has the genesis) before the first move.
    wait_for(lambda: len(received) >= start["version"], 60, "the stream on node B to open")

    version = start["version"]
    turn = 0
    while True:
        # Read on one node, move on the other, then read the answer back on the first: one game.
        reader, writer = node[turn % 2], node[(turn + 1) % 2]
        summary = requests.get(f"{reader}/v1/games/{game_id}").json()
        assert summary["version"] == version, (summary, version)
        if summary["status"] == "finished":
            break
        seat = summary["awaiting"][0]
        view = requests.get(f"{reader}/v1/games/{game_id}/view", headers=auth[seat]).json()
        assert view["version"] == version
        move = view["view"]["legal_moves"][0]
        answer = requests.post(
            f"{writer}/v1/games/{game_id}/moves",
            json={"command": move, "expected_version": version},
            headers={**auth[seat], "Idempotency-Key": f"alt-{turn}"},
        )
        assert answer.status_code == 200, answer.text
        version = answer.json()["version"]
        again = requests.get(f"{reader}/v1/games/{game_id}/view", headers=auth[seat]).json()
        assert again["version"] == version  # the other node's move, seen at once here
        # The same retry through the other node is answered from the record, not applied twice.
        retry = requests.post(
            f"{reader}/v1/games/{game_id}/moves",
            json={"command": move, "expected_version": version - len(answer.json()["events"])},
            headers={**auth[seat], "Idempotency-Key": f"alt-{turn}"},
        )
        assert retry.status_code == 200 and retry.headers.get("Idempotent-Replayed") == "true"
        assert retry.json()["version"] == version
        turn += 1
    events = requests.get(f"{a}/v1/games/{game_id}/events?limit=500").json()["events"]
    assert [e["version"] for e in events] == list(range(1, version + 1))
    wait_for(lambda: received and received[-1] >= version, 30, "the stream on B to reach the last version")
    moved = [v for v in received if v > start["version"]]
    assert moved == list(range(start["version"] + 1, version + 1)), received


def test_bots_and_archive_jobs_work_behind_two_nodes(nodes):
    a, b = nodes
    created = requests.post(
        f"{a}/v1/games",
        json={
            "game": "condottiere",
            "config": {"players": 3, "seed": 4},
            "bots": {"0": "random", "1": "heuristic"},
        },
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    human = requests.post(f"{b}/v1/games/{game_id}/seats", json={"name": "Cid"}).json()["token"]
    auth = {"Authorization": f"Bearer {human}"}
    # The human plays through both nodes in turn; the RQ worker (on the queue Redis) plays the bots.
    turn = 0
    while True:
        base = (a, b)[turn % 2]
        view = wait_for(
            lambda base=base: (
                (v := requests.get(f"{base}/v1/games/{game_id}/view", headers=auth).json())
                and (v["status"] == "finished" or v["view"].get("legal_moves"))
                and v
            ),
            60,
            "the bots to play",
        )
        if view["status"] == "finished":
            break
        answer = requests.post(
            f"{base}/v1/games/{game_id}/moves",
            json={"command": view["view"]["legal_moves"][0], "expected_version": view["version"]},
            headers=auth,
        )
        assert answer.status_code in (200, 409), answer.text  # 409: a bot moved meanwhile
        turn += 1
        assert turn < 2000
    # Archive jobs: enter the archive (follow-up work), verify through one node, read through the other.
    wait_for(
        lambda: requests.get(f"{b}/v1/archive/{game_id}").status_code == 200,
        30,
        "the finished game to enter the archive",
    )
    job = requests.post(f"{b}/v1/games/{game_id}/verify")
    assert job.status_code == 202, job.text
    location = job.headers["Location"]
    done = wait_for(
        lambda: (j := requests.get(f"{a}{location}").json())["status"] in ("finished", "failed") and j,
        60,
        "the verify job",
    )
    assert done["status"] == "finished", done
    result = requests.get(f"{a}{location}/result")
    assert result.status_code == 200 and result.json()["ok"] is True
