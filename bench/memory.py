"""Redis memory per finished game, before and after compaction, with and without idempotency keys.

    .venv/bin/python bench/memory.py [--games 50] [--players 4] [--seed 1]

Plays ``--games`` games of ``--players`` seats through the service (``GameService``: the same code
path as the API, random legal moves chosen from each seat's own view) on a private, throw-away
redis-server (never the machine's default port), twice: once without and once with an
``Idempotency-Key`` on every move. The service's own follow-up work runs as in the web process
(index, archive entry with its statistics, scheduling of the compaction); then the compaction runs
(``service.compaction``, as the janitor does once a game's delay is over).

For each finished game it sums ``MEMORY USAGE`` over every key the game leaves (``game:{g:<id>}:*``),
before and after compaction; keys that expire (the idempotency records: an hour after compaction)
are shown apart. Then its share of the cross-game keys: for each sorted set or hash that lists the
game (the games index, the archive's search indexes and summaries), that key's bytes per member at
the size it has at scale (measured in the same run on a scratch key of 2,000 members with the same
encoding a big index has: a skiplist or a hashtable, not the compact listpack of a small test set);
plus the keys shared by all games (statistics aggregates, compression dictionaries) divided by the
number of games (they do not grow with the archive). The total is projected to one million games.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["COMPACT_DELAY_MS"] = "0"

from rq import SimpleWorker  # noqa: E402

from service import composition  # noqa: E402
from service.compaction import Compaction  # noqa: E402
from service.games import GameService  # noqa: E402
from service.ids import new_game_id  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon"]
SCRATCH = 2000


def play_game(service: GameService, players: int, rng: random.Random, idempotency: bool) -> str:
    summary = service.create_game("condottiere", {"players": players})
    game_id = summary["id"]
    names = rng.sample(NAMES, players)
    tokens = [service.claim_seat(game_id, name=names[s]).token for s in range(players)]
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


def own_keys(client, game_ids: list[str]) -> tuple[list[int], list[int], dict[str, list[int]]]:
    """Per game: bytes of its keys that stay, bytes of those that expire; per kind of key."""
    kept: list[int] = []
    expiring: list[int] = []
    by_kind: dict[str, list[int]] = defaultdict(list)
    for game_id in game_ids:
        stay = go = 0
        for key in client.scan_iter(match=f"game:{{g:{game_id}}}:*", count=100):
            usage = client.memory_usage(key, samples=0) or 0
            ttl = client.ttl(key)
            kind = key_kind(key) + (f" (expires in {ttl / 3600:.1f} h)" if ttl >= 0 else "")
            by_kind[kind].append(usage)
            if ttl >= 0:
                go += usage
            else:
                stay += usage
        kept.append(stay)
        expiring.append(go)
    return kept, expiring, by_kind


def per_member_at_scale(client) -> dict[bytes, float]:
    """Bytes per member of a big sorted set and of a big hash of summaries (their encodings at scale)."""
    ids = [new_game_id() for _ in range(SCRATCH)]
    pipe = client.pipeline(transaction=False)
    for i, game_id in enumerate(ids):
        pipe.zadd("scratch:zset", {game_id: 1_790_000_000_000 + i})
        pipe.hset("scratch:hash", game_id, b"x" * 400)
    pipe.execute()
    found = {
        b"zset": client.memory_usage("scratch:zset", samples=0) / SCRATCH,
        b"hash": (client.memory_usage("scratch:hash", samples=0) - 400 * SCRATCH) / SCRATCH,
    }
    client.delete("scratch:zset", "scratch:hash")
    return found


def index_share(client, game_ids: list[str]) -> tuple[float, float, dict[str, float]]:
    """Per game: its share of the cross-game keys (at-scale bytes per member for the indexes that list
    it; the whole of the shared keys divided by the games)."""
    at_scale = per_member_at_scale(client)
    ids = set(game_ids)
    per_game = 0.0
    detail: dict[str, float] = defaultdict(float)
    shared = 0
    for key in client.scan_iter(count=1000):
        name = key.decode()
        if name.startswith("game:"):
            continue
        kind = client.type(key)
        if kind == b"zset":
            members = [m.decode() for m in client.zrange(key, 0, -1)]
            listed = sum(1 for m in members if m in ids)
            if listed:
                per_game += at_scale[b"zset"] * listed / len(game_ids)
                detail["index entries (sorted sets)"] += listed / len(game_ids)
                continue
        elif kind == b"hash" and name.endswith((":summary", ":facts")):
            sizes = [len(v) for k, v in client.hgetall(key).items() if k.decode() in ids]
            if sizes:
                value = statistics.fmean(sizes)
                per_game += (at_scale[b"hash"] + value) * len(sizes) / len(game_ids)
                detail[f"{name.rsplit(':', 1)[-1]} entry bytes"] += value + at_scale[b"hash"]
                continue
        if client.ttl(key) < 0:  # job records and results expire (a day): not kept for good
            shared += client.memory_usage(key, samples=0) or 0
    return per_game, shared / len(game_ids), detail


def run(server: PrivateRedis, games: int, players: int, seed: int, idempotency: bool) -> None:
    client = server.client()
    client.flushall()
    service = composition.game_service_at(server.url)  # every follow-up action, as the web process
    rng = random.Random(seed)
    # One game more than measured: the first compacted log of an engine becomes its compression
    # dictionary (store.compact), and would compress to almost nothing against itself.
    ids = [play_game(service, players, rng, idempotency) for _ in range(games + 1)]
    # The verify jobs the finished games queued (their follow-up action is then done)
    SimpleWorker(["default"], connection=client).work(burst=True, logging_level="WARNING")
    for game_id in ids:
        service.followups.run(game_id)
    label = "with Idempotency-Key on every move" if idempotency else "without idempotency keys"
    print(f"\n{games} finished {players}-player games, {label}")
    before, before_expiring, _ = own_keys(client, ids[1:])
    print(f"  game keys before compaction, mean:     {statistics.fmean(before) / 1024:8.2f} KiB", end="")
    print(f"  (+ {statistics.fmean(before_expiring) / 1024:.1f} KiB expiring in 7 days)")
    report = Compaction(service.store).run_due(limit=games + 10)
    assert sorted(report.compacted) == sorted(ids), report
    ids = ids[1:]
    kept, expiring, by_kind = own_keys(client, ids)
    print(f"  game keys after compaction, mean:      {statistics.fmean(kept) / 1024:8.2f} KiB")
    for kind, sizes in sorted(by_kind.items(), key=lambda item: -sum(item[1])):
        print(f"    {kind:<28} {statistics.fmean(sizes):8.0f} B")
    share, shared, detail = index_share(client, ids)
    for what, amount in detail.items():
        print(f"    {what:<28} {amount:8.1f}")
    print(f"  its index entries (at scale):          {share / 1024:8.2f} KiB")
    print(f"  shared keys / games (stats, dictionary, queues): {shared / 1024:6.2f} KiB  (constant)")
    total = statistics.fmean(kept) + share
    print(f"  per finished game, kept for good:      {total / 1024:8.2f} KiB  (goal: <= 4 KiB)")
    print(f"  expiring an hour after compaction:     {statistics.fmean(expiring) / 1024:8.2f} KiB")
    print(f"  1 million finished games:              {total * 1e6 / 2**30:8.2f} GiB")
    service.live.close()


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
