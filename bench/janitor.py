"""What the crash-safety machinery costs: the janitor's sweeps and the follow-up work.

    .venv/bin/python bench/janitor.py [--games 200] [--rounds 20]

On a private, throw-away redis-server: creates ``--games`` games (each records one follow-up action,
``index``, done at once by the creating process), then measures, over ``--rounds`` rounds, the
janitor's idle tick (nothing due: one ZRANGE of the slot hints plus the RQ checks), its full scan
of the 16384 due sets (the backstop it runs every 30 s), and a tick that finds ``--games`` games
left pending (as after a crash: their outbox written back and the hints due). Prints milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service import composition  # noqa: E402
from store.outbox import HINTS, due_key, outbox_key, slot_of  # noqa: E402
from tests.api import toy_game  # noqa: E402
from tests.janitors import janitor_for  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    toy_game.register()
    server = PrivateRedis()
    try:
        service = composition.game_service_at(server.url)
        client = service.store.redis
        ids = [service.create_game("toy", {"seed": i, "hand_size": 1})["id"] for i in range(args.games)]
        janitor = janitor_for(service)
        janitor.tick()  # the first tick includes the full scan and the slot table (once per process)
        idle = [timed(janitor.tick) for _ in range(args.rounds)]
        full = [timed(service.followups.outbox.rebuild_hints) for _ in range(max(3, args.rounds // 5))]
        pending = []
        for _ in range(args.rounds):
            pipe = client.pipeline(transaction=False)
            for game_id in ids:  # as if every creating process had died after its commit
                pipe.hset(outbox_key(game_id), "index", "open")
                pipe.zadd(due_key(game_id), {game_id: 0})
                pipe.zadd(HINTS, {str(slot_of(game_id)): 0})
            pipe.execute()
            pending.append(timed(janitor.tick))
        print(f"janitor idle tick:          {statistics.median(idle):8.2f} ms (median of {len(idle)})")
        print(f"full scan of 16384 slots:   {statistics.median(full):8.2f} ms (median of {len(full)})")
        print(
            f"tick with {args.games} games pending: {statistics.median(pending):8.2f} ms "
            f"({statistics.median(pending) / args.games:.3f} ms per game)"
        )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
