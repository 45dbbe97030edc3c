"""The account commands of ``condottiere``: signup, login, logout, games.

``login`` keeps the session token in a file only its owner may read (``credentials.json`` in
``$CONDOTTIERE_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/condottiere`` or ``~/.config/condottiere``),
one per server, and never prints it; ``games`` and ``join --account`` use it. ``$CONDOTTIERE_TOKEN``
(a personal access token, for scripts) takes its place when set.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from cli.client import ApiClient
from cli.options import Subparsers


def config_dir() -> Path:
    explicit = os.environ.get("CONDOTTIERE_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "condottiere"


def _credentials_file() -> Path:
    return config_dir() / "credentials.json"


def _load() -> dict[str, Any]:
    try:
        data = json.loads(_credentials_file().read_text())
    except (OSError, ValueError):
        return {}
    # Anything but the object _save writes (a file edited by hand) is no credentials at all.
    return data if isinstance(data, dict) else {}


def _save(data: dict[str, Any]) -> None:
    path = _credentials_file()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # Created with 0600 before anything is written into it: the token is never world-readable.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle)


def saved_token(server: str) -> str | None:
    return os.environ.get("CONDOTTIERE_TOKEN") or (_load().get(server) or {}).get("token")


def _password(args: argparse.Namespace, read_line: Callable[[], str], prompt: str = "Password: ") -> str:
    if args.password_stdin:
        return read_line().rstrip("\n")
    return getpass.getpass(prompt)


def cmd_signup(args: argparse.Namespace, client: ApiClient, out: TextIO, read_line: Callable[[], str]) -> int:
    account = client.create_account(args.handle, _password(args, read_line), bot=args.bot)
    kind = "bot account" if account["bot"] else "account"
    out.write(
        f"Created the {kind} {account['handle']}. Sign in with: condottiere login {account['handle']}\n"
    )
    return 0


def cmd_login(args: argparse.Namespace, client: ApiClient, out: TextIO, read_line: Callable[[], str]) -> int:
    session = client.sign_in(args.handle, _password(args, read_line))
    data = _load()
    data[client.server] = {
        "handle": session["handle"],
        "token": session["token"],
        "expires": session["expires"],
    }
    _save(data)
    out.write(f"Signed in to {client.server} as {session['handle']} (until {session['expires']}).\n")
    return 0


def cmd_logout(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
    data = _load()
    entry = data.pop(client.server, None)
    if entry is None:
        out.write("Not signed in.\n")
        return 0
    try:
        client.sign_out(entry["token"])
    finally:
        _save(data)
    out.write(f"Signed out ({entry['handle']}).\n")
    return 0


def _need_token(client: ApiClient) -> str:
    token = saved_token(client.server)
    if token is None:
        raise SystemExit("not signed in: condottiere login HANDLE (or set CONDOTTIERE_TOKEN)")
    return token


def _line(game: dict[str, Any]) -> str:
    mark = "* your turn" if game["your_turn"] else ""
    if game["status"] == "finished":
        mark = (
            "won"
            if game["won"]
            else "lost"
            if game["result"] and game["result"].get("winners")
            else "no winner"
        )
    deadline = f" (by {game['deadline']})" if game.get("deadline") and game["your_turn"] else ""
    where = f"{game['game_id']}  {game['game']:<16} seat {game['seat']}  {game['status']:<8}"
    return f"{where} {mark}{deadline}".rstrip()


def cmd_games(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
    mine = client.my_games(_need_token(client), limit=args.limit)
    out.write("Running (your turn first):\n" if mine["running"] else "No running games.\n")
    for game in mine["running"]:
        out.write(f"  {_line(game)}\n")
    if mine["finished"]:
        out.write("Finished (newest first):\n")
        for game in mine["finished"]:
            out.write(f"  {_line(game)}\n")
    return 0


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    for name, text in (("signup", "create an account"), ("login", "sign in (keeps the session token)")):
        parser = sub.add_parser(name, parents=[common], help=text)
        parser.add_argument("handle")
        parser.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
        if name == "signup":
            parser.add_argument("--bot", action="store_true", help="a bot account")
    sub.add_parser("logout", parents=[common], help="sign out (the session token stops working)")
    games = sub.add_parser("games", parents=[common], help="my games (signed in): running, then finished")
    games.add_argument("--limit", type=int, default=20, help="finished games shown")


def run(args: argparse.Namespace, client: ApiClient, out: TextIO, read_line: Callable[[], str]) -> int | None:
    """The account command ``args`` names, or None when it is not one of them."""
    if args.command == "signup":
        return cmd_signup(args, client, out, read_line)
    if args.command == "login":
        return cmd_login(args, client, out, read_line)
    if args.command == "logout":
        return cmd_logout(args, client, out)
    if args.command == "games":
        return cmd_games(args, client, out)
    return None
