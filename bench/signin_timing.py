"""Sign-in timing: a wrong handle against a wrong password, over HTTP through the app.

    .venv/bin/python bench/signin_timing.py [--rounds 40]

Builds the app (the real Argon2id parameters: argon2-cffi's recommended ones, RFC 9106's
low-memory profile) on a private, throw-away redis-server, creates one account, then sends
``--rounds`` sign-ins of each kind, interleaved (so load on the machine hits both alike): the
right handle with a wrong password, and a handle no account has. Prints the median, the quartiles
and the spread of each, and the difference of the medians against the spread within each kind:
the answers must be the same bytes and their times indistinguishable within that noise (an
unknown handle verifies the password against a dummy hash made with the same parameters).
Also times a successful sign-in and one Argon2id hash alone. Rate limits are off for the bench.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api import create_app  # noqa: E402
from service.accounts import PASSWORD_PROFILE  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402


def summary(name: str, times: list[float]) -> str:
    q1, median, q3 = statistics.quantiles(times, n=4)
    return (
        f"{name:<22} median {median * 1000:7.1f} ms  quartiles {q1 * 1000:7.1f}-{q3 * 1000:7.1f} ms"
        f"  min {min(times) * 1000:7.1f}  max {max(times) * 1000:7.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    server = PrivateRedis()
    try:
        app = create_app({"REDIS_URL": server.url, "RATE_LIMITS_ENABLED": False})
        client = app.test_client()
        assert (
            client.post("/v1/accounts", json={"handle": "Ann", "password": "correct horse"}).status_code
            == 201
        )
        kinds = {
            "wrong password": {"handle": "Ann", "password": "not the password"},
            "unknown handle": {"handle": "Nobody", "password": "not the password"},
        }
        times: dict[str, list[float]] = {name: [] for name in kinds}
        bodies: dict[str, set[bytes]] = {name: set() for name in kinds}
        for _ in range(2):  # warm-up
            for body in kinds.values():
                client.post("/v1/sessions", json=body)
        for _ in range(args.rounds):
            for name, body in kinds.items():
                started = time.perf_counter()
                answer = client.post("/v1/sessions", json=body)
                times[name].append(time.perf_counter() - started)
                assert answer.status_code == 401
                bodies[name].add(answer.get_data())
        right = []
        for _ in range(5):
            started = time.perf_counter()
            assert (
                client.post("/v1/sessions", json={"handle": "Ann", "password": "correct horse"}).status_code
                == 201
            )
            right.append(time.perf_counter() - started)
        hasher = app.extensions["account_service"].hasher
        hashes = []
        for _ in range(5):
            started = time.perf_counter()
            hasher.hash("correct horse")
            hashes.append(time.perf_counter() - started)
        p = PASSWORD_PROFILE
        print(f"Argon2id t={p.time_cost} m={p.memory_cost} KiB p={p.parallelism} (RFC 9106 low-memory)")
        for name in kinds:
            print(summary(name, times[name]))
        print(summary("right password", right + right[:1]))
        print(summary("one hash alone", hashes + hashes[:1]))
        wrong, unknown = (statistics.median(times[name]) for name in kinds)
        spreads = [statistics.quantiles(times[name], n=4) for name in kinds]
        iqr = max(q3 - q1 for q1, _, q3 in spreads)
        print(
            f"medians differ by {abs(wrong - unknown) * 1000:.1f} ms; "
            f"the wider interquartile range: {iqr * 1000:.1f} ms"
        )
        same = bodies["wrong password"] == bodies["unknown handle"] and len(bodies["wrong password"]) == 1
        print("answers: identical bytes" if same else f"answers DIFFER: {bodies}")
        app.extensions["game_service"].live.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
