"""A real HTTP receiver on loopback for webhook tests: records every request it is sent."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    """``status`` is what it answers; ``hold`` (an Event) makes it wait before answering;
    ``keep_alive``: HTTP/1.1 persistent connections (each request records its client's address)."""

    def __init__(self, port: int = 0, status: int = 204, keep_alive: bool = False):
        self.status = status
        self.received: list[dict[str, Any]] = []
        self.hold: threading.Event | None = None
        self.arrived = threading.Event()
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"

            def do_POST(self):  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                with outer.lock:
                    outer.received.append(
                        {
                            "path": self.path,
                            "headers": dict(self.headers.items()),
                            "body": body,
                            "client": self.client_address,
                        }
                    )
                outer.arrived.set()
                if outer.hold is not None:
                    outer.hold.wait(60)
                self.send_response(outer.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def bodies(self) -> list[bytes]:
        with self.lock:
            return [r["body"] for r in self.received]


def wait_for(condition, bound: float = 60.0, step=None):
    """Call ``step`` (if any) until ``condition()`` holds, at most ``bound`` seconds."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < bound, "condition not met in time"
        if step is not None:
            step()
        time.sleep(0.01)
