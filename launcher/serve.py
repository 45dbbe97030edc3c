"""``python -m launcher serve``: the Procfile's processes, on an embedded Redis if need be, under
supervisord.

Environment (see docs/operations.md, "Configuration"):
``REDIS_URL`` use this Redis and start none (when it names a cluster, the embedded Redis still
starts, for RQ's queues, unless ``RQ_REDIS_URL`` names a plain Redis for them); ``DATA_DIR`` where
the embedded Redis keeps its data (default ``./var``; the server lives in ``$DATA_DIR/redis``);
``REDIS_PORT`` its port (default: a free one); ``REDIS_APPENDFSYNC`` ``always`` (default) or
``everysec``; ``RQ_WORKERS`` and ``BOT_WORKERS`` how many processes of the Procfile's ``worker`` and
``bots`` (default 1 each);
``PORT``, ``HOST`` and ``WEB_CONCURRENCY`` go to gunicorn.

Why supervisord (not honcho, not our own loop): honcho stops every process as soon as one exits,
so one dead RQ worker took the whole API down. supervisord (Supervisor 4, maintained since 2004,
packaged by every Linux distribution) restarts a child that dies, with a growing delay between
failed starts (``startretries``), logs every exit and start, and stops programs in reverse priority
order, each with its own grace (``stopwaitsecs``) before SIGKILL: the web server first (its grace
longer than gunicorn's own), then the workers and the janitor (RQ's warm shutdown lets a job end),
the embedded Redis last (it flushes its append-only file on SIGTERM). circus would do as well but
is less maintained; systemd is what a production machine should use instead (docs/operations.md,
"Production").
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import NoReturn

from launcher.embedded_redis import EmbeddedRedis, die_with_parent
from store.connections import is_cluster_url
from store.queues import queue_url

PROJECT_ROOT = Path(__file__).resolve().parent.parent

# Start order (lower first); supervisord stops in the reverse order, one priority at a time.
PRIORITIES = {"redis": 10, "janitor": 20, "worker": 30, "bots": 30, "web": 40}


def _grace_seconds() -> dict[str, int]:
    gunicorn_grace = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT") or 5)
    return {
        # Longer than gunicorn's own graceful timeout, so gunicorn ends its requests itself.
        "web": gunicorn_grace + 10,
        # RQ's warm shutdown waits for the running job; a bot turn or a verify job takes seconds.
        "worker": int(os.environ.get("WORKER_STOP_GRACE") or 30),
        "bots": int(os.environ.get("WORKER_STOP_GRACE") or 30),
        # An analysis takes minutes: it is not waited for; the killed run is redone (service.jobs).
        "analysis": 10,
        "janitor": 10,
        "redis": 60,  # a large append-only file takes a while to flush
    }


def _exit_on_signal(signum: int, frame: FrameType | None) -> NoReturn:
    # Before supervisord runs, SIGTERM or Ctrl-C must still unwind through ``finally`` quietly.
    raise SystemExit(128 + signum)


def child_environment(redis_url: str, rq_url: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["REDIS_URL"] = redis_url
    env["RQ_REDIS_URL"] = rq_url or redis_url
    # The Procfile names console scripts (gunicorn) and python: find the ones of this interpreter's venv.
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env.setdefault("PYTHONUNBUFFERED", "1")
    env.setdefault("PORT", "8000")
    return env


def parse_procfile(text: str) -> dict[str, str]:
    """``name: command`` lines (comments and blank lines skipped), in order."""
    processes: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or ":" not in line:
            continue
        name, command = line.split(":", 1)
        processes[name.strip()] = command.strip()
    return processes


def supervisord_config(
    processes: dict[str, str],
    counts: dict[str, int],
    cwd: Path,
    run_dir: Path,
    redis_command: list[str] | None,
) -> str:
    grace = _grace_seconds()
    lines = [
        "[supervisord]",
        "nodaemon=true",
        # With nodaemon its log goes to stdout already; a logfile there too would print it twice.
        "logfile=/dev/null",
        "logfile_maxbytes=0",
        "loglevel=info",
        f"pidfile={run_dir / 'supervisord.pid'}",
        f"directory={cwd}",
        "",
    ]
    programs: dict[str, str] = {}
    if redis_command is not None:
        programs["redis"] = shlex.join(redis_command)
    for name, command in processes.items():
        # Through sh for the Procfile's $VARIABLES; exec so signals reach the process itself.
        programs[name] = shlex.join(["/bin/sh", "-c", f"exec {command}"])
    for name, command in programs.items():
        count = counts.get(name, 1)
        if count < 1:
            continue
        lines += [
            f"[program:{name}]",
            "command=" + command.replace("%", "%%"),
            "process_name=%(program_name)s-%(process_num)d" if count > 1 else "process_name=%(program_name)s",
            f"numprocs={count}",
            f"priority={PRIORITIES.get(name, 30)}",
            "autostart=true",
            "autorestart=true",
            # A child must stay up 1 s to count as started; failed starts are retried after 1, 2,
            # 3... seconds (supervisord's backoff), a thousand times before it gives up.
            "startsecs=1",
            "startretries=1000",
            "stopsignal=TERM",
            f"stopwaitsecs={grace.get(name, 10)}",
            "stopasgroup=true",
            "killasgroup=true",
            "redirect_stderr=true",
            "stdout_logfile=/dev/stdout",
            "stdout_logfile_maxbytes=0",
            "",
        ]
    return "\n".join(lines)


def serve(procfile: Path = PROJECT_ROOT / "Procfile") -> int:
    signal.signal(signal.SIGTERM, _exit_on_signal)
    signal.signal(signal.SIGINT, _exit_on_signal)
    embedded: EmbeddedRedis | None = None
    run_dir = Path(tempfile.mkdtemp(prefix="launcher-"))
    supervisor: subprocess.Popen[bytes] | None = None
    try:
        redis_url = os.environ.get("REDIS_URL")
        rq_url = os.environ.get("RQ_REDIS_URL")
        redis_command = None
        # The embedded Redis holds the games when REDIS_URL is unset, and RQ's queues when REDIS_URL
        # names a cluster (RQ cannot use one) and RQ_REDIS_URL is unset.
        if not redis_url or (is_cluster_url(redis_url) and not rq_url):
            data_dir = Path(os.environ.get("DATA_DIR") or PROJECT_ROOT / "var") / "redis"
            port = int(os.environ["REDIS_PORT"]) if os.environ.get("REDIS_PORT") else None
            embedded = EmbeddedRedis(
                data_dir,
                port=port,
                appendfsync=os.environ.get("REDIS_APPENDFSYNC", "always"),
            )
            redis_command = embedded.prepare()
            if redis_url:
                rq_url = embedded.url
            else:
                redis_url = embedded.url
            print(
                f"launcher: embedded redis-server at {embedded.url} (data in {embedded.data_dir}, "
                f"appendfsync {embedded.appendfsync}, log {embedded.log_path})",
                flush=True,
            )
        if embedded is None or redis_url != embedded.url:
            print(f"launcher: using REDIS_URL={redis_url}", flush=True)
        rq_url = queue_url(redis_url, rq_url)
        if rq_url != redis_url:
            print(f"launcher: RQ's queues on RQ_REDIS_URL={rq_url}", flush=True)

        counts = {
            "worker": int(os.environ.get("RQ_WORKERS") or 1),
            "bots": int(os.environ.get("BOT_WORKERS") or 1),
            "analysis": int(os.environ.get("ANALYSIS_WORKERS") or 1),
        }
        config = run_dir / "supervisord.conf"
        config.write_text(
            supervisord_config(
                parse_procfile(procfile.read_text()), counts, procfile.parent, run_dir, redis_command
            )
        )
        supervisord = str(Path(sys.executable).with_name("supervisord"))
        supervisor = subprocess.Popen(
            [supervisord, "--nodaemon", "--configuration", str(config)],
            env=child_environment(redis_url, rq_url),
            cwd=str(procfile.parent),
            stdin=subprocess.DEVNULL,
            # Its own session: a terminal's Ctrl-C reaches the launcher only, which asks supervisord
            # for the ordered stop; the kernel stops supervisord if the launcher dies.
            preexec_fn=die_with_parent,
        )
        supervisor.wait()
        return supervisor.returncode
    except SystemExit as stop:
        if supervisor is not None and supervisor.poll() is None:
            print("launcher: stopping (web, then workers and janitor, then redis)", flush=True)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            supervisor.send_signal(signal.SIGTERM)
            supervisor.wait()
        raise stop
    finally:
        if embedded is not None:
            print("launcher: stopping the embedded redis-server", flush=True)
            embedded.release()
        shutil.rmtree(run_dir, ignore_errors=True)
