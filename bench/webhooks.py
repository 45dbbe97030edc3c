"""Webhook deliveries per second per worker, and the added cost per move.

    .venv/bin/python bench/webhooks.py [--deliveries 500] [--games 12] [--seed 1]

On a private, throw-away redis-server, with a receiver on loopback in this process (a
``ThreadingHTTPServer`` answering 204: it shares the machine's cores with the sender, so the
figure is a floor):

* **deliveries per second**: ``--deliveries`` pending deliveries of one subscription, sent by one
  :class:`service.webhook_delivery.Deliverer` (one worker's loop: take with a lease, sign, resolve and check
  the address, POST on a new connection, settle) until none is left;
* **cost per move**: ``--games`` two-player Condottiere games played with random legal moves, both
  seats bound to accounts, each seed played three times, alternating (paired): the accounts with a
  subscription to every event, without one, and with the fan-out switched off (the code before
  webhooks). Per move: wall time of ``submit_command`` (which runs the follow-up work) and Redis
  commands (INFO commandstats, scripts' own commands included).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["COMPACT_DELAY_MS"] = "0"
os.environ["RATE_LIMITS_ENABLED"] = "false"

from api import create_app  # noqa: E402
from schemas.webhooks import EVENTS  # noqa: E402
from service import webhook_events  # noqa: E402
from service.webhook_delivery import Deliverer, WebhookSettings  # noqa: E402
from service.webhooks import WebhookService  # noqa: E402
from store.webhooks import WebhookStore  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402


class Quiet(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def commands(client) -> int:
    return sum(int(v["calls"]) for v in client.info("commandstats").values())


def play(games, seed: int, accounts: list[str]) -> tuple[list[float], int, int]:
    rng = random.Random(seed)
    game_id = games.create_game("condottiere", {"players": 2, "seed": seed})["id"]
    seats = zip(("Ann", "Bob"), accounts, strict=True)
    tokens = [games.claim_seat(game_id, name=n, account=a).token for n, a in seats]
    times: list[float] = []
    spent = 0
    client = games.store.redis
    while True:
        view = games.get_view(game_id).view
        if view is None or view.get("result") is not None:
            return times, spent, len(times)
        seat = rng.choice(view["awaiting"])
        legal = games.get_view(game_id, tokens[seat]).view["legal_moves"]
        command = rng.choice(legal)
        at = commands(client)
        started = time.perf_counter()
        games.submit_command(game_id, tokens[seat], command)
        times.append(time.perf_counter() - started)
        spent += commands(client) - at - 1  # the INFO call itself


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deliveries", type=int, default=500)
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    server = PrivateRedis()
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    receiver.daemon_threads = True
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{receiver.server_address[1]}/hook"
    try:
        app = create_app({"REDIS_URL": server.url})
        games = app.extensions["game_service"]
        accounts = app.extensions["account_service"]
        store = WebhookStore(games.store.redis)
        settings = WebhookSettings(allow_private_targets=True)
        hooks = WebhookService(store, settings)
        ids = []
        for n in range(4):
            accounts.create_account(f"bench{n}", "correct horse battery")
            ids.append(
                accounts.identify(accounts.sign_in(f"bench{n}", "correct horse battery")["token"]).account_id
            )

        # -- deliveries per second per worker
        sub = hooks.subscribe(ids[0], url, list(EVENTS), None, "standard")
        for _ in range(args.deliveries):
            hooks.ping(ids[0], sub["id"])
        sender = Deliverer(store, settings)
        started = time.perf_counter()
        cpu = time.process_time()
        latencies: list[float] = []
        while store.pending(ids[0]):
            latencies += sender.run_once(rehint_every=0).latencies
        elapsed = time.perf_counter() - started
        print(
            f"deliveries: {args.deliveries} in {elapsed:.2f} s = {args.deliveries / elapsed:.0f}/s on one "
            f"worker (process CPU {1000 * (time.process_time() - cpu) / args.deliveries:.2f} ms each, "
            f"receiver included); POST latency median {statistics.median(latencies):.2f} ms, "
            f"p95 {sorted(latencies)[int(0.95 * len(latencies))]:.2f} ms"
        )
        hooks.delete(ids[0], sub["id"])

        # -- the cost per move: with a subscription, without, and without the fan-out at all
        hooks.subscribe(ids[2], url, list(EVENTS), None, "standard")
        hooks.subscribe(ids[3], url, list(EVENTS), None, "standard")
        real_fan_out = webhook_events.fan_out
        arms = {"subscribed": (ids[2], ids[3]), "none": (ids[0], ids[1]), "no fan-out": (ids[0], ids[1])}
        results: dict[str, list[float]] = {k: [] for k in arms}
        spent: dict[str, int] = dict.fromkeys(arms, 0)
        moves: dict[str, int] = dict.fromkeys(arms, 0)
        for g in range(args.games):
            order = list(arms)
            random.Random(g).shuffle(order)
            for arm in order:
                webhook_events.fan_out = real_fan_out if arm != "no fan-out" else (lambda store, account: 0)
                times, used, count = play(games, args.seed + g, list(arms[arm]))
                results[arm] += times
                spent[arm] += used
                moves[arm] += count
        webhook_events.fan_out = real_fan_out
        made = store.pending(ids[2]) + store.pending(ids[3])
        for arm in arms:
            t = results[arm]
            print(
                f"move, {arm:>10}: median {1000 * statistics.median(t):.3f} ms, "
                f"mean {1000 * statistics.mean(t):.3f} ms, "
                f"{spent[arm] / moves[arm]:.2f} Redis commands ({moves[arm]} moves)"
            )
        print(f"deliveries made by the subscribed games: {made} ({made / moves['subscribed']:.2f} a move)")
    finally:
        receiver.shutdown()
        server.stop()


if __name__ == "__main__":
    main()
