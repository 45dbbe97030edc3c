"""The commands of one game on the server: ``new``, ``join``, ``play``, ``watch``, ``show``,
``token``, ``resign``, ``abort`` and ``list``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from cli import account
from cli.client import ApiClient
from cli.display import text_for
from cli.options import Subparsers, add_config_flags, config_from_args, parse_bots
from cli.play import play_loop, seat_names


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    new = sub.add_parser("new", parents=[common], help="create a game")
    add_config_flags(new)
    new.add_argument("--bots", help="heuristic | heuristic,random,... (seats 1..) | 1=heuristic,2=random")
    new.add_argument("--all-bots", action="store_true", help="with one level: bots in every seat, 0 included")
    new.add_argument("--quiet", action="store_true", help="print only the game id")

    join = sub.add_parser("join", parents=[common], help="claim a seat (prints its token)")
    join.add_argument("game")
    join.add_argument("--name")
    join.add_argument("--seat", type=int)
    join.add_argument("--bot", help="fill the seat with a bot of this level instead")
    join.add_argument(
        "--account", action="store_true", help="claim it as your account (condottiere login first)"
    )

    play = sub.add_parser(
        "play", parents=[common], help="play in the terminal (a new game against bots, or GAME --token)"
    )
    play.add_argument("game", nargs="?")
    play.add_argument("--token")
    play.add_argument("--name", default="You")
    add_config_flags(play)
    play.add_argument("--bots", help="bot levels for the other seats (default heuristic)")
    play.add_argument("--auto", metavar="LEVEL", help="let a bot of LEVEL play your seat (demo, tests)")
    play.add_argument("--auto-seed", type=int, default=0)
    play.add_argument("--quiet", action="store_true", help="do not print the events between your turns")

    watch = sub.add_parser("watch", parents=[common], help="follow a game live")
    watch.add_argument("game")
    watch.add_argument("--token", help="watch as your seat (your hand is shown in events)")
    watch.add_argument("--after", type=int, default=0, help="start after this version")
    watch.add_argument(
        "--board", action="store_true", help="redraw the board after each battle and at the end"
    )

    show = sub.add_parser("show", parents=[common], help="show a game's seats and board")
    show.add_argument("game")
    show.add_argument("--token")

    token = sub.add_parser("token", parents=[common], help="rotate your seat token (prints the new one)")
    token.add_argument("game")
    token.add_argument("--token", required=True, help="your current seat token")
    for action, text in (
        ("resign", "resign your seat: you leave the game for good (RL-X17)"),
        ("abort", "abort the game before its first battle ends: no result (RL-X18)"),
    ):
        leave = sub.add_parser(action, parents=[common], help=text)
        leave.add_argument("game")
        leave.add_argument("--token", required=True, help="your seat token")

    games = sub.add_parser("list", parents=[common], help="list games")
    games.add_argument("--status", choices=["open", "active", "finished"])
    games.add_argument("--limit", type=int, default=20)


def cmd_new(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
    config = config_from_args(args)
    bots = parse_bots(args.bots, args.players, first_free=0 if args.all_bots else 1)
    summary = client.create_game(config, game=args.game_name, bots=bots)
    out.write(f"{summary['id']}\n")
    if not args.quiet:
        out.write(
            f"Created {summary['title']} game {summary['id']} ({args.players} players, "
            f"config {json.dumps(summary.get('config'), sort_keys=True)}); bots: {bots or 'none'}; "
            f"status {summary['status']}.\n"
            f"Join with: condottiere join {summary['id']} --name YOUR_NAME\n"
        )
    return 0


def cmd_join(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
    token = account.saved_token(client.server) if args.account else None
    if args.account and token is None:
        raise SystemExit("join --account: not signed in (condottiere login HANDLE)")
    claim = client.claim_seat(args.game, name=args.name, seat=args.seat, bot=args.bot, account_token=token)
    if claim.get("token"):
        out.write(f"seat {claim['seat']} token {claim['token']}\n")
        out.write(f"Play with: condottiere play {args.game} --token {claim['token']}\n")
    else:
        out.write(f"seat {claim['seat']} is now a {claim.get('bot')} bot\n")
    return 0


def cmd_play(args: argparse.Namespace, client: ApiClient, out: TextIO, read_line: Callable[[], str]) -> int:
    if args.game:
        if not args.token:
            raise SystemExit("play GAME needs --token (from 'condottiere join')")
        game_id, token = args.game, args.token
    else:
        config = config_from_args(args)
        bots = parse_bots(args.bots or "heuristic", args.players, first_free=1)
        summary = client.create_game(config, game=args.game_name, bots=bots)
        game_id = summary["id"]
        claim = client.claim_seat(game_id, name=args.name, seat=0)
        token = claim["token"]
        out.write(
            f"Game {game_id}: you are seat 0 ({args.name}). "
            f"Resume with: condottiere play {game_id} --token {token}\n"
        )
        if not claim.get("started"):
            out.write("Waiting for the other seats to be claimed...\n")
    return play_loop(
        client,
        game_id,
        token,
        out=out,
        read_line=read_line,
        auto=args.auto,
        seed=args.auto_seed,
        quiet=args.quiet,
    )


def cmd_watch(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
    summary = client.game(args.game)
    text = text_for(summary.get("game"))
    names = seat_names(summary)
    last = args.after

    def board() -> Mapping[str, Any]:
        return client.view(args.game, args.token)["view"] or {}

    out.write(f"Watching {summary['title']} game {args.game} ({summary['status']}), from version {last}.\n")
    out.flush()
    while True:
        for item in client.stream(args.game, args.token, last_event_id=last):
            if item.event == "end":
                if args.board:
                    out.write(text.render_text(board(), names) + "\n")
                out.write(f"Game over at version {item.data.get('version')}.\n")
                return 0
            if isinstance(item.data, Mapping) and "event" in item.data:
                last = item.data.get("version", last)
                out.write(f"{last:>5}  {text.describe_event(item.data['event'], names)}\n")
                out.flush()
                if args.board and item.data["event"].get("type") == "battle_ended":
                    out.write(text.render_text(board(), names) + "\n")


def cmd_show(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
    summary = client.game(args.game)
    current = client.view(args.game, args.token)
    out.write(f"{summary['title']} game {args.game}: {summary['status']}, version {summary['version']}\n")
    clock = {entry["seat"]: entry for entry in (summary.get("clock") or {}).get("seats", [])}
    for seat in summary.get("seats") or []:
        kind = seat.get("bot") and f"{seat['bot']} bot" or seat.get("kind") or "free"
        timing = ""
        if seat["seat"] in clock:
            entry = clock[seat["seat"]]
            if entry["remaining_ms"] is not None:
                timing += f", {entry['remaining_ms'] / 1000:.0f} s left to move"
            if entry["bank_ms"] is not None:
                timing += f", bank {entry['bank_ms'] / 1000:.0f} s"
            if entry["timeouts"]:
                timing += f", {entry['timeouts']} timeout(s)"
        out.write(f"  seat {seat['seat']}: {seat.get('name') or '-'} ({kind}{timing})\n")
    if current.get("view"):
        text = text_for(summary.get("game"))
        out.write("\n" + text.render_text(current["view"], seat_names(summary)) + "\n")
    return 0


def cmd_token(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
    rotated = client.rotate_token(args.game, args.token)
    out.write(f"seat {rotated['seat']} token {rotated['token']}\n")
    out.write("The old token no longer works.\n")
    return 0


def cmd_leave(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
    answer = (
        client.resign(args.game, args.token)
        if args.command == "resign"
        else client.abort(args.game, args.token)
    )
    summary = client.game(args.game)
    result = summary.get("result") or {}
    winners = ", ".join(str(w) for w in result.get("winners") or []) or "nobody"
    out.write(f"{args.command}ed at version {answer['version']}: {summary['status']}, ")
    out.write(f"reason {result.get('reason')}, winners {winners}\n")
    return 0


def cmd_list(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
    params = {"status": args.status} if args.status else {}
    page = client.list_games(limit=args.limit, **params)
    for game in page.get("games") or []:
        names = ", ".join(s.get("name") or "-" for s in game.get("seats") or [])
        out.write(f"{game['id']}  {game['status']:<8} v{game['version']:<5} {names}\n")
    return 0


def run(args: argparse.Namespace, client: ApiClient, out: TextIO, read_line: Callable[[], str]) -> int | None:
    """The game command ``args`` names, or None when it is not one of them."""
    if args.command == "new":
        return cmd_new(args, client, out)
    if args.command == "join":
        return cmd_join(args, client, out)
    if args.command == "play":
        return cmd_play(args, client, out, read_line)
    if args.command == "watch":
        return cmd_watch(args, client, out)
    if args.command == "show":
        return cmd_show(args, client, out)
    if args.command == "token":
        return cmd_token(args, client, out)
    if args.command in ("resign", "abort"):
        return cmd_leave(args, client, out)
    if args.command == "list":
        return cmd_list(args, client, out)
    return None
