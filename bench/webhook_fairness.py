"""Webhook delivery fairness: the delay of deliveries to well-behaved receivers while one account's
receiver never answers.

    .venv/bin/python bench/webhook_fairness.py [--accounts 10] [--seconds 30] [--every 0.5]

On a private, throw-away redis-server: ``--accounts`` accounts with one subscription each; one of
them (the "silent" account) points at a receiver on 127.0.0.1 that accepts connections and never
answers, the others at a receiver on 127.0.0.1 that answers 204 at once. For ``--seconds``, every
``--every`` seconds each account gets a new delivery (a ping record, as the API makes them). The
delivery loop is the real one, ``python -m worker.webhooks`` in its own process with the default
settings (3 s connect, 5 s read timeouts, backoff from 5 s), run twice: with
``WEBHOOK_CONCURRENCY`` at its default (one task per account at a time) and at 1 (accounts served
one after another, as the loop did before it was concurrent). The delay of a delivery is its
arrival at the receiver minus its creation; the figures are the other accounts' p50 and p99, each
with a 95 % bootstrap confidence interval (2,000 resamples), and the silent account's attempts.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from schemas.webhooks import EVENTS  # noqa: E402
from service.webhook_delivery import WebhookSettings  # noqa: E402
from service.webhooks import WebhookService  # noqa: E402
from store.webhooks import WebhookStore  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402

ARRIVALS: dict[str, float] = {}
LOCK = threading.Lock()


class Quick(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        at = time.time()
        with LOCK:
            ARRIVALS.setdefault(self.headers["webhook-id"], at)
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


class Silent:
    """Accepts every connection and never reads or answers (the connections are kept open)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.held: list[socket.socket] = []
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/hook"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self):
        self.sock.close()
        for conn in self.held:
            conn.close()


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def interval(values: list[float], q: float, rng: random.Random) -> tuple[float, float, float]:
    estimates = sorted(quantile(rng.choices(values, k=len(values)), q) for _ in range(2000))
    return quantile(values, q), estimates[50], estimates[1949]


def run(url: str, concurrency: int | None, args: argparse.Namespace, quick_url: str) -> None:
    client = redis.Redis.from_url(url)
    client.flushall()
    with LOCK:
        ARRIVALS.clear()
    silent = Silent()
    store = WebhookStore(client)
    hooks = WebhookService(store, WebhookSettings(allow_private_targets=True))
    accounts = [f"bench{n:02d}" for n in range(args.accounts)]
    subs = {
        a: hooks.subscribe(a, silent.url if n == 0 else quick_url, list(EVENTS), None, "standard")["id"]
        for n, a in enumerate(accounts)
    }
    env = dict(os.environ, PYTHONPATH=str(ROOT), REDIS_URL=url, WEBHOOK_ALLOW_PRIVATE_TARGETS="1")
    if concurrency is not None:
        env["WEBHOOK_CONCURRENCY"] = str(concurrency)
    worker = subprocess.Popen(
        [sys.executable, "-m", "worker.webhooks"], cwd=ROOT, env=env, stderr=subprocess.DEVNULL
    )
    created: dict[str, tuple[str, float]] = {}
    try:
        time.sleep(1.0)  # the worker's start (imports)
        started = time.time()
        n = 0
        while time.time() - started < args.seconds:
            for account in accounts:
                now = time.time()
                did = f"msg_{subs[account]}_bench_{n}"
                record = {
                    "id": did,
                    "sub": subs[account],
                    "type": "ping",
                    "ms": int(now * 1000),
                    "data": {},
                    "attempts": 0,
                    "created_ms": int(now * 1000),
                }
                store.add_delivery(account, record, int(now * 1000))
                created[did] = (account, now)
            n += 1
            time.sleep(max(0.0, started + n * args.every - time.time()))
        others = {d for d, (a, _) in created.items() if a != accounts[0]}
        deadline = time.time() + 60
        while time.time() < deadline:
            with LOCK:
                if others <= ARRIVALS.keys():
                    break
            time.sleep(0.1)
        with LOCK:
            delays = [ARRIVALS[d] - created[d][1] for d in others if d in ARRIVALS]
        missing = len(others) - len(delays)
        attempts = client.llen(f"hook:{{a:{accounts[0]}}}:log:{subs[accounts[0]]}")
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        silent.close()
        client.close()
    rng = random.Random(1)
    p50, p99 = interval(delays, 0.50, rng), interval(delays, 0.99, rng)
    label = f"WEBHOOK_CONCURRENCY={concurrency}" if concurrency is not None else "default concurrency"
    print(
        f"{label}: {len(delays)} deliveries to the {args.accounts - 1} other accounts "
        f"({missing} not delivered within 60 s of the end): delay p50 {p50[0]:.3f} s "
        f"[95% CI {p50[1]:.3f}-{p50[2]:.3f}], p99 {p99[0]:.3f} s [95% CI {p99[1]:.3f}-{p99[2]:.3f}], "
        f"max {max(delays):.3f} s; the silent account's attempts logged: {attempts}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--accounts", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--every", type=float, default=0.5)
    parser.add_argument("--sequential", action="store_true", help="also run with WEBHOOK_CONCURRENCY=1")
    args = parser.parse_args()
    server = PrivateRedis()
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Quick)
    receiver.daemon_threads = True
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    quick_url = f"http://127.0.0.1:{receiver.server_address[1]}/hook"
    try:
        run(server.url, None, args, quick_url)
        if args.sequential:
            run(server.url, 1, args, quick_url)
    finally:
        receiver.shutdown()
        server.stop()


if __name__ == "__main__":
    main()
