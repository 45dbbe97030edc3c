"""``condottiere ratings [GAME] [--player P]`` and ``condottiere h2h A B``: the server's ratings,
read from ``/v1/ratings`` and ``/v1/h2h`` like any client would."""

from __future__ import annotations

import argparse
from typing import Any, TextIO
from urllib.parse import quote

from cli.client import ApiClient
from cli.options import Subparsers


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    ratings = sub.add_parser(
        "ratings", parents=[common], help="a game's leaderboard, or a player's rating history"
    )
    ratings.add_argument("game", nargs="?", default="condottiere")
    ratings.add_argument("--player", help="a handle (or bot:<level>): their rating and history")
    ratings.add_argument("--limit", type=int, default=20)
    h2h = sub.add_parser("h2h", parents=[common], help="two players' rated games together, per game")
    h2h.add_argument("first")
    h2h.add_argument("second")


def _rating(row: dict[str, Any]) -> str:
    mark = "?" if row["provisional"] else " "
    return f"{row['ordinal']:7.2f}{mark} (mu {row['mu']:.2f}, sigma {row['sigma']:.2f}, {row['games']} games)"


def cmd_ratings(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
    game = quote(args.game, safe="")
    if args.player:
        path = f"/v1/ratings/{game}/players/{quote(args.player, safe='')}"
        body = client.request("GET", path, params={"limit": args.limit}).json()
        out.write(f"{body['player']} at {body['game']}: {_rating(body['rating'])}\n")
        for entry in body["history"]:
            others = ", ".join(
                f"{o['player'] or 'deleted player'} ({o['ordinal']:.2f}{', won' if o['rank'] == 1 else ''})"
                for o in entry["against"]
            )
            result = "won" if entry["rank"] == 1 else "lost"
            out.write(
                f"  {entry['finished']} {entry['game_id']} {result}: "
                f"{entry['before']['ordinal']:.2f} -> {entry['after']['ordinal']:.2f} against {others}\n"
            )
        return 0
    body = client.request("GET", f"/v1/ratings/{game}", params={"limit": args.limit}).json()
    out.write(f"{body['game']}: {body['players']} rated players (? = provisional)\n")
    for row in body["leaders"]:
        out.write(f"{row['place']:>3}. {row['player'] or 'deleted player':<24} {_rating(row)}\n")
    return 0


def cmd_h2h(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
    path = f"/v1/h2h/{quote(args.first, safe='')}/{quote(args.second, safe='')}"
    body = client.request("GET", path).json()
    if not body["games"]:
        out.write(f"{body['first']} and {body['second']} have no rated game together\n")
    for row in body["games"]:
        out.write(
            f"{row['game']}: {row['games']} games together; {body['first']} ahead {row['first_ahead']}, "
            f"{body['second']} ahead {row['second_ahead']}, level {row['ties']}\n"
        )
    return 0


def run(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int | None:
    """The ratings command ``args`` names, or None when it is not one of them."""
    if args.command == "ratings":
        return cmd_ratings(args, client, out)
    if args.command == "h2h":
        return cmd_h2h(args, client, out)
    return None
