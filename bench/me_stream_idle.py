"""Redis commands of idle ``GET /v1/me/stream`` connections.

    .venv/bin/python bench/me_stream_idle.py [--streams 4] [--seconds 60]

On a private, throw-away redis-server, one web process (the Flask app in this process, the
streams read on threads, the configuration's defaults: heartbeat every 15 s), ``--streams``
accounts each open one stream and nothing else happens for ``--seconds``. ``INFO commandstats``
before and after (a Lua script's own commands counted as Redis counts them): the commands per
idle stream per minute, and apart the process's shared live reader (its blocking ``XREAD``, one a
second whatever the number of streams, which every game stream of the process shares too).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argon2  # noqa: E402

from api import create_app  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402

FAST_HASH = argon2.Parameters(
    type=argon2.Type.ID, version=19, salt_len=16, hash_len=32, time_cost=1, memory_cost=8, parallelism=1
)


def calls(client) -> dict[str, int]:
    return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in client.info("commandstats").items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    server = PrivateRedis()
    app = None
    try:
        app = create_app({"REDIS_URL": server.url, "TESTING": True, "PASSWORD_HASH_PARAMETERS": FAST_HASH})
        client = app.test_client()
        redis_client = server.client()
        responses = []
        for n in range(args.streams):
            body = {"handle": f"idle{n}", "password": "correct horse"}
            assert client.post("/v1/accounts", json=body).status_code == 201
            token = client.post("/v1/sessions", json=body).get_json()["token"]
            response = client.get(
                "/v1/me/stream", headers={"Authorization": f"Bearer {token}"}, buffered=False
            )
            assert response.status_code == 200
            responses.append(response)
        opened = threading.Barrier(args.streams + 1)

        def read(response):
            chunks = iter(response.response)
            while b"open_games" not in next(chunks):
                pass
            opened.wait()
            for _ in chunks:  # heartbeats, until the process ends
                pass

        for response in responses:
            threading.Thread(target=read, args=(response,), daemon=True).start()
        opened.wait()
        time.sleep(1.0)  # the streams are in their wait (a measurement window, not an ordering)
        before = calls(redis_client)
        time.sleep(args.seconds)
        after = calls(redis_client)
        delta = {k: after.get(k, 0) - before.get(k, 0) for k in after}
        delta["info"] = delta.get("info", 0) - 1  # this bench's own INFO
        delta = {k: v for k, v in delta.items() if v > 0}
        per_minute = 60.0 / args.seconds
        reader = delta.pop("xread", 0)
        per_stream = {k: round(v * per_minute / args.streams, 2) for k, v in sorted(delta.items())}
        print(f"{args.streams} idle streams, {args.seconds:.0f} s, heartbeat 15 s")
        print(f"per idle stream per minute: {sum(per_stream.values()):.2f} commands {per_stream}")
        print(f"the process's shared live reader: {reader * per_minute:.1f} XREAD per minute")
    finally:
        if app is not None:
            app.extensions["game_service"].live.close()  # before its server goes
        server.stop()


if __name__ == "__main__":
    main()
