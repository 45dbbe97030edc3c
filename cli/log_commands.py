"""The commands that make or read game logs: ``simulate`` (bot matches, in-process or through the
API, optionally imported into the archive), ``export``, ``import`` and ``verify-fair`` (offline)."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TextIO

from cli.client import ApiClient
from cli.options import Subparsers, add_config_flags, config_from_args

if TYPE_CHECKING:
    # Annotations only: cmd_simulate imports cli.simulate itself, when it runs (as before the split).
    from cli.simulate import GameRecord


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    sim = sub.add_parser("simulate", parents=[common], help="play N bot games and print win rates")
    add_config_flags(sim, players_default=None)
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
    fair.add_argument(
        "file",
        help="a finished game's log export (JSON), a bulk export (NDJSON), or a tournament's export "
        "(NDJSON: every table's game, and each duplicate round's shared commitment)",
    )
    fair.add_argument("--json", action="store_true", help="also print each report as JSON")


def cmd_simulate(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
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

    def progress(record: GameRecord) -> None:
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
            from games.base import fold
            from replays.export import export_log

            game = get_game(args.game_name)
            for record in records:
                assert record.events is not None  # kept: keep_events=args.archive
                result = game.result(fold(game, record.events))
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


def cmd_export(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
    document = client.export_log(args.game, args.token, format=args.format, timeout=args.wait)
    text = document if isinstance(document, str) else json.dumps(document, indent=1)
    if args.output and args.output != "-":
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
        out.write(f"Exported game {args.game} to {args.output}\n")
    else:
        out.write(text + "\n")
    return 0


def cmd_import(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int:
    with open(args.file, encoding="utf-8") as handle:
        document = json.load(handle)
    answer = client.import_log(document)
    # The game is replayed under the rules revision its log was recorded under: say which.
    revision = (client.game(answer["id"]).get("config") or {}).get("revision")
    shown = f" (rules revision {revision})" if revision is not None else ""
    out.write(f"Imported{shown} as game {answer.get('id')}\n")  # the id last: scripts cut it off the line
    return 0


def cmd_verify_fair(args: argparse.Namespace, out: TextIO) -> int:
    """Check exported logs with no server: the ``log`` export of a finished game (one JSON document,
    or NDJSON as the bulk export writes it, one document a line). Exit 0 when every one is fair."""
    from replays.fairness import verify_fair, verify_tournament

    with open(args.file, encoding="utf-8") as handle:
        text = handle.read()
    stripped = text.lstrip()
    if stripped.startswith("{") and "\n{" not in stripped.rstrip():
        documents = [json.loads(text)]
    else:
        documents = [json.loads(line) for line in text.splitlines() if line.strip()]
    all_fair = True
    if documents and documents[0].get("type") == "tournament":  # GET /v1/tournaments/{id}/export
        reports = verify_tournament(documents)
        documents = [d for d in documents if d.get("type") == "game"]
    else:
        reports = [verify_fair(document) for document in documents]
    for report in reports:
        all_fair = all_fair and report["ok"]
        out.write((_round_text(report) if "round" in report else _fairness_text(report)) + "\n")
        if args.json:
            out.write(json.dumps(report, indent=1) + "\n")
    return 0 if all_fair and documents else 1


def _round_text(report: Mapping[str, Any]) -> str:
    name = f"Duplicate round {report['round']} ({report['tables']} tables)"
    if report["ok"]:
        return f"{name}: fair. Every table shows the round's commitment and its seed, which opens it."
    reasons = []
    if not report["same_commitment"]:
        reasons.append("the tables show different commitments")
    if not report["same_seed"]:
        reasons.append("the tables were dealt from different seeds")
    if not report["opens"]:
        reasons.append("the commitment does not open to the seed")
    return f"{name}: NOT fair: " + "; ".join(reasons) + "."


def _fairness_text(report: Mapping[str, Any]) -> str:
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


def run(args: argparse.Namespace, client: ApiClient, out: TextIO) -> int | None:
    """The log command ``args`` names (``verify-fair`` aside: it needs no server), or None when it is
    not one of them."""
    if args.command == "simulate":
        return cmd_simulate(args, client, out)
    if args.command == "export":
        return cmd_export(args, client, out)
    if args.command == "import":
        return cmd_import(args, client, out)
    return None
