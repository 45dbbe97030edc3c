"""The web process's CPU per move by the kind of token that sends it, with rate limits on: a seat's
own token, an account's session token (scopes read and play) and a bot's personal token of scope
``play`` alone, each through the move's hot path (``api/edge/move_path.py``) and through Flask
alone (``MOVE_FAST_PATH`` off), in one process against an embedded redis-server.

    /work/main/.venv/bin/python bench/account_moves.py [--games 6] [--rounds 5]

Each round plays, for each of the six (token kind, path) pairs in turn, ``--games`` whole
two-player Condottiere games (the same seeds for every pair); a move is the WSGI call of
``POST /v1/games/{id}/moves`` alone (its view is read apart, untimed), timed with the process's CPU
clock (``time.process_time``: the web side's CPU, Redis's apart). Printed: per pair, the median CPU
per move over the rounds with the min-max spread, and each account token's ratio to the seat token
on the same path (median of the per-round ratios: the pairs of one round share the machine's load).
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import argon2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api import create_app  # noqa: E402
from launcher.embedded_redis import EmbeddedRedis  # noqa: E402

KINDS = ("seat token", "session token", "play-only token")
PASSWORD = "correct horse battery"
# Sign-ups are not what is measured: the cheapest Argon2id the hasher takes.
FAST_HASH = argon2.Parameters(
    type=argon2.Type.ID, version=19, salt_len=16, hash_len=32, time_cost=1, memory_cost=8, parallelism=1
)


def _call(app: Any, method: str, path: str, token: str | None, body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else b""
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "bench",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(data),
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    if body is not None:
        environ["CONTENT_TYPE"] = "application/json"
        environ["CONTENT_LENGTH"] = str(len(data))
    if token is not None:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    status: list[str] = []
    chunks = app.wsgi_app(environ, lambda s, h, e=None: status.append(s))
    raw = b"".join(chunks)
    if hasattr(chunks, "close"):
        chunks.close()
    return int(status[0].split()[0]), json.loads(raw) if raw else None


def _tokens(app: Any, kind: str, handle: str) -> tuple[str, str]:
    """(the token moves are sent with, a token that reads the seat's view)."""
    _call(app, "POST", "/v1/accounts", None, {"handle": handle, "password": PASSWORD})
    _, session = _call(app, "POST", "/v1/sessions", None, {"handle": handle, "password": PASSWORD})
    if kind == "session token":
        return session["token"], session["token"]
    _, made = _call(app, "POST", "/v1/me/tokens", session["token"], {"name": "bot", "scopes": ["play"]})
    return made["token"], session["token"]


def play(app: Any, kind: str, seed: int, serial: int) -> tuple[float, int]:
    """One whole game; seat 0 moves with a token of ``kind``. (CPU seconds of seat 0's move calls,
    their count)."""
    _, game = _call(
        app, "POST", "/v1/games", None, {"game": "condottiere", "config": {"players": 2, "seed": seed}}
    )
    gid = game["id"]
    if kind == "seat token":
        _, claimed = _call(app, "POST", f"/v1/games/{gid}/seats", None, {"name": "Ann", "seat": 0})
        mover = reader = claimed["token"]
    else:
        mover, reader = _tokens(app, kind, f"b{serial}")
        _call(app, "POST", f"/v1/games/{gid}/seats", reader, {"seat": 0})
    _, bob = _call(app, "POST", f"/v1/games/{gid}/seats", None, {"name": "Bob", "seat": 1})
    readers = {0: reader, 1: bob["token"]}
    movers = {0: mover, 1: bob["token"]}
    spent, moves = 0.0, 0
    for _ in range(2000):
        _, seen = _call(app, "GET", f"/v1/games/{gid}/view", None)
        if seen["status"] == "finished":
            return spent, moves
        seat = seen["view"]["awaiting"][0]
        _, mine = _call(app, "GET", f"/v1/games/{gid}/view", readers[seat])
        command = mine["view"]["legal_moves"][0]
        started = time.process_time()
        status, _ = _call(app, "POST", f"/v1/games/{gid}/moves", movers[seat], {"command": command})
        if seat == 0:
            spent += time.process_time() - started
            moves += 1
        assert status == 200, status
    raise SystemExit("a game did not end")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendfsync="no").start()
        try:
            apps = {
                fast: create_app(
                    {
                        "REDIS_URL": server.url,
                        "RATE_LIMITS_ENABLED": True,
                        "RATE_LIMIT_MOVE": "100000/hour",
                        "RATE_LIMIT_CLAIM": "100000/hour",
                        "RATE_LIMIT_SIGN_UP": "100000/hour",
                        "RATE_LIMIT_SIGN_IN": "100000/hour",
                        "RATE_LIMIT_CREATE": "100000/hour",
                        "RATE_LIMIT_SEAT_ACTION": "100000/hour",
                        "PASSWORD_HASH_PARAMETERS": FAST_HASH,
                        "MOVE_FAST_PATH": fast,
                    }
                )
                for fast in (True, False)
            }
            per: dict[tuple[str, str], list[float]] = {}
            ratios: dict[tuple[str, str], list[float]] = {}
            serial = 0
            for _ in range(args.rounds):
                this: dict[tuple[str, str], float] = {}
                for path, fast in (("hot path", True), ("Flask", False)):
                    for kind in KINDS:
                        spent, moves = 0.0, 0
                        for seed in range(1, args.games + 1):
                            serial += 1
                            s, m = play(apps[fast], kind, seed, serial)
                            spent, moves = spent + s, moves + m
                        this[(kind, path)] = spent / moves * 1e6
                for (kind, path), us in this.items():
                    per.setdefault((kind, path), []).append(us)
                    if kind != "seat token":
                        ratios.setdefault((kind, path), []).append(us / this[("seat token", path)])
            for (kind, path), values in per.items():
                print(
                    f"{path:8} {kind:16} {statistics.median(values):7.0f} us/move"
                    f" [{min(values):.0f}-{max(values):.0f}]"
                )
            for (kind, path), values in ratios.items():
                print(
                    f"{path:8} {kind:16} / seat token: x{statistics.median(values):.2f}"
                    f" [{min(values):.2f}-{max(values):.2f}]"
                )
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
