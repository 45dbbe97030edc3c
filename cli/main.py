"""``condottiere``: the command-line client of the game server.

    condottiere play --players 4 --bots heuristic        # a new game against three bots
    condottiere new --players 3 --ruleset classic --capturing --bots 1=heuristic,2=random
    condottiere join GAME --name Ann                     # prints the seat token (shown once)
    condottiere play GAME --token TOKEN                  # play (or resume) a seat
    condottiere watch GAME                               # follow a game live (SSE)
    condottiere show GAME | list
    condottiere play --game rio_de_la_plata --players 4    # Rio de la Plata against three bots
    condottiere simulate --games 200 [--game rio_de_la_plata] [--http [--server-bots]]
    condottiere export GAME -o game.json | import game.json

The server is ``--server`` or ``$CONDOTTIERE_SERVER`` (default http://127.0.0.1:8000).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TextIO

from cli import account, game_commands, log_commands, ratings
from cli.client import ApiClient, ApiError, default_server
from games.base import ConfigError


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    # SUPPRESS: a subcommand's copy of the flag must not reset one given before the subcommand.
    common.add_argument(
        "--server",
        default=argparse.SUPPRESS,
        help="server URL (default $CONDOTTIERE_SERVER or http://127.0.0.1:8000)",
    )
    parser = argparse.ArgumentParser(
        prog="condottiere",
        description=(
            "Play the server's games (Condottiere, Rio de la Plata) against bots in the terminal, watch "
            "games and simulate bot matches."
        ),
        parents=[common],
    )
    sub = parser.add_subparsers(dest="command", required=True)

    game_commands.add_parsers(sub, common)
    log_commands.add_parsers(sub, common)
    account.add_parsers(sub, common)
    ratings.add_parsers(sub, common)
    return parser


def main(
    argv: list[str] | None = None, *, out: TextIO | None = None, read_line: Callable[[], str] | None = None
) -> int:
    out = out or sys.stdout
    read_line = read_line or sys.stdin.readline
    args = build_parser().parse_args(argv)
    if args.command == "verify-fair":  # offline: no client, no server
        try:
            return log_commands.cmd_verify_fair(args, out)
        except (OSError, ValueError) as error:
            sys.stderr.write(f"condottiere: {error}\n")
            return 2
    client = ApiClient(getattr(args, "server", None) or default_server())
    try:
        done = game_commands.run(args, client, out, read_line)
        if done is None:
            done = log_commands.run(args, client, out)
        if done is None:
            done = account.run(args, client, out, read_line)
        if done is None:
            done = ratings.run(args, client, out)
        if done is not None:
            return done
    except ApiError as error:
        sys.stderr.write(f"condottiere: {error}\n")
        return 2
    except (OSError, ValueError, ConfigError) as error:  # connection refused, bad file or flag value
        sys.stderr.write(f"condottiere: {error}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
