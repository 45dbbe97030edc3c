"""Ratings calibration and cost.

    .venv/bin/python bench/ratings_calibration.py simulate --game condottiere --games 1000 --out FILE
    .venv/bin/python bench/ratings_calibration.py report [--archive] FILE [FILE...]
    .venv/bin/python bench/ratings_calibration.py timing [--sizes 1000 10000]

``simulate`` plays bot games in-process (the engines and bots as ``cli/simulate.py`` runs them),
3 to 5 seats drawn from players of known strength order: the server's ``random`` and ``heuristic``
levels and, between them, ``mixed`` (this bench's: each move the heuristic's with probability 1/2,
else a random legal move). It appends one JSON line per game (players per seat, winners) to FILE
as it goes, so a run can be stopped and resumed (``--start``).

``report`` replays the games in order through the rating update the archive uses
(``replays.ratings.rate`` over the raters ``service.ratings`` gives bot seats: one per level), and
before rating each game predicts its winner from the current ratings (``predict_win``). It prints,
per game and player count, top-1 accuracy (the seat given the best chance won; a tie between k
seats counts 1/k for each winner among them) and log loss (of the chance given to the seats that
won) against the equal-chances baseline, a calibration table (seat chances in bins against how
often those seats won), and the final ratings, whose order must be the players' strength order.

With ``--archive`` the same games are also entered, in the same order, through the archive's
entry step (``service.ratings.enter_rated`` on a private redis-server, as bot seats of the levels
above), and the stored ratings are checked equal to the replay's.

``timing`` measures the update's cost against the archive's size: a private redis-server is filled
with synthetic rated games (entered through the archive's entry script with their rating change,
among 300 accounts) up to each size, then ``service.ratings.enter_rated`` of one more game is timed
(the seats' ratings read and the entry script), median of ``--repeat``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bots import choose_move, seeded_rng  # noqa: E402
from games import get_game  # noqa: E402
from games.base import fold  # noqa: E402
from replays import ratings as model  # noqa: E402

STRENGTH = ["heuristic", "mixed", "random"]  # strongest first


def _choose(game_name: str, player: str, view: Any, rng: random.Random) -> Any:
    if player == "mixed":
        player = "heuristic" if rng.random() < 0.5 else "random"
    return choose_move(game_name, player, view, rng, strict=True)


def play(game_name: str, players: list[str], seed: int) -> list[int]:
    game = get_game(game_name)
    config = game.configure({"players": len(players), "seed": seed})
    rngs = [seeded_rng("ratings-bench", seed, seat) for seat in range(len(players))]
    state = fold(game, game.start(config))
    moves = 0
    while not game.is_over(state):
        seat = game.awaiting(state)[0]
        command = _choose(game_name, players[seat], game.view(state, seat), rngs[seat])
        state = fold(game, game.decide(state, seat, command), state)
        moves += 1
        if moves > 50_000:
            raise RuntimeError("game did not end")
    return list((game.result(state) or {}).get("winners") or [])


def simulate(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with out.open("a") as sink:
        for index in range(args.games):
            size = rng.choice([3, 4, 5])
            players = [rng.choice(STRENGTH) for _ in range(size)]
            seed = rng.getrandbits(40)
            if index < args.start:
                continue
            winners = play(args.game, players, seed)
            row = {"game": args.game, "index": index, "players": players, "winners": winners}
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            if (index + 1) % 50 == 0:
                rate = (index + 1 - args.start) / (time.perf_counter() - started)
                print(f"{args.game}: {index + 1} games, {rate:.2f} games/s", flush=True)


def _bins(p: float) -> int:
    return min(int(p * 10), 9)


def report(args: argparse.Namespace) -> None:
    rows = [json.loads(line) for name in args.files for line in Path(name).read_text().splitlines() if line]
    by_game: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_game[row["game"]].append(row)
    for game, games in sorted(by_game.items()):
        games.sort(key=lambda r: r["index"])
        current: dict[str, model.Rating] = {}
        acc: dict[Any, list[float]] = defaultdict(list)
        base_acc: dict[Any, list[float]] = defaultdict(list)
        loss: dict[Any, list[float]] = defaultdict(list)
        base_loss: dict[Any, list[float]] = defaultdict(list)
        calibration: dict[Any, list[list[int]]] = defaultdict(lambda: [[0, 0, 0] for _ in range(10)])
        calib_p: dict[Any, list[float]] = defaultdict(lambda: [0.0] * 10)
        for row in games:
            seats = [model.bot_rater(p) for p in row["players"]]
            winners = set(row["winners"])
            n = len(seats)
            if winners:
                chances = model.predict_win([current.get(r) or model.Rating() for r in seats])
                best = max(chances)
                top = [s for s in range(n) if chances[s] >= best - 1e-12]
                for key in (("all", game), (n, game)):
                    acc[key].append(sum(1 for s in top if s in winners) / len(top))
                    base_acc[key].append(len(winners) / n)
                    loss[key].append(-math.log(max(sum(chances[s] for s in winners), 1e-15)))
                    base_loss[key].append(-math.log(len(winners) / n))
                    for s in range(n):
                        cell = calibration[key][_bins(chances[s])]
                        cell[0] += 1
                        cell[1] += int(s in winners)
                        calib_p[key][_bins(chances[s])] += chances[s]
            current.update(model.rate(seats, current, list(winners)))
        print(f"\n== {game}: {len(games)} games (3-5 seats; players {', '.join(STRENGTH)})")
        print(f"{'players':>8} {'games':>6} {'top-1':>7} {'equal':>7} {'logloss':>8} {'equal':>7}")
        for key in sorted(acc, key=lambda k: (k[0] != "all", str(k[0]))):
            print(
                f"{key[0]!s:>8} {len(acc[key]):>6} {statistics.fmean(acc[key]):>7.3f} "
                f"{statistics.fmean(base_acc[key]):>7.3f} {statistics.fmean(loss[key]):>8.3f} "
                f"{statistics.fmean(base_loss[key]):>7.3f}"
            )
        for key in sorted(calibration, key=lambda k: (k[0] != "all", str(k[0]))):
            print(f"calibration ({key[0]} players): predicted bin, seats, mean predicted, observed win rate")
            for b, (count, won, _) in enumerate(calibration[key]):
                if count:
                    print(
                        f"  {b / 10:.1f}-{(b + 1) / 10:.1f} {count:>6} "
                        f"{calib_p[key][b] / count:>7.3f} {won / count:>7.3f}"
                    )
        if args.archive:
            _through_archive(game, games, current)
        order = sorted(current.items(), key=lambda kv: -kv[1].ordinal)
        print(
            "final ratings:",
            ", ".join(
                f"{r}: ordinal {v.ordinal:.2f} (mu {v.mu:.2f}, sigma {v.sigma:.2f}, {v.games} games)"
                for r, v in order
            ),
        )
        recovered = [r.removeprefix(model.BOT_PREFIX) for r, _ in order]
        print("strength order recovered:", recovered == [p for p in STRENGTH if p in recovered])


def _through_archive(game: str, games: list[dict[str, Any]], expected: dict[str, model.Rating]) -> None:
    """Enter the same games, in the same order, through the archive step (``enter_rated`` on a
    private redis-server) and check it ends at the very ratings of the in-memory replay."""
    from service.ratings import enter_rated
    from store.archive import Archive
    from store.game_logs import GameLog
    from store.ratings import RatingStore
    from tests.redis_server import PrivateRedis

    server = PrivateRedis()
    try:
        archive = Archive(server.client())
        began = time.perf_counter()
        for number, row in enumerate(games):
            meta = {
                "game": game,
                "status": "finished",
                "seat_count": str(len(row["players"])),
                "config": "{}",
                "prearranged": "false",
                "result": json.dumps({"winners": row["winners"], "reason": "bench"}),
                "finished": f"2026-11-01T00:00:{number // 1000 % 60:02d}.{number % 1000:03d}Z",
            }
            for seat, player in enumerate(row["players"]):
                meta.update({f"name:{seat}": player, f"kind:{seat}": "bot", f"bot:{seat}": player})
            log = GameLog(game_id=f"bench{number:06d}", meta=meta, events=[], snapshot=None)
            enter_rated(archive, log, ())
        stored = RatingStore(archive.redis).ratings(game, expected)
        same = all(
            (s.mu, s.sigma, s.games) == (expected[r].mu, expected[r].sigma, expected[r].games)
            for r, s in stored.items()
        )
        seconds = time.perf_counter() - began
        print(
            f"through the archive step: {len(games)} games entered in {seconds:.1f} s, "
            f"same ratings as the replay: {same and len(stored) == len(expected)}"
        )
    finally:
        server.stop()


def timing(args: argparse.Namespace) -> None:
    from service.ratings import enter_rated, rating_write
    from service.summaries import index_entry, summary_of
    from store.archive import Archive
    from store.game_logs import GameLog
    from tests.redis_server import PrivateRedis

    rng = random.Random(args.seed)
    accounts = [f"{i:020x}" for i in range(300)]

    def log_of(index: int) -> GameLog:
        size = rng.choice([3, 4, 5])
        seats = rng.sample(accounts, size)
        meta = {
            "game": "condottiere",
            "status": "finished",
            "seat_count": str(size),
            "version": "100",
            "config": "{}",
            "prearranged": "false",
            "result": json.dumps({"winners": [rng.randrange(size)], "reason": "regions"}),
            "finished": f"2026-11-01T12:{index // 60000 % 60:02d}:"
            f"{index // 1000 % 60:02d}.{index % 1000:03d}Z",
        }
        for seat, account in enumerate(seats):
            meta.update(
                {f"name:{seat}": f"p{account[-3:]}", f"kind:{seat}": "human", f"account:{seat}": account}
            )
        return GameLog(game_id=f"bench{index:07d}", meta=meta, events=[], snapshot=None)

    server = PrivateRedis()
    try:
        client = server.client()
        archive = Archive(client)
        current: dict[str, model.Rating] = {}
        entered = 0
        for size in args.sizes:
            while entered < size:  # synthetic fill: computed in memory, entered by the same script
                log = log_of(entered)
                write = rating_write(log, current)
                assert write is not None
                archive.enter(index_entry(summary_of(log)), (), write)
                current.update({u.rater: model.Rating(u.mu, u.sigma, u.games) for u in write.raters})
                entered += 1
            times = []
            for _ in range(args.repeat):
                log = log_of(entered)
                began = time.perf_counter()
                enter_rated(archive, log, ())
                times.append(time.perf_counter() - began)
                entered += 1
            # the timed games changed stored ratings: read them back so the fill stays consistent
            stored = client.keys("archive:{archive}:rating:condottiere:*")
            for key in stored:
                mu, sigma, games = client.hmget(key, "mu", "sigma", "games")
                current[key.decode().rsplit(":", 1)[1]] = model.Rating(float(mu), float(sigma), int(games))
            used = sum(
                int(client.memory_usage(key) or 0)
                for key in client.scan_iter(match="archive:{archive}:*", count=1000)
                if b":by:" not in key and b":games" != key[-6:] and b"version" not in key
            )
            print(f"{size:>6} archived games: rating keys {used / entered:.0f} B per rated game", flush=True)
            print(
                f"{size:>6} archived games: enter one more rated game (read + script) median "
                f"{statistics.median(times) * 1000:.3f} ms, best {min(times) * 1000:.3f} ms "
                f"over {args.repeat}",
                flush=True,
            )
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate")
    sim.add_argument("--game", default="condottiere")
    sim.add_argument("--games", type=int, default=2000)
    sim.add_argument("--start", type=int, default=0)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--out", required=True)
    rep = sub.add_parser("report")
    rep.add_argument("files", nargs="+")
    rep.add_argument("--archive", action="store_true", help="also enter them through the archive step")
    tim = sub.add_parser("timing")
    tim.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    tim.add_argument("--repeat", type=int, default=200)
    tim.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    {"simulate": simulate, "report": report, "timing": timing}[args.command](args)


if __name__ == "__main__":
    main()
