"""A live test server for the CLI and HTTP simulator tests: the real app (``api.create_app``) served
by werkzeug in a thread, the bot receiver connected in this (web) process, and a real ``rq worker``
subprocess on the ``bots`` and ``default`` queues, all on the private Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from werkzeug.serving import make_server

ROOT = Path(__file__).resolve().parents[2]


class LiveServer:
    def __init__(self, redis_url: str, *, worker: bool = True):
        from api import create_app
        from worker import bots as bot_worker

        self.redis_url = redis_url
        self.app = create_app({"REDIS_URL": redis_url, "TESTING": True, "SSE_HEARTBEAT_SECONDS": 0.5})
        bot_worker.connect_signals()
        self.http = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.url = f"http://127.0.0.1:{self.http.server_port}"
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)
        self.thread.start()
        self.worker = None
        if worker:
            rq_bin = Path(sys.executable).parent / "rq"
            env = dict(os.environ, PYTHONPATH=str(ROOT))
            self.worker = subprocess.Popen(
                # Like the Procfile's worker: bot turns and the archive's jobs (exports...).
                [
                    str(rq_bin),
                    "worker",
                    bot_worker.QUEUE,
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
        from worker import bots as bot_worker

        if self.worker is not None:
            self.worker.terminate()
            try:
                self.worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.worker.kill()
        self.http.shutdown()
        self.thread.join(timeout=5)
        bot_worker.disconnect_signals()
