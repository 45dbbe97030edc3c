"""Global statistics after one more game, at 1,000 and at 10,000 archived games.

    .venv/bin/python bench/archive_stats.py [--sizes 1000 10000] [--distinct 200] [--seed 1]

Generates ``--distinct`` Condottiere games in-process (random legal moves, 2 to 6 players, a mix of
rulesets and options) and imports them into a private, throw-away redis-server (never the machine's
default port) over and over, with fresh ids, finish times and seat names drawn from 300 players,
until the archive holds each of ``--sizes`` games (every import is a real one: compact log, archive
entry, statistics aggregates). At each size it times, best of ``--repeat``:

* enter: one more game entering the archive (its facts computed, the enter script with its
  statistics increments; best of the last ``--repeat`` games of the size);
* refresh: the global-statistics job's computation after it (``StatsService.compute_global``: now
  read from the aggregates), and one player's statistics;
* recompute: the figures computed from every archived log read again (what the job did before the
  aggregates, cold), at the first size only, and checked equal to the aggregates.

The figure tracked: refresh at the largest size / refresh at the smallest (aim: about 1, it must not
grow with the archive; before aggregates a warm refresh read every game's kept facts: 196 ms at 1,000).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import get_game  # noqa: E402
from replays import stats  # noqa: E402
from service import (
    aggregates,  # noqa: E402
    composition,  # noqa: E402
)
from service.summaries import summary_of  # noqa: E402
from store import GameStore  # noqa: E402
from store.archive import Archive  # noqa: E402
from store.game_logs import events_of  # noqa: E402
from tests.random_play import import_played, play_out  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402

GAME = get_game("condottiere")
PLAYERS = [f"Player{i:03d}" for i in range(300)]


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
    return play_out(GAME, config, rng)


def best(repeat: int, func):
    times = []
    value = None
    for _ in range(repeat):
        start = time.perf_counter()
        value = func()
        times.append(time.perf_counter() - start)
    return min(times), value


class Archiver:
    def __init__(self, client, logs, rng: random.Random):
        self.client, self.logs, self.rng, self.count = client, logs, rng, 0

    def one(self) -> None:
        events, state = self.logs[self.count % len(self.logs)]
        players = self.rng.sample(PLAYERS, GAME.seat_count(events[0]["config"]))
        day, second = divmod(self.count, 86_400)
        import_played(
            self.client,
            GAME,
            events,
            state,
            game_id=f"bench{self.count:06d}",
            players=players,
            now=f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}T{second // 3600:02d}:{second // 60 % 60:02d}:"
            f"{second % 60:02d}Z",
            snapshot=False,
        )
        self.count += 1


def recompute(client) -> dict:
    ids = Archive(client).ids()
    players, overall = stats.PlayerStats(), stats.GlobalStats()
    summaries = {game_id: summary_of(Archive(client).record(game_id)) for game_id in ids}
    for game_id, events in events_of(client, ids):
        facts = stats.game_facts(GAME, events)
        players.add(summaries[game_id]["players"], facts)
        overall.add(facts)
    return overall.result()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--distinct", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    started = time.perf_counter()
    logs = [random_game(rng) for _ in range(args.distinct)]
    print(f"{args.distinct} distinct games generated in {time.perf_counter() - started:.1f} s")
    server = PrivateRedis()
    refreshes = []
    try:
        client = server.client()
        archiver = Archiver(client, logs, rng)
        statistics = composition.stats_service(GameStore(client))
        for size in sorted(args.sizes):
            started = time.perf_counter()
            while archiver.count < size - args.repeat:
                archiver.one()
            filled = time.perf_counter() - started
            statistics.compute_global({"game": GAME.name}, lambda f: None)  # warm (imports, caches)
            enter_time, _ = best(args.repeat, archiver.one)  # one more game, and more: best of them
            refresh, body = best(
                args.repeat, lambda: statistics.compute_global({"game": GAME.name}, lambda f: None)[0]
            )
            # A player the archive holds, whatever --sizes and --distinct drew.
            someone = summary_of(Archive(client).record(Archive(client).ids()[0]))["players"][0]
            player, _ = best(
                args.repeat,
                lambda someone=someone: statistics.compute_player(
                    {"game": GAME.name, "name": someone}, lambda f: None
                ),
            )
            refreshes.append(refresh)
            used = client.info("memory")["used_memory"]
            mib = used / 2**20
            print(
                f"\narchive of {archiver.count} games (filled in {filled:.1f} s, used_memory {mib:.1f} MiB)"
            )
            print(f"  one more game enters (facts + enter script): {enter_time * 1000:8.2f} ms")
            print(
                f"  global statistics after it:                  {refresh * 1000:8.2f} ms  ({len(body):,} B)"
            )
            print(f"  one player's statistics:                     {player * 1000:8.2f} ms")
            if size == min(args.sizes):
                took, recomputed = best(1, lambda: recompute(client))
                kept = aggregates.global_stats(Archive(client), GAME.name)
                kept.pop("leaders"), kept.pop("game")
                same = kept == recomputed
                print(f"  recomputed from every log instead:  {took * 1000:8.2f} ms  (same figures: {same})")
        ratio = refreshes[-1] / refreshes[0]
        print(f"\nrefresh at {max(args.sizes)} / at {min(args.sizes)} games: {ratio:.2f}  (aim: ~1)")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
