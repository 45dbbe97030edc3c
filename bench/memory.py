"""Redis memory per game: running, finished, with and without idempotency keys.

    .venv/bin/python bench/memory.py [--games 50] [--players 4] [--seed 1]

Plays ``--games`` games of ``--players`` seats through the service (``GameService``: the same code
path as the API, random legal moves chosen from each seat's own view) on a private, throw-away
redis-server (never the machine's default port), twice: once without and once with an
``Idempotency-Key`` on every move. For each finished game it sums ``MEMORY USAGE`` over the game's
own keys (``game:{g:<id>}:*``), and prints the mean bytes per finished game, the share of each kind
of key, the size of the whole log compressed with zlib (the floor a compact archive can reach), and
the projection for one million archived games. ``used_memory`` deltas are printed too: they include
the cross-game indexes and the allocator's overhead.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import zlib
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson  # noqa: E402

from service.games import GameService  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]


def play_game(service: GameService, players: int, rng: random.Random, idempotency: bool) -> str:
    summary = service.create_game("condottiere", {"players": players})
    game_id = summary["id"]
    tokens = [service.claim_seat(game_id, name=NAMES[s]).token for s in range(players)]
    moves = 0
    while True:
        view = service.get_view(game_id).view
        if view is None or view.get("result") is not None:
            return game_id
        seat = rng.choice(view["awaiting"])
        legal = service.get_view(game_id, tokens[seat]).view["legal_moves"]
        key = f"move-{moves}" if idempotency else None
        service.submit_command(game_id, tokens[seat], rng.choice(legal), idempotency_key=key)
        moves += 1


def key_kind(key: bytes) -> str:
    return key.decode().rsplit(":", 1)[-1]


def measure(client, game_ids: list[str]) -> tuple[list[int], dict[str, list[int]], list[int], list[int]]:
    totals: list[int] = []
    by_kind: dict[str, list[int]] = defaultdict(list)
    compressed: list[int] = []
    raw_logs: list[int] = []
    for game_id in game_ids:
        total = 0
        for key in client.scan_iter(match=f"game:{{g:{game_id}}}:*", count=100):
            usage = client.memory_usage(key, samples=0) or 0
            total += usage
            by_kind[key_kind(key)].append(usage)
        totals.append(total)
        entries = client.xrange(f"game:{{g:{game_id}}}:events")
        log = orjson.dumps([orjson.loads(fields[b"e"]) for _, fields in entries])
        raw_logs.append(len(log))
        compressed.append(len(zlib.compress(log, 9)))
    return totals, by_kind, compressed, raw_logs


def run(server: PrivateRedis, games: int, players: int, seed: int, idempotency: bool) -> None:
    client = server.client()
    client.flushall()
    before = client.info("memory")["used_memory"]
    service = GameService.from_url(server.url)
    rng = random.Random(seed)
    ids = [play_game(service, players, rng, idempotency) for _ in range(games)]
    after = client.info("memory")["used_memory"]
    totals, by_kind, compressed, raw_logs = measure(client, ids)
    mean = statistics.fmean(totals)
    label = "with Idempotency-Key on every move" if idempotency else "without idempotency keys"
    print(f"\n{games} finished {players}-player games, {label}")
    median = statistics.median(totals) / 1024
    print(f"  game keys (MEMORY USAGE), mean per game: {mean / 1024:8.1f} KiB (median {median:.1f})")
    for kind, sizes in sorted(by_kind.items(), key=lambda item: -sum(item[1])):
        share = sum(sizes) / sum(totals)
        print(f"    {kind:<10} {statistics.fmean(sizes) / 1024:8.1f} KiB  ({share:5.1%})")
    print(f"  used_memory delta per game:            {(after - before) / games / 1024:8.1f} KiB")
    print(f"  whole log as JSON, mean:               {statistics.fmean(raw_logs) / 1024:8.1f} KiB")
    print(f"  whole log, zlib level 9, mean:         {statistics.fmean(compressed) / 1024:8.1f} KiB")
    print(f"  1 million such games today:            {mean * 1e6 / 2**30:8.1f} GiB")
    print(f"  1 million as compressed logs:          {statistics.fmean(compressed) * 1e6 / 2**30:8.1f} GiB")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    server = PrivateRedis()
    try:
        for idempotency in (False, True):
            run(server, args.games, args.players, args.seed, idempotency)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
