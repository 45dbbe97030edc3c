"""HTTP framing under the production server (gunicorn.conf.py, issue 8 finding 5): a body past
MAX_CONTENT_LENGTH is refused with 413 however it is framed (chunked included), and a bare line feed
inside a header is refused instead of desynchronising the connection (the body read as a second
request: request smuggling behind a proxy)."""

from __future__ import annotations

import socket
import threading

import pytest
import requests

from tests.api.test_gevent_server import gunicorn  # noqa: F401 - the live server fixture


def exchange(base: str, data: bytes, timeout: float = 20.0) -> bytes:
    """Send raw bytes (from a thread: the server may answer and close before reading them all)
    and return every byte the server sent back until it closed the connection."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=timeout)

    def send() -> None:
        try:
            sock.sendall(data)
        except OSError:
            pass  # the server refused the rest of the body and closed: expected for 413

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    received = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
    except (ConnectionResetError, TimeoutError):
        pass
    finally:
        sock.close()
    return received


def chunked(body: bytes, size: int = 65536) -> bytes:
    parts = [
        b"%x\r\n%s\r\n" % (len(body[i : i + size]), body[i : i + size]) for i in range(0, len(body), size)
    ]
    return b"".join(parts) + b"0\r\n\r\n"


def games_count(base: str) -> int:
    return len(requests.get(f"{base}/v1/games?limit=100", timeout=10).json()["games"])


@pytest.mark.parametrize(
    "body",
    [
        b'{"game": "toy", "config": {"seed": 1}}' + b" " * (10 * 1024 * 1024),  # valid JSON, then spaces
        b'{"game": "toy", "config": {"seed": 1, "pad": "' + b"x" * (10 * 1024 * 1024) + b'"}}',
    ],
    ids=["json-then-spaces", "large-json"],
)
def test_a_chunked_body_past_the_limit_is_413_and_creates_nothing(gunicorn, body):  # noqa: F811
    before = games_count(gunicorn)
    head = (
        b"POST /v1/games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    answer = exchange(gunicorn, head + chunked(body))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:300]
    assert b"PAYLOAD_TOO_LARGE" in answer
    assert games_count(gunicorn) == before


def test_a_small_chunked_body_is_still_accepted(gunicorn):  # noqa: F811
    head = (
        b"POST /v1/games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    answer = exchange(gunicorn, head + chunked(b'{"game": "toy", "config": {"seed": 1}}', size=7))
    assert answer.startswith(b"HTTP/1.1 201"), answer[:300]


def test_a_bare_line_feed_in_a_header_is_refused_without_reading_the_body_as_a_request(gunicorn):  # noqa: F811
    """The body below is itself a request: a desynchronised server (gevent's pywsgi took the line
    after the bare line feed for no header at all, so no Content-Length) answers the first request
    and then the body as a second one."""
    smuggled = b"GET /v1/health?deep=true HTTP/1.1\r\nHost: test\r\n\r\n"
    request = (
        b"GET /v1/health HTTP/1.1\r\nHost: test\r\nX-Padding: a\nContent-Length: %d\r\n\r\n" % len(smuggled)
    ) + smuggled
    answer = exchange(gunicorn, request, timeout=5)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:300]
    assert answer.count(b"HTTP/1.1 ") == 1, answer
