"""GET /v1/me/stream under gunicorn (issue 31): a stream whose client hangs up gives its place in
the account's bound back at once (api.edge.view_push.HangUpWatch), not at its next heartbeat's write."""

from __future__ import annotations

import time

import requests

from service.accounts import MOST_STREAMS
from tests.gunicorn_server import start_gunicorn, wait_until_serving


def test_a_hung_up_stream_frees_its_place_before_its_next_heartbeat(redis_client, redis_server, tmp_path):
    log_path = tmp_path / "gunicorn.log"
    with open(log_path, "wb") as log:
        # Heartbeats 60 s apart: a place freed only by a failed write would take that long.
        process, base = start_gunicorn(redis_server.url, log, SSE_HEARTBEAT_SECONDS="60")
        try:
            wait_until_serving(process, base, log_path)
            body = {"handle": "Ann", "password": "correct horse"}
            assert requests.post(f"{base}/v1/accounts", json=body).status_code == 201
            token = requests.post(f"{base}/v1/sessions", json=body).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            streams = [
                requests.get(f"{base}/v1/me/stream", headers=auth, stream=True, timeout=30)
                for _ in range(MOST_STREAMS)
            ]
            assert all(s.status_code == 200 for s in streams)
            # Each line reader is kept: one dropped is closed whenever the garbage collector gets
            # to it, and urllib3 then closes its connection, a hang-up the server now notices at
            # once (the stream waits on the live reader, woken by its hang-up watch).
            readers = [s.iter_lines() for s in streams]
            for lines in readers:
                next(lines)  # the stream is open and running
            assert requests.get(f"{base}/v1/me/stream", headers=auth, stream=True).status_code == 429
            streams[0].close()  # hangs up
            started = time.monotonic()
            while True:
                again = requests.get(f"{base}/v1/me/stream", headers=auth, stream=True, timeout=30)
                if again.status_code == 200:
                    again.close()
                    break
                again.close()
                assert time.monotonic() - started < 20, "the hung-up stream still holds its place"
                time.sleep(0.2)  # the next try, not an ordering of events
            for s in streams[1:]:
                s.close()
        finally:
            process.terminate()
            process.wait(timeout=15)
