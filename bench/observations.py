"""Throughput of the observation export: decisions per CPU second of one worker.

    .venv/bin/python bench/observations.py [--condottiere 40] [--rio 4] [--repeat 3] [--seed 1]

Generates random finished games in-process (random legal moves; Condottiere with 2 to 6 players and
a mix of rulesets and options, Rio de la Plata with 3 to 5 players), imports them into a private,
throw-away redis-server (never the machine's default port) as the archive holds them (compact log,
archive entry), then runs the export job's own computation, ``ArchiveService.observation_export``,
once per engine (the archive's ``game`` filter), best of ``--repeat``: the archive search, each
log read and inflated, one fold per game, a view and the legal moves per decision, orjson and gzip.
Rates are per CPU second of this process (what a worker spends; the machine is shared), with the
wall-clock rate and the load average beside them. Also printed: the bytes per decision, raw and
gzipped (what the job's result costs in Redis), and the pure part alone (``replays.observations``
plus gzip over logs already in memory) to show what the store's reads add.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import get_game  # noqa: E402
from replays.observations import GzipNdjson, observations  # noqa: E402
from service import composition  # noqa: E402
from service.ids import new_game_id  # noqa: E402
from store import GameStore, timestamps  # noqa: E402
from tests.random_play import import_played, play_out  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402


def condottiere_config(game, rng: random.Random) -> dict:
    ruleset = rng.choice(["2006", "2006", "classic"])
    options = {"capturing": rng.random() < 0.2, "bigger_kingdoms": rng.random() < 0.2}
    if ruleset == "2006":
        options["hidden_cards"] = rng.random() < 0.2
        options["draw_after_battle"] = rng.random() < 0.2
    players = rng.choice([2, 3, 4, 4, 5, 6])
    return game.configure(
        {"players": players, "ruleset": ruleset, "options": options, "seed": rng.getrandbits(64)}
    )


def rio_config(game, rng: random.Random) -> dict:
    return game.configure({"players": rng.choice([3, 4, 5]), "seed": rng.getrandbits(64)})


def timed(func):
    cpu, wall = time.process_time(), time.perf_counter()
    value = func()
    return time.process_time() - cpu, time.perf_counter() - wall, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--condottiere", type=int, default=40, help="Condottiere games")
    parser.add_argument("--rio", type=int, default=4, help="Rio de la Plata games")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    plan = [("condottiere", args.condottiere, condottiere_config), ("rio_de_la_plata", args.rio, rio_config)]
    logs: dict[str, list] = {}
    for name, count, configure in plan:
        game = get_game(name)
        started = time.perf_counter()
        logs[name] = [play_out(game, configure(game, rng), rng) for _ in range(count)]
        print(f"{count} {name} games generated in {time.perf_counter() - started:.1f} s")
    server = PrivateRedis()
    try:
        client = server.client()
        archive = composition.archive_service(GameStore(client))
        now = timestamps.now()
        for name, played in logs.items():
            game = get_game(name)
            for events, state in played:
                seats = game.seat_count(events[0]["config"])
                import_played(
                    client,
                    game,
                    events,
                    state,
                    game_id=new_game_id(),
                    players=[f"P{s}" for s in range(seats)],
                    now=now,
                )
        print(f"load average {os.getloadavg()[0]:.1f}; rates per CPU second of this process")
        for name, played in logs.items():
            game = get_game(name)
            params = {"filters": {"game": [name]}, "limit": 1000}
            runs = [
                timed(lambda params=params: archive.observation_export(params, lambda f: None))
                for _ in range(args.repeat)
            ]
            cpu, wall, (body, _) = min(runs, key=lambda run: run[0])
            decisions = sum(1 for _ in gzip.decompress(body).splitlines())

            def pure(played=played, game=game):
                out = GzipNdjson()
                for events, state in played:
                    out.write(observations(game, events, game_id="x", result=game.result(state)))
                return out

            pure_cpu, _, out = min((timed(pure) for _ in range(args.repeat)), key=lambda run: run[0])
            assert out.lines == decisions, (out.lines, decisions)
            print(
                f"{name:16} {len(played):3d} games {decisions:7d} decisions: "
                f"{decisions / cpu:8.0f} decisions/s per worker (CPU; wall {decisions / wall:.0f}/s), "
                f"pure part {decisions / pure_cpu:.0f}/s; "
                f"{out.raw_bytes / decisions:.0f} B raw, {len(body) / decisions:.0f} B gzipped per decision"
            )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
