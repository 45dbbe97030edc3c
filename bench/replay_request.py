"""What a replay of a running game costs the web process, against the whole-log fold it
no longer does.

    .venv/bin/python bench/replay_request.py [--requests 40]

On a private, throw-away redis-server, through the Flask app (test client, no HTTP): a long running
game of each engine (a six-player classic Condottiere points match and a five-player Rio de la
Plata game, random legal moves, stopped well before the end), then, for random versions as a
spectator:

* ``old``: the work the request used to do, the whole log read (``load_log``) and folded up to the
  version (``replays.core.replay_at``); the request's other checks not counted (a lower bound);
* ``cold``: the request now, in a process that has no checkpoint of the game yet (the fold runs from
  the start once, keeping a state every ``CHECKPOINT_EVERY`` events on the way);
* ``warm``: the request now, the checkpoints kept (at most ``CHECKPOINT_EVERY`` events read and folded);
* ``old last`` and ``last``: the same for the current version (now the service's current state: no
  fold at all).

Prints this process's CPU milliseconds per request (median and 90th percentile): the time a gevent
worker is held, Redis waits excluded.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api import create_app  # noqa: E402
from games import get_game  # noqa: E402
from replays import core  # noqa: E402
from service.archive import CHECKPOINT_EVERY, ReplayCheckpoints  # noqa: E402
from store.game_logs import load_log  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402

GAMES = [
    ("condottiere", {"players": 6, "seed": 4, "ruleset": "classic", "options": {"points_target": 10}}, 0.8),
    ("rio_de_la_plata", {"players": 5, "seed": 4}, 0.8),
]


def cpu_ms(fn) -> float:
    started = time.process_time()
    fn()
    return (time.process_time() - started) * 1000


def play_long_game(svc, name: str, config: dict, share: float, rng: random.Random) -> str:
    """A game played with random legal moves up to ``share`` of the length such a game reaches."""
    game = get_game(name)
    probe = game.start(game.configure(config))
    state = None
    for event in probe:
        state = game.evolve(state, event)
    moves = 0
    while not game.is_over(state):  # how long this game runs, played out in-process first
        seat = rng.choice(game.awaiting(state))
        for event in game.decide(state, seat, rng.choice(game.legal_moves(state, seat))):
            state = game.evolve(state, event)
        moves += 1
    game_id = svc.create_game(name, config)["id"]
    tokens = [svc.claim_seat(game_id, name=f"P{i}").token for i in range(config["players"])]
    for _ in range(int(moves * share)):
        _, cached = svc.viewer_seat(game_id, None)
        seat = rng.choice(game.awaiting(cached.state))
        svc.submit_command(game_id, tokens[seat], rng.choice(game.legal_moves(cached.state, seat)))
    return game_id


def summary(values: list[float]) -> str:
    values = sorted(values)
    return f"{statistics.median(values):8.2f} ms median {values[int(len(values) * 0.9)]:8.2f} ms p90"


def measure(
    client, svc, archive, name: str, config: dict, game_id: str, rng: random.Random, count: int
) -> None:
    game = get_game(name)
    last = svc.viewer_seat(game_id, None)[1].version
    versions = [rng.randrange(last // 2, last) for _ in range(count)]

    def old(version: int) -> None:
        log = load_log(svc.store.redis, game_id)
        core.replay_at(game, log.events, version, None, finished=False)

    def request(version: int | None) -> None:
        query = "" if version is None else f"?version={version}"
        response = client.get(f"/v1/games/{game_id}/replay{query}")
        assert response.status_code == 200, response.get_json()

    def cold(version: int) -> None:
        archive.checkpoints = ReplayCheckpoints()
        request(version)

    figures = {
        "old": [cpu_ms(lambda v=v: old(v)) for v in versions],
        "cold": [cpu_ms(lambda v=v: cold(v)) for v in versions],
        "warm": [cpu_ms(lambda v=v: request(v)) for v in versions],
        "old last": [cpu_ms(lambda: old(last)) for _ in versions],
        "last": [cpu_ms(lambda: request(None)) for _ in versions],
    }
    print(f"{name} {config}: running, version {last} (versions asked: {last // 2}..{last - 1})")
    for label, values in figures.items():
        before = figures["old last" if label == "last" else "old"]
        ratio = statistics.median(before) / statistics.median(values)
        print(f"  {label:9} {summary(values)}   old/this {ratio:6.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=40)
    args = parser.parse_args()
    server = PrivateRedis()
    try:
        app = create_app({"REDIS_URL": server.url, "TESTING": True, "RATE_LIMITS_ENABLED": False})
        client = app.test_client()
        svc, archive = app.extensions["game_service"], app.extensions["archive_service"]
        rng = random.Random(1)
        print(f"checkpoint every {CHECKPOINT_EVERY} events; CPU ms per request")
        for name, config, share in GAMES:
            game_id = play_long_game(svc, name, config, share, rng)
            measure(client, svc, archive, name, config, game_id, rng, args.requests)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
