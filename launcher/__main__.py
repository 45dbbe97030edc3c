"""Command line of the launcher: ``serve``, ``redis`` and ``openapi`` (see ``./run``)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from launcher.embedded_redis import DataDirectoryBusy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m launcher", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser(
        "serve", help="gunicorn and the RQ workers (Procfile), embedded Redis if REDIS_URL is unset"
    )
    serve.add_argument("--procfile", type=Path, default=None)

    redis_cmd = commands.add_parser("redis", help="only the embedded Redis, in the foreground")
    redis_cmd.add_argument("--data-dir", type=Path, default=None)
    redis_cmd.add_argument("--port", type=int, default=None)

    openapi = commands.add_parser("openapi", help="print (or write) the OpenAPI document of the app as YAML")
    openapi.add_argument("--output", type=Path, default=None)

    args = parser.parse_args(argv)
    try:
        return _run(args)
    except DataDirectoryBusy as error:
        print(f"launcher: {error}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    if args.command == "serve":
        from launcher.serve import PROJECT_ROOT
        from launcher.serve import serve as run_serve

        return run_serve(args.procfile or PROJECT_ROOT / "Procfile")

    if args.command == "redis":
        from launcher.embedded_redis import EmbeddedRedis
        from launcher.serve import PROJECT_ROOT

        data_dir = args.data_dir or Path(os.environ.get("DATA_DIR") or PROJECT_ROOT / "var") / "redis"
        port = args.port or (int(os.environ["REDIS_PORT"]) if os.environ.get("REDIS_PORT") else None)
        server = EmbeddedRedis(data_dir, port=port, appendfsync=os.environ.get("REDIS_APPENDFSYNC", "always"))
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
        with server:
            print(f"REDIS_URL={server.url}  (data in {server.data_dir}; Ctrl-C stops it)", flush=True)
            try:
                signal.pause()
            except KeyboardInterrupt:
                pass
        return 0

    if args.command == "openapi":
        from launcher.openapi import spec_yaml

        text = spec_yaml()
        if args.output:
            args.output.write_text(text)
        else:
            sys.stdout.write(text)
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
