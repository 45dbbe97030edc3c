"""A live test server for the CLI and HTTP simulator tests: the real app (``api.create_app``) served
by werkzeug in a thread (``create_app`` connects the follow-up receivers of this web process), and a
real worker subprocess (``python -m worker``) on the ``bots`` and ``default`` queues, all on the
private Redis."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

from werkzeug.serving import make_server

from cli.main import main

ROOT = Path(__file__).resolve().parents[2]


class LiveServer:
    def __init__(self, redis_url: str, *, worker: bool = True):
        from api import create_app

        self.redis_url = redis_url
        self.app = create_app({"REDIS_URL": redis_url, "TESTING": True, "SSE_HEARTBEAT_SECONDS": 0.5})
        self.http = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.url = f"http://127.0.0.1:{self.http.server_port}"
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)
        self.thread.start()
        self.worker = None
        if worker:
            env = dict(os.environ, PYTHONPATH=str(ROOT))
            self.worker = subprocess.Popen(
                # Like the Procfile's worker: bot turns and the archive's jobs (exports...).
                [
                    sys.executable,
                    "-m",
                    "worker",
                    "bots",
                    "default",
                    "--url",
                    redis_url,
                    "--worker-class",
                    "rq.worker.SimpleWorker",
                ],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.terminate()
            try:
                self.worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.worker.kill()
        self.http.shutdown()
        self.thread.join(timeout=5)


def run(argv: list[str], stdin_lines: list[str] | None = None) -> tuple[int, str]:
    """Run the command-line client in-process with ``argv``, reading ``stdin_lines`` (then empty
    lines) as the terminal's input; return its exit code and everything it printed."""
    out = io.StringIO()
    lines = iter(stdin_lines or [])
    code = main(argv, out=out, read_line=lambda: next(lines, ""))
    return code, out.getvalue()


def first_shown(text: str) -> str:
    """The answer "the first entry of the menu on screen" (the smallest number shown: the client lists
    entries by number), for a client whose numbers keep their meaning from one menu to the next."""
    lines = text.splitlines()
    numbers = []
    for line in reversed(lines[:-1]):  # the last line is the prompt being answered
        match = MENU_LINE.match(line)
        if not match:
            break
        numbers.append(match.group(1))
    return f"{numbers[-1]}\n" if numbers else "q\n"


MENU_LINE = re.compile(r"^\s+(\d+)\) ")


def run_answering(argv: list[str], answer, limit: int = 5000) -> tuple[int, str]:
    """Run the command-line client in-process, answering each prompt with ``answer(screen so far)``
    (at most ``limit`` times, then an empty line: the input ends)."""
    out = io.StringIO()
    asked = [0]

    def read_line() -> str:
        asked[0] += 1
        return answer(out.getvalue()) if asked[0] <= limit else ""

    code = main(argv, out=out, read_line=read_line)
    return code, out.getvalue()
