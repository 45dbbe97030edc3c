"""The game configuration flags of ``new``, ``play`` and ``simulate`` (``--game``, ``--players``,
``--config`` and Condottiere's options) and the ``--bots`` seat specifications."""

from __future__ import annotations

import argparse
import json
from typing import Any, TypeAlias

DEFAULT_GAME = "condottiere"

# What ``ArgumentParser.add_subparsers()`` returns, for the modules that add their commands to it: a
# private class of argparse, generic only in typeshed (hence the string: not subscriptable at run time).
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_config_flags(parser: argparse.ArgumentParser, players_default: int | None = 4) -> None:
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
