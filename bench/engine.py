"""Engine benchmark: random full games in-process (each move drawn uniformly from the legal moves
of an awaited seat, fixed seeds). Prints games/s, moves/s (legal_moves + decide + evolve, what a
server or a simulator pays per move) and replayed events/s (evolve only, what a replay pays), for
2, 4 and 6 players, with and without options, and the number of games that did not finish; then the
same figures for Rio de la Plata with 3, 4 and 5 players (a Rio game is about a hundred times longer,
so it plays fewer games per line).

    .venv/bin/python bench/engine.py [--games N] [--rio-games N] [--max-moves M] [--only condottiere|rio]

Figure to beat: the public TypeScript engine, about 3,600 random moves/s and 22
four-player games/s on this kind of machine.

Rates are computed from the process's CPU time (``time.process_time``), so that other work on a
shared machine does not count against the engine; the wall-clock moves/s and the load average are
printed too.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import get_game  # noqa: E402

GAME = get_game("condottiere")
RIO = get_game("rio_de_la_plata")

SETUPS = [
    ("2006", {}),
    ("classic", {}),
    ("2006", {"capturing": True, "hidden_cards": True}),
    ("2006", {"draw_after_battle": True, "bigger_kingdoms": True}),
    ("classic", {"capturing": True, "points_target": 10}),
]


def play_one(config: dict, rng: random.Random, max_moves: int, game=GAME) -> tuple[list[dict], int, bool]:
    decide, evolve, legal, awaiting = game.decide, game.evolve, game.legal_moves, game.awaiting
    log = game.start(config)
    state = None
    for event in log:
        state = evolve(state, event)
    moves = 0
    while not game.is_over(state):
        if moves >= max_moves:
            return log, moves, False
        seats = awaiting(state)
        seat = seats[0] if len(seats) == 1 else rng.choice(seats)
        command = rng.choice(legal(state, seat))
        events = decide(state, seat, command)
        for event in events:
            state = evolve(state, event)
        log.extend(events)
        moves += 1
    return log, moves, True


def run(ruleset: str, options: dict, players: int, games: int, max_moves: int, game=GAME) -> dict:
    rng = random.Random(players * 1000 + len(options))
    logs = []
    moves = unfinished = 0
    wall = time.perf_counter()
    started = time.process_time()
    for seed in range(games):
        if game is RIO:
            config = game.configure({"players": players, "seed": seed})
        else:
            config = game.configure(
                {"ruleset": ruleset, "players": players, "seed": seed, "options": options}
            )
        log, count, finished = play_one(config, rng, max_moves, game)
        moves += count
        unfinished += not finished
        logs.append(log)
    played = time.process_time() - started
    wall = time.perf_counter() - wall
    events = sum(len(log) for log in logs)
    started = time.process_time()
    evolve = game.evolve
    for log in logs:
        state = None
        for event in log:
            state = evolve(state, event)
    replayed = time.process_time() - started
    return {
        "games_s": games / played,
        "moves_s": moves / played,
        "events_s": events / replayed,
        "wall_moves_s": moves / wall,
        "moves_per_game": moves / games,
        "unfinished": unfinished,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rio-games", type=int, default=10)
    parser.add_argument("--max-moves", type=int, default=100_000)
    parser.add_argument("--only", choices=("condottiere", "rio"), help="measure one game's lines only")
    args = parser.parse_args()
    print(
        f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
        f"{args.games} games per line; rates per CPU second"
    )
    print(
        f"{'ruleset':8} {'options':45} {'pl':>2} {'games/s':>8} {'moves/s':>9} "
        f"{'replay ev/s':>11} {'moves/game':>10} {'unfinished':>10} {'wall moves/s':>12}"
    )
    total_unfinished = 0
    for ruleset, options in SETUPS if args.only != "rio" else []:
        for players in (2, 4, 6):
            r = run(ruleset, options, players, args.games, args.max_moves)
            total_unfinished += r["unfinished"]
            label = ",".join(k if v is True else f"{k}={v}" for k, v in options.items()) or "-"
            print(
                f"{ruleset:8} {label:45} {players:>2} {r['games_s']:8.1f} {r['moves_s']:9.0f} "
                f"{r['events_s']:11.0f} {r['moves_per_game']:10.1f} {r['unfinished']:>10} "
                f"{r['wall_moves_s']:12.0f}"
            )
    for players in (3, 4, 5) if args.only != "condottiere" else ():
        r = run("rio", {}, players, args.rio_games, args.max_moves, RIO)
        total_unfinished += r["unfinished"]
        print(
            f"{'rio':8} {'(' + str(args.rio_games) + ' games)':45} {players:>2} {r['games_s']:8.2f} "
            f"{r['moves_s']:9.0f} {r['events_s']:11.0f} {r['moves_per_game']:10.1f} {r['unfinished']:>10} "
            f"{r['wall_moves_s']:12.0f}"
        )
    print(f"games that did not finish: {total_unfinished}")


if __name__ == "__main__":
    main()
