"""What telling a job's requester costs (the ``verified`` notice): Redis commands and wall time of
one verify job's run, anonymous or started by a signed-in account (without and with a webhook).

    .venv/bin/python bench/job_notices.py [--games 30]

On a private, throw-away redis-server: ``--games`` finished two-seat toy games (tests/api/toy_game),
each verified once, the three modes taking turns game by game (paired: the same kind of game, the
same moment of a loaded machine). Per run of ``JobService.run`` (the worker's side: the job, its
finish, the notice and the fan-out): Redis commands (INFO commandstats, scripts' own commands
included) and wall time, medians per mode. Starting the job costs the same command in every mode
(the create script takes the account as one more argument).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["COMPACT_DELAY_MS"] = "0"
os.environ["RATE_LIMITS_ENABLED"] = "false"

from api import create_app  # noqa: E402
from service.jobs import JobService  # noqa: E402
from tests.api import toy_game  # noqa: E402
from tests.api.test_accounts import FAST_HASH  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402
from worker.jobs import handlers  # noqa: E402

MODES = ("anonymous", "signed in", "signed in + webhook")


def commands(client) -> int:
    return sum(int(v["calls"]) for v in client.info("commandstats").values())


def session(client, handle: str) -> str:
    body = {"handle": handle, "password": "correct horse"}
    assert client.post("/v1/accounts", json=body).status_code == 201
    return client.post("/v1/sessions", json=body).get_json()["token"]


def finished_game(client) -> str:
    game = client.post("/v1/games", json={"game": "toy", "config": {"seed": 3, "hand_size": 1}}).get_json()[
        "id"
    ]
    tokens = [
        client.post(f"/v1/games/{game}/seats", json={"name": n, "seat": i}).get_json()["token"]
        for i, n in enumerate(("Ann", "Bob"))
    ]
    for token in tokens:
        auth = {"Authorization": f"Bearer {token}"}
        view = client.get(f"/v1/games/{game}/view", headers=auth).get_json()
        client.post(f"/v1/games/{game}/moves", json={"command": view["view"]["legal_moves"][0]}, headers=auth)
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=30)
    args = parser.parse_args()
    toy_game.register()
    server = PrivateRedis()
    try:
        app = create_app(
            {
                "REDIS_URL": server.url,
                "PASSWORD_HASH_PARAMETERS": FAST_HASH,
                "WEBHOOK_ALLOW_PRIVATE_TARGETS": True,
            }
        )
        client = app.test_client()
        plain, hooked = session(client, "Plain"), session(client, "Hooked")
        made = client.post(
            "/v1/me/webhooks",
            json={"url": "http://127.0.0.1:9/hook", "events": ["verified"]},
            headers={"Authorization": f"Bearer {hooked}"},
        )
        assert made.status_code == 201, made.get_json()
        svc = app.extensions["game_service"]
        jobs, work, redis = JobService(svc.store), handlers(svc.store), svc.store.redis
        tokens = {"anonymous": None, "signed in": plain, "signed in + webhook": hooked}
        figures: dict[str, tuple[list[int], list[float]]] = {m: ([], []) for m in MODES}
        for n in range(args.games):
            for mode in MODES[n % 3 :] + MODES[: n % 3]:  # each mode first in turn
                game = finished_game(client)
                headers = {"Authorization": f"Bearer {tokens[mode]}"} if tokens[mode] else {}
                jid = client.post(f"/v1/games/{game}/verify", headers=headers).get_json()["id"]
                before, started = commands(redis), time.perf_counter()
                assert jobs.run(jid, work, retries_left=lambda: False) == "finished"
                elapsed = (time.perf_counter() - started) * 1000
                figures[mode][0].append(commands(redis) - before - 1)  # INFO itself counts once
                figures[mode][1].append(elapsed)
        for mode in MODES:
            count, ms = figures[mode]
            print(
                f"{mode:>20}: {statistics.median(count):5.1f} Redis commands a run, "
                f"median {statistics.median(ms):6.2f} ms (quartiles {statistics.quantiles(ms, n=4)[0]:.2f}"
                f"-{statistics.quantiles(ms, n=4)[2]:.2f} ms), {len(ms)} runs"
            )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
