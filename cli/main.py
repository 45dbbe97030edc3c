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
import json
import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO

from cli import account, ratings
from cli.client import ApiClient, ApiError, default_server
from cli.display import GameText, text_for

DEFAULT_GAME = "condottiere"
BOT_PATIENCE_SECONDS = 30.0


# -- configuration from flags ---------------------------------------------------------------------


def _add_config_flags(parser: argparse.ArgumentParser, players_default: int | None = 4) -> None:
    parser.add_argument(
        "--game",
        dest="game_name",
        default=DEFAULT_GAME,
        help="the game to create (default %(default)s; e.g. rio_de_la_plata)",
    )
    parser.add_argument("--players", type=int, default=players_default, help="seats (default %(default)s)")
    parser.add_argument(
        "--config",
        metavar="JSON",
        type=json.loads,
        help="more configuration as a JSON object, e.g. '{\"board\": {...}}' (the game validates it)",
    )
    # Condottiere's options, as flags (other games take theirs through --config).
    parser.add_argument(
        "--ruleset", choices=["2006", "classic"], help="Condottiere: 2006 (default) or classic"
    )
    parser.add_argument("--draw-after-battle", action="store_true", help="OPT-DRAW (2006 only)")
    parser.add_argument("--points", type=int, metavar="TARGET", help="play a match for points (OPT-POINTS)")
    parser.add_argument("--bigger-kingdoms", action="store_true", help="OPT-BIG")
    parser.add_argument("--capturing", action="store_true", help="OPT-CAP / CL-7")
    parser.add_argument("--hidden-cards", action="store_true", help="OPT-HID (2006 only)")
    parser.add_argument("--seed", type=int, help="fix the shuffles (default: drawn by the server)")


def config_from_args(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.draw_after_battle:
        options["draw_after_battle"] = True
    if args.points is not None:
        options["points_target"] = args.points
    if args.bigger_kingdoms:
        options["bigger_kingdoms"] = True
    if args.capturing:
        options["capturing"] = True
    if args.hidden_cards:
        options["hidden_cards"] = True
    config: dict[str, Any] = {"players": args.players}
    if args.ruleset is not None:
        config["ruleset"] = args.ruleset
    if options:
        config["options"] = options
    if args.seed is not None:
        config["seed"] = args.seed
    if args.config is not None:
        if not isinstance(args.config, dict):
            raise ValueError("--config must be a JSON object")
        config.update(args.config)
    return config


def parse_bots(spec: str | None, players: int, first_free: int = 1) -> dict[int, str]:
    """``heuristic`` (every seat from ``first_free``), ``heuristic,random`` (seats from
    ``first_free`` in order) or ``1=heuristic,3=random`` (explicit seats)."""
    if not spec:
        return {}
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    if all("=" in p for p in parts):
        return {int(seat): level for seat, level in (p.split("=", 1) for p in parts)}
    if any("=" in p for p in parts):
        raise ValueError("--bots: use either levels or seat=level pairs, not both")
    if len(parts) == 1:
        return {seat: parts[0] for seat in range(first_free, players)}
    return {first_free + i: level for i, level in enumerate(parts)}


# -- playing --------------------------------------------------------------------------------------


def seat_names(summary: Mapping[str, Any]) -> dict[int, str]:
    return {s["seat"]: s["name"] for s in summary.get("seats") or [] if s.get("name")}


QUIT = ("q", "quit", "exit")
BACK = ("b", "back")


class MenuNumbers:
    """Numbers for menu entries that keep their meaning for a whole game: an entry (known by its
    label) keeps the number it was first shown with and a new entry takes the next free number, so a
    number read off one menu and typed after the menu changed (another seat moved, a placement used
    up a space) picks the same move or none, never the entry that moved up into its place. Entries
    are listed by number; a new client (or a fresh object) starts again from 1."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}

    def number(self, menu: Sequence[Mapping[str, Any]]) -> list[tuple[int, Mapping[str, Any]]]:
        numbered = []
        seen: dict[str, int] = {}
        for entry in menu:
            # A label shown twice in one menu (it should not be) still gets one number per entry.
            seen[entry["label"]] = seen.get(entry["label"], 0) + 1
            key = entry["label"] if seen[entry["label"]] == 1 else f"{entry['label']}#{seen[entry['label']]}"
            if key not in self._numbers:
                self._numbers[key] = len(self._numbers) + 1
            numbered.append((self._numbers[key], entry))
        return sorted(numbered, key=lambda item: item[0])


def _prompt_number(
    numbers: Sequence[int],
    prompt: str,
    read_line: Callable[[], str],
    out: TextIO,
    *,
    back: bool = False,
    keys: Mapping[str, int] | None = None,
) -> int | str | None:
    """One of ``numbers`` as typed (or the number of one of ``keys`` typed as is); ``None`` when the
    input ends or the player quits; ``"back"`` (when ``back``) to return to the previous menu."""
    shown = f"1-{len(numbers)}" if list(numbers) == list(range(1, len(numbers) + 1)) else "a number above"
    if keys:
        shown += f", or one as {next(iter(keys))}"
    extra = ", b to go back" if back else ""
    while True:
        out.write(f"{prompt} [{shown}] (q to quit{extra}): ")
        out.flush()
        line = read_line()
        if line == "":
            return None
        answer = line.strip().lower()
        if answer in QUIT:
            return None
        if back and answer in BACK:
            return "back"
        if answer.isdigit() and int(answer) in numbers:
            return int(answer)
        if keys and answer.replace(" ", "") in keys:
            return keys[answer.replace(" ", "")]
        out.write(f"Please type one of the numbers shown ({', '.join(map(str, numbers))}).\n")


def ask_move(
    view: Mapping[str, Any],
    read_line: Callable[[], str],
    out: TextIO,
    text: GameText,
    numbers: MenuNumbers | None = None,
) -> dict[str, Any] | None:
    """Prompt until a valid move; None when the input ends or the player quits. The menu is the
    game's (``TextHooks.move_menu``): a move with many variants is one entry and a second question,
    from which ``b`` goes back to the first. ``numbers`` keeps entries' numbers across calls (the
    play loop's, for a whole game); without it the menu is numbered from 1."""
    menu = text.move_menu(list(view.get("legal_moves") or []), view)
    numbered = (numbers or MenuNumbers()).number(menu)
    by_number = dict(numbered)
    while True:
        out.write("Your moves:\n")
        for number, entry in numbered:
            out.write(f"  {number:>2}) {entry['label']}\n")
        choice = _prompt_number([n for n, _ in numbered], "Your move", read_line, out)
        if choice is None or isinstance(choice, str):
            return None
        entry = by_number[choice]
        if "options" not in entry:
            return dict(entry["move"])
        if entry.get("prompt"):
            out.write(f"{entry['prompt']}?\n")
        for number, option in enumerate(entry["options"], 1):
            out.write(f"  {number:>2}) {option['label']}\n")
        options = list(range(1, len(entry["options"]) + 1))
        keys = {str(o["key"]).lower(): n for n, o in enumerate(entry["options"], 1) if o.get("key")}
        variant = _prompt_number(options, "Which one", read_line, out, back=True, keys=keys)
        if variant == "back":
            continue
        return None if variant is None else dict(entry["options"][int(variant) - 1]["move"])


def play_loop(
    client: ApiClient,
    game_id: str,
    token: str,
    *,
    out: TextIO,
    read_line: Callable[[], str],
    auto: str | None = None,
    seed: int = 0,
    quiet: bool = False,
) -> int:
    """Play one seat to the end of the game. Returns the exit status (0: game over)."""
    from bots import choose_move, only_move

    summary = client.game(game_id)
    game_name = summary.get("game")
    text = text_for(game_name)
    names = seat_names(summary)
    bot_seats = {s["seat"] for s in summary.get("seats") or [] if s.get("bot")}
    warned = False
    rng = random.Random(seed)
    seen = 0
    numbers = MenuNumbers()
    # Every view comes from the seat's view stream (no polling): the view now, then after each change.
    views = client.follow_views(game_id, token, read_timeout=60.0)
    current = _next_view(views)
    while True:
        view = current["view"] or {}
        if current["status"] != "open" and len(names) < len(summary.get("seats") or []):
            # Seats claimed after we looked (the game was still open): learn their names.
            summary = client.game(game_id)
            names = seat_names(summary)
            bot_seats = {s["seat"] for s in summary.get("seats") or [] if s.get("bot")}
        if not quiet and current["version"] > seen:
            for item in client.all_events(game_id, token, after=seen):
                out.write("  " + text.describe_event(item["event"], names) + "\n")
                seen = max(seen, item["version"])  # may run past the view's version: bots are fast
        seen = max(seen, current["version"])
        me = current["seat"]
        if current["status"] == "finished":
            out.write("\n" + text.render_text(view, names) + "\n")
            return 0
        if me in (view.get("awaiting") or []):
            out.write("\n" + text.render_text(view, names) + "\n")
            forced = only_move(view)
            if auto:
                move = choose_move(game_name, auto, view, rng)
                if not quiet:
                    out.write(f"{auto} bot plays: {text.describe_move(move)}\n")
            elif forced is not None:
                # RL-12: the hand discard asks every seat holding cards; one that may only keep
                # need not be asked (nor any seat with a single legal move).
                move = forced
                out.write(f"Only one move is possible: {text.describe_move(move)} (answered for you)\n")
            else:
                move = ask_move(view, read_line, out, text, numbers)
                if move is None:
                    out.write(
                        f"\nLeaving the game. Resume with: condottiere play {game_id} --token {token}\n"
                    )
                    return 1
            try:
                client.move(game_id, token, move, expected_version=current["version"], minimal=True)
            except ApiError as error:
                out.write(f"Move refused: {error}\n")
                if error.status not in (409, 412):  # nothing changed: no view will come, read it
                    current = client.view(game_id, token)
                    continue
        elif not quiet:
            waiting = ", ".join(names.get(s, f"seat {s}") for s in view.get("awaiting") or [])
            out.write(f"... waiting for {waiting}\n")
        following = _next_view(views, patience=BOT_PATIENCE_SECONDS)
        while following is None:
            if bot_seats & set(view.get("awaiting") or []) and not warned:
                out.write(
                    "(No bot move for a while: bot seats are played by the server's RQ worker on "
                    "the 'bots' queue. Is it running?)\n"
                )
                warned = True
            following = _next_view(views, patience=BOT_PATIENCE_SECONDS)
        current = following


def _next_view(views, patience: float | None = None) -> dict[str, Any] | None:
    """The next view from a ``follow_views`` iterator, skipping heartbeats; ``None`` once ``patience``
    seconds pass without one (the caller may warn, then wait again)."""
    deadline = None if patience is None else time.monotonic() + patience
    for item in views:
        if item is not None:
            return item
        if deadline is not None and time.monotonic() > deadline:
            return None
    raise ApiError(410, {"detail": "the view stream ended before the game did"})


# -- commands -------------------------------------------------------------------------------------


def cmd_new(args, client: ApiClient, out: TextIO) -> int:
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


def cmd_join(args, client: ApiClient, out: TextIO) -> int:
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


def cmd_play(args, client: ApiClient, out: TextIO, read_line: Callable[[], str]) -> int:
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


def cmd_watch(args, client: ApiClient, out: TextIO) -> int:
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


def cmd_show(args, client: ApiClient, out: TextIO) -> int:
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


def cmd_token(args, client: ApiClient, out: TextIO) -> int:
    rotated = client.rotate_token(args.game, args.token)
    out.write(f"seat {rotated['seat']} token {rotated['token']}\n")
    out.write("The old token no longer works.\n")
    return 0


def cmd_leave(args, client: ApiClient, out: TextIO) -> int:
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


def cmd_list(args, client: ApiClient, out: TextIO) -> int:
    params = {"status": args.status} if args.status else {}
    page = client.list_games(limit=args.limit, **params)
    for game in page.get("games") or []:
        names = ", ".join(s.get("name") or "-" for s in game.get("seats") or [])
        out.write(f"{game['id']}  {game['status']:<8} v{game['version']:<5} {names}\n")
    return 0


def cmd_simulate(args, client: ApiClient | None, out: TextIO) -> int:
    from cli.simulate import format_rates, simulate, simulate_http, win_rates

    config = config_from_args(args)
    config.pop("seed", None)
    config.pop("players", None)
    lineup = [level.strip() for level in args.lineup.split(",") if level.strip()]
    if args.players and args.players != len(lineup):
        if len(lineup) == 1:
            lineup = lineup * args.players
        else:
            raise SystemExit(f"--lineup names {len(lineup)} bots for --players {args.players}")

    def progress(record) -> None:
        if args.verbose:
            where = f" {record.game_id}" if record.game_id else ""
            out.write(
                f"game {record.index + 1}{where}: winners {record.winning_levels() or 'none'} "
                f"({record.reason}, {record.moves} moves)\n"
            )
            out.flush()

    started = time.perf_counter()
    if args.http or args.server_bots:
        records = simulate_http(
            client.server,
            args.game_name,
            config,
            lineup,
            args.games,
            seed=args.seed or 0,
            rotate=not args.no_rotate,
            concurrency=args.concurrency,
            server_bots=args.server_bots,
            on_game=progress,
        )
    else:
        records = simulate(
            args.game_name,
            config,
            lineup,
            args.games,
            seed=args.seed or 0,
            rotate=not args.no_rotate,
            keep_events=args.archive,
            on_game=progress,
        )
        if args.archive:
            imported = 0
            from games import get_game
            from replays.export import export_log

            game = get_game(args.game_name)
            for record in records:
                result = game.result(_fold(game, record.events))
                doc = export_log(
                    game,
                    record.events,
                    players=[f"{lvl} bot" for lvl in record.levels],
                    finished=True,
                    result=result,
                )
                client.import_log(doc)
                imported += 1
            out.write(f"{imported} games imported into the archive of {client.server}\n")
    elapsed = time.perf_counter() - started
    out.write(
        f"{args.game_name}, config {json.dumps(config, sort_keys=True)}, {len(lineup)} players, "
        f"lineup {','.join(lineup)}"
        f"{' (seats rotated)' if not args.no_rotate else ''}; {elapsed:.1f} s\n"
    )
    out.write(format_rates(win_rates(records), records, wall_seconds=elapsed) + "\n")
    return 0


def _fold(game, events):
    from games.base import fold

    return fold(game, events)


def cmd_export(args, client: ApiClient, out: TextIO) -> int:
    document = client.export_log(args.game, args.token, format=args.format, timeout=args.wait)
    text = document if isinstance(document, str) else json.dumps(document, indent=1)
    if args.output and args.output != "-":
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
        out.write(f"Exported game {args.game} to {args.output}\n")
    else:
        out.write(text + "\n")
    return 0


def cmd_import(args, client: ApiClient, out: TextIO) -> int:
    with open(args.file, encoding="utf-8") as handle:
        document = json.load(handle)
    answer = client.import_log(document)
    # The game is replayed under the rules revision its log was recorded under: say which.
    revision = (client.game(answer["id"]).get("config") or {}).get("revision")
    shown = f" (rules revision {revision})" if revision is not None else ""
    out.write(f"Imported{shown} as game {answer.get('id')}\n")  # the id last: scripts cut it off the line
    return 0


def cmd_verify_fair(args, out: TextIO) -> int:
    """Check exported logs with no server: the ``log`` export of a finished game (one JSON document,
    or NDJSON as the bulk export writes it, one document a line). Exit 0 when every one is fair."""
    from replays.fairness import verify_fair

    with open(args.file, encoding="utf-8") as handle:
        text = handle.read()
    stripped = text.lstrip()
    if stripped.startswith("{") and "\n{" not in stripped.rstrip():
        documents = [json.loads(text)]
    else:
        documents = [json.loads(line) for line in text.splitlines() if line.strip()]
    all_fair = True
    for document in documents:
        report = verify_fair(document)
        all_fair = all_fair and report["ok"]
        out.write(_fairness_text(report) + "\n")
        if args.json:
            out.write(json.dumps(report, indent=1) + "\n")
    return 0 if all_fair and documents else 1


def _fairness_text(report: dict) -> str:
    name = f"{report.get('game')} game {report.get('game_id')}"
    if report["ok"]:
        kind = "prearranged (its creator chose the seed or the deck)" if report["prearranged"] else "drawn"
        return (
            f"{name}: fair. The commitment opens to the revealed seed ({kind}) and all "
            f"{report['random_events']} random events are the ones the seed gives."
        )
    reasons = []
    if report.get("problem"):
        reasons.append(report["problem"])
    if not report["opens"]:
        reasons.append("the commitment does not open to the seed in the log (or there is none)")
    if report.get("log_error"):
        error = report["log_error"]
        reasons.append(f"the rules refuse event {error['index'] + 1}: {error['message']}")
    if report.get("mismatch"):
        mismatch = report["mismatch"]
        shown = (mismatch.get("event") or {}).get("type")
        reasons.append(f"event {mismatch['version']} ({shown}) is not what the seed gives")
    return f"{name}: NOT fair: " + "; ".join(reasons or ["unknown"]) + "."


# -- entry point ----------------------------------------------------------------------------------


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

    new = sub.add_parser("new", parents=[common], help="create a game")
    _add_config_flags(new)
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
    _add_config_flags(play)
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

    sim = sub.add_parser("simulate", parents=[common], help="play N bot games and print win rates")
    _add_config_flags(sim, players_default=None)
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--lineup", default="heuristic,random,random,random", help="one bot level per seat")
    sim.add_argument("--no-rotate", action="store_true", help="keep every level in its seat")
    sim.add_argument("--http", action="store_true", help="play through the server's API (client-side bots)")
    sim.add_argument(
        "--server-bots",
        action="store_true",
        help="through the API, with the server's bot seats (needs an RQ worker on 'bots')",
    )
    sim.add_argument("--concurrency", type=int, default=1, help="HTTP games at a time")
    sim.add_argument(
        "--archive", action="store_true", help="in-process games: import them into the server's archive"
    )
    sim.add_argument("--verbose", action="store_true")

    export = sub.add_parser("export", parents=[common], help="export a game's log")
    export.add_argument("game")
    export.add_argument("--token", help="a running game: export what your seat may see")
    export.add_argument("--format", choices=["log", "json", "markdown", "html"], default="log")
    export.add_argument("--wait", type=float, default=30.0, help="seconds to wait for the export job")
    export.add_argument("-o", "--output", help="file (default: standard output)")

    imp = sub.add_parser("import", parents=[common], help="import a game log into the archive")
    imp.add_argument("file")

    fair = sub.add_parser(
        "verify-fair",
        parents=[common],
        help="check an exported log, with no server: the seed commitment opens and every shuffle and die"
        " is the one the seed gives",
    )
    fair.add_argument("file", help="a finished game's log export (JSON), or a bulk export (NDJSON)")
    fair.add_argument("--json", action="store_true", help="also print each report as JSON")
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
            return cmd_verify_fair(args, out)
        except (OSError, ValueError) as error:
            sys.stderr.write(f"condottiere: {error}\n")
            return 2
    client = ApiClient(getattr(args, "server", None) or default_server())
    try:
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
        if args.command == "simulate":
            return cmd_simulate(args, client, out)
        if args.command == "export":
            return cmd_export(args, client, out)
        if args.command == "import":
            return cmd_import(args, client, out)
        done = account.run(args, client, out, read_line)
        if done is None:
            done = ratings.run(args, client, out)
        if done is not None:
            return done
    except ApiError as error:
        sys.stderr.write(f"condottiere: {error}\n")
        return 2
    except (OSError, ValueError) as error:  # connection refused, bad file, bad flag value
        sys.stderr.write(f"condottiere: {error}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
