"""The live stream under the production server: gunicorn with the gevent worker (gunicorn.conf.py).
Many followers of one game share the process's live listener; each must receive every event
while moves are played, and the stream must end with the game."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import requests

from tests.gunicorn_server import play_toy_turn, start_gunicorn, wait_until_serving

ROOT = Path(__file__).resolve().parents[2]
FOLLOWERS = 30


@pytest.fixture()
def gunicorn(redis_server, redis_client, tmp_path):
    log_path = tmp_path / "gunicorn.log"
    with open(log_path, "wb") as log:
        process, base = start_gunicorn(redis_server.url, log)
        wait_until_serving(process, base, log_path)
        yield base
        process.terminate()
        process.wait(timeout=10)


def test_many_streams_under_gevent_each_get_every_event(gunicorn):
    base = gunicorn
    game = requests.post(f"{base}/v1/games", json={"game": "toy", "config": {"hand_size": 10}}).json()
    tokens = [
        requests.post(f"{base}/v1/games/{game['id']}/seats", json={"name": n}).json()["token"] for n in "AB"
    ]
    received: dict[int, list[int]] = {}
    ended: dict[int, bool] = {}

    def follow(index: int) -> None:
        ids = received.setdefault(index, [])
        headers = {"Authorization": f"Bearer {tokens[index % 2]}"} if index % 3 else {}
        with requests.get(
            f"{base}/v1/games/{game['id']}/stream", headers=headers, stream=True, timeout=30
        ) as response:
            for line in response.iter_lines():
                if line.startswith(b"id: "):
                    ids.append(int(line[4:]))
                elif line == b"event: end":
                    ended[index] = True
                    return

    threads = [threading.Thread(target=follow, args=(i,), daemon=True) for i in range(FOLLOWERS)]
    for thread in threads:
        thread.start()
    # Every follower has the genesis (versions 1-3) before the first move, so the moves reach them
    # live; bounded, not ordered by a guess of how long a loaded machine takes to connect them.
    deadline = time.monotonic() + 60
    while not all(len(received.get(i, ())) >= 3 for i in range(FOLLOWERS)):
        assert time.monotonic() < deadline, "the followers never got the genesis"
        time.sleep(0.02)
    while True:
        view, version = play_toy_turn(base, game["id"], tokens)
        if version is None:
            break
    for thread in threads:
        thread.join(timeout=30)
    final = view["version"]
    assert final == 23
    assert all(ended.get(i) for i in range(FOLLOWERS)), "every stream ends with the game"
    assert all(received[i] == list(range(1, final + 1)) for i in range(FOLLOWERS))
