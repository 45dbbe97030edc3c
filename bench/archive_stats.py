"""Global statistics over an archive of finished games, timed against merely reading the same logs.

    .venv/bin/python bench/archive_stats.py [--games 1000] [--seed 1]

Generates ``--games`` Condottiere games in-process (random legal moves, 2 to 6 players, a mix of
rulesets and options), stores them as finished games of the archive in a private, throw-away
redis-server (never the machine's default port), then measures in the same run:

* read: every archived log fetched from Redis (pipelined XRANGE) and decoded (orjson);
* stats: the global-statistics job over the same archive, cold (every log read, facts computed
  from it, aggregated) and warm (each finished game's facts kept from an earlier run);
* replay: every event read and folded through the engine's ``evolve`` (events replayed per
  second), and the fold alone over logs already in memory.

The figure tracked is stats / read (aim: at most 2.0). Each timing is the best of ``--repeat``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import get_game  # noqa: E402
from games.base import fold  # noqa: E402
from service.stats import StatsService  # noqa: E402
from store import GameStore  # noqa: E402
from store.archive import FACTS, SUMMARY, Archive, events_of, import_finished_game, index_key  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402

GAME = get_game("condottiere")
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon"]


def random_game(rng: random.Random) -> tuple[list[dict], object]:
    players = rng.choice([2, 3, 4, 4, 5, 6])
    ruleset = rng.choice(["2006", "2006", "classic"])
    options = {"capturing": rng.random() < 0.2, "bigger_kingdoms": rng.random() < 0.2}
    if ruleset == "2006":
        options["hidden_cards"] = rng.random() < 0.2
        options["draw_after_battle"] = rng.random() < 0.2
    config = GAME.configure(
        {"players": players, "ruleset": ruleset, "options": options, "seed": rng.getrandbits(40)}
    )
    events = GAME.start(config)
    state = fold(GAME, events)
    while not GAME.is_over(state):
        seat = rng.choice(GAME.awaiting(state))
        new = GAME.decide(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        state = fold(GAME, new, state)
        events += new
    return events, state


def best(repeat: int, func):
    times = []
    value = None
    for _ in range(repeat):
        start = time.perf_counter()
        value = func()
        times.append(time.perf_counter() - start)
    return min(times), value


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    server = PrivateRedis()
    try:
        client = server.client()
        rng = random.Random(args.seed)
        started = time.perf_counter()
        total_events = 0
        for i in range(args.games):
            events, state = random_game(rng)
            total_events += len(events)
            players = rng.sample(NAMES, GAME.seat_count(events[0]["config"]))
            import_finished_game(
                client,
                game_id=f"bench{i:05d}",
                name=GAME.name,
                title=GAME.title,
                public_config={k: v for k, v in events[0]["config"].items() if k != "seed"},
                full_config=events[0]["config"],
                players=players,
                events=events,
                snapshot_state=GAME.state_to_json(state),
                result=GAME.result(state),
                now="2026-11-29T12:00:00Z",
            )
        generated = time.perf_counter() - started
        archive = Archive(client)
        ids = [i.decode() for i in client.zrange(index_key("game", GAME.name), 0, -1)]
        assert len(ids) == args.games == archive.count()

        def read():
            count = 0
            client.hmget(SUMMARY, ids)
            for _, events in events_of(client, ids):
                count += len(events)
            return count

        def statistics():
            # Cold: every game's facts computed from its log (the cache of facts is emptied).
            client.delete(FACTS)
            body, _ = StatsService(GameStore(client)).compute_global(
                {"game": GAME.name}, lambda fraction: None
            )
            return body

        def statistics_warm():
            body, _ = StatsService(GameStore(client)).compute_global(
                {"game": GAME.name}, lambda fraction: None
            )
            return body

        def replay():
            count = 0
            evolve = GAME.evolve
            for _, events in events_of(client, ids):
                state = None
                for event in events:
                    state = evolve(state, event)
                count += len(events)
            return count

        logs = [events for _, events in events_of(client, ids)]

        def fold_only():
            evolve = GAME.evolve
            for events in logs:
                state = None
                for event in events:
                    state = evolve(state, event)
            return sum(len(events) for events in logs)

        read_time, read_events = best(args.repeat, read)
        fold_time, _ = best(args.repeat, fold_only)
        stats_time, body = best(args.repeat, statistics)
        replay_time, replayed = best(args.repeat, replay)
        statistics()  # fills the cache of facts
        warm_time, warm_body = best(args.repeat, statistics_warm)
        assert warm_body == body
        assert read_events == total_events == replayed
        print(
            f"archive: {args.games} games, {total_events} events "
            f"({total_events / args.games:.0f} per game), generated and stored in {generated:.1f} s"
        )
        print(
            f"read logs from Redis:   {read_time * 1000:8.1f} ms  ({total_events / read_time:,.0f} events/s)"
        )
        print(
            f"global statistics:      {stats_time * 1000:8.1f} ms  "
            f"({total_events / stats_time:,.0f} events/s)"
        )
        print(f"ratio stats / read:     {stats_time / read_time:8.2f}  (aim: <= 2.0)")
        print(
            f"global statistics, facts cached: {warm_time * 1000:8.1f} ms  "
            "(after a new game enters the archive)"
        )
        print(
            f"replay (read + fold):   {replay_time * 1000:8.1f} ms  "
            f"({total_events / replay_time:,.0f} events replayed/s)"
        )
        print(
            f"fold only (in memory):  {fold_time * 1000:8.1f} ms  "
            f"({total_events / fold_time:,.0f} events replayed/s)"
        )
        print(f"result size: {len(body):,} bytes of JSON")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
