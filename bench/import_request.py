"""What a log import costs the web process (imports are jobs), against the replay it no
longer does.

    .venv/bin/python bench/import_request.py [--rounds 5]

On a private, throw-away redis-server, through the Flask app (test client, no HTTP):

* a real Condottiere log (a random 5-player game, the longest of a few seeds): the POST that queues
  its import job (read the body, keep it in Redis, record and enqueue the job), against the work
  the request used to do and the job does now (``ArchiveService.import_job``: parse, check, replay
  through the rules and store), and their ratio;
* the largest document the route accepts (the real log's events repeated up to its 8 MiB body limit,
  below 100,000 events: shape valid, the job would refuse it): the POST alone.

Prints milliseconds, wall and this process's CPU (median of ``--rounds``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson  # noqa: E402

from api import create_app  # noqa: E402
from api.archive import IMPORT_MAX_BYTES  # noqa: E402
from games import get_game  # noqa: E402
from replays.export import MAX_IMPORT_EVENTS, export_log  # noqa: E402
from service.ids import new_game_id  # noqa: E402
from tests.archive.test_random_games import random_game  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def cpu_timed(fn) -> float:
    """This process's CPU time (ms): without the waits on Redis, which a gevent worker spends on
    other requests, and with the test client's own work of building the request (an upper bound)."""
    started = time.process_time()
    fn()
    return (time.process_time() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    game = get_game("condottiere")
    config = {"ruleset": "2006", "players": 5, "options": {"draw_after_battle": True}}
    events, state = max((random_game(config, seed) for seed in range(1, 6)), key=lambda found: len(found[0]))
    document = export_log(game, events, players=list("ABCDE"), finished=True, result=game.result(state))
    body = orjson.dumps(document)
    # As many events as the route takes: 100,000, or fewer when they would pass its 8 MiB body limit.
    repeats = MAX_IMPORT_EVENTS // len(events) + 1
    count = min(MAX_IMPORT_EVENTS, int(IMPORT_MAX_BYTES * 0.98 / (len(body) / len(events))))
    largest = orjson.dumps(dict(document, events=(events * repeats)[:count], result=None))
    server = PrivateRedis()
    try:
        app = create_app({"REDIS_URL": server.url, "TESTING": True, "RATE_LIMITS_ENABLED": False})
        client = app.test_client()
        archive = app.extensions["archive_service"]

        def post(data: bytes) -> None:
            response = client.post("/v1/archive/import", data=data, content_type="application/json")
            assert response.status_code == 202, response.get_json()

        queue = [timed(lambda: post(body)) for _ in range(args.rounds)]

        def run_job() -> float:
            game_id = new_game_id()
            archive.jobs.book.put_input(game_id, body, 60)
            return timed(lambda: archive.import_job({"game_id": game_id}, lambda fraction: None))

        replay = [run_job() for _ in range(args.rounds)]
        huge = [timed(lambda: post(largest)) for _ in range(args.rounds)]
        huge_cpu = [cpu_timed(lambda: post(largest)) for _ in range(args.rounds)]
        real_cpu = [cpu_timed(lambda: post(body)) for _ in range(args.rounds)]
    finally:
        server.stop()
    real, old = statistics.median(queue), statistics.median(replay)
    print(f"real log: {len(events)} events, {len(body) / 1024:.0f} KiB")
    print(
        f"  POST that queues the import job (web process):  {real:8.2f} ms"
        f"   (CPU {statistics.median(real_cpu):.2f} ms)"
    )
    print(f"  parse, replay and store (the job's work):        {old:8.2f} ms   ({old / real:.1f}x the POST)")
    print(f"largest log: {count:,} events, {len(largest) / 1024 / 1024:.1f} MiB (the body limit)")
    print(
        f"  POST that queues the import job (web process):  {statistics.median(huge):8.2f} ms"
        f"   (CPU {statistics.median(huge_cpu):.2f} ms)"
    )


if __name__ == "__main__":
    main()
