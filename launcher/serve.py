"""``python -m launcher serve``: the Procfile's processes, on an embedded Redis if need be.

Environment (see README.md, "Configuration"):
``REDIS_URL`` use this Redis and start none; ``DATA_DIR`` where the embedded Redis keeps its data
(default ``./var``; the server lives in ``$DATA_DIR/redis``); ``REDIS_PORT`` its port (default: a
free one); ``REDIS_APPENDFSYNC`` ``everysec`` (default) or ``always``; ``RQ_WORKERS`` and
``BOT_WORKERS`` how many processes of the Procfile's ``worker`` and ``bots`` (default 1 each);
``PORT``, ``HOST`` and ``WEB_CONCURRENCY`` go to gunicorn.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from honcho.environ import expand_processes, parse_procfile
from honcho.manager import Manager

from launcher.embedded_redis import EmbeddedRedis

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _exit_on_signal(signum, frame):
    # Until honcho installs its own handlers, SIGTERM or Ctrl-C must still unwind through
    # ``finally`` (so the embedded Redis is stopped cleanly), quietly: no traceback.
    raise SystemExit(128 + signum)


def child_environment(redis_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env["REDIS_URL"] = redis_url
    # The Procfile names console scripts (gunicorn, rq): find the ones of this interpreter's venv.
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env.setdefault("PYTHONUNBUFFERED", "1")
    env.setdefault("PORT", "8000")
    return env


def serve(procfile: Path = PROJECT_ROOT / "Procfile") -> int:
    signal.signal(signal.SIGTERM, _exit_on_signal)
    signal.signal(signal.SIGINT, _exit_on_signal)
    embedded: EmbeddedRedis | None = None
    try:
        redis_url = os.environ.get("REDIS_URL")
        if not redis_url:
            data_dir = Path(os.environ.get("DATA_DIR") or PROJECT_ROOT / "var") / "redis"
            port = int(os.environ["REDIS_PORT"]) if os.environ.get("REDIS_PORT") else None
            embedded = EmbeddedRedis(
                data_dir,
                port=port,
                appendfsync=os.environ.get("REDIS_APPENDFSYNC", "everysec"),
            )
            embedded.start()
            redis_url = embedded.url
            print(
                f"launcher: embedded redis-server at {redis_url} (data in {embedded.data_dir}, "
                f"appendfsync {embedded.appendfsync}, log {embedded.log_path})",
                flush=True,
            )
        else:
            print(f"launcher: using REDIS_URL={redis_url}", flush=True)

        env = child_environment(redis_url)
        processes = parse_procfile(procfile.read_text()).processes
        concurrency = {
            "worker": int(os.environ.get("RQ_WORKERS") or 1),
            "bots": int(os.environ.get("BOT_WORKERS") or 1),
        }
        manager = Manager()
        for process in expand_processes(processes, concurrency=concurrency, env=env):
            manager.add_process(
                process.name, process.cmd, quiet=process.quiet, env=process.env, cwd=str(procfile.parent)
            )
        manager.loop()
        return manager.returncode or 0
    finally:
        if embedded is not None:
            print("launcher: stopping the embedded redis-server", flush=True)
            embedded.stop()
