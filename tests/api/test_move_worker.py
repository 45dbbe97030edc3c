"""Moves answered by the gunicorn worker from the parsed request (``api/edge/move_worker.py``, issue 12):
an ordinary move skips WSGI, and every request gets the answer gunicorn's WSGI path gives, byte for
byte but the Date: the same game played on a server with the worker's hot path and on one with
gunicorn's plain gevent worker (``GUNICORN_WORKER_CLASS=gevent``), through every kind of answer
``tests/api/test_move_path.py`` compares, and over raw connections for what a client library hides
(the head and the body, keep-alive and ``Connection: close``, HTTP/1.0, ``Expect: 100-continue``, a
chunked body, a header sent twice)."""

from __future__ import annotations

import re
import socket

import pytest
import requests

from tests.api.conftest import Table
from tests.api.test_move_path import _steps
from tests.gunicorn_server import start_gunicorn, wait_until_serving

APP = "tests.api.move_worker_app:app"
TAG = "X-Answered-Through"


@pytest.fixture()
def servers(redis_server, tmp_path):
    """{"fast": base URL, "plain": base URL}: the test app (answers through WSGI tagged) under this
    project's worker and under gunicorn's own gevent worker."""
    started = {}
    logs = []
    try:
        for name, env in (("fast", {}), ("plain", {"GUNICORN_WORKER_CLASS": "gevent"})):
            log = open(tmp_path / f"{name}.log", "wb")  # noqa: SIM115 - closed below
            logs.append(log)
            started[name] = start_gunicorn(redis_server.url, log, app=APP, **env)
        for name, (process, base) in started.items():
            wait_until_serving(process, base, tmp_path / f"{name}.log")
        yield {name: base for name, (_, base) in started.items()}
    finally:
        for process, _ in started.values():
            process.terminate()
            process.wait(timeout=15)
        for log in logs:
            log.close()


class _Http:
    """The calls of Flask's test client that ``Table`` and ``_steps`` make, over HTTP."""

    def __init__(self, base: str):
        self.base = base
        self.session = requests.Session()

    def post(self, path, json=None, data=None, headers=None, content_type=None):
        headers = dict(headers or {})
        if content_type is not None:
            headers["Content-Type"] = content_type
        return _Answer(self.session.post(self.base + path, json=json, data=data, headers=headers))

    def get(self, path, headers=None):
        return _Answer(self.session.get(self.base + path, headers=headers))


class _Answer:
    def __init__(self, response: requests.Response):
        self.response = response
        self.status_code = response.status_code
        self.headers = response.headers

    def get_json(self):
        return self.response.json()


def _answers(base: str) -> list[tuple[str, int, list[tuple[str, str]], bytes, bool]]:
    client = _Http(base)
    table = Table(client)
    other = client.post("/v1/games", json={"game": "toy", "config": {"seed": 7}}).get_json()["id"]
    client.post(f"/v1/games/{other}/seats", json={"name": "Ann"})
    answers = []
    for label, path, request in _steps(table, other):
        response = client.post(path, **request).response
        body = response.content.replace(table.id.encode(), b"GAME").replace(other.encode(), b"OTHER")
        headers = sorted((k, v) for k, v in response.headers.items() if k not in ("Date", TAG))
        answers.append((label, response.status_code, headers, body, TAG in response.headers))
    return answers


def test_every_answer_is_the_one_gunicorns_wsgi_path_gives(servers):
    """Accepted moves (minimal, whole, keyed, retried, pinned by If-Match), rule refusals with their
    rule IDs (TOY-2, TOY-3), conflicts, bad tokens and headers: the worker's answers are those of
    gunicorn's WSGI path, headers included; the requests MovePath leaves to Flask (a malformed or
    too deep body, read by the worker, then read again by Flask) get Flask's answers through WSGI."""
    fast, plain = _answers(servers["fast"]), _answers(servers["plain"])
    assert [answer[1] for answer in fast].count(200) >= 7  # the accepted moves are compared too
    for mine, theirs in zip(fast, plain, strict=True):
        assert mine[:4] == theirs[:4]
    assert all(through_wsgi for *_, through_wsgi in plain)
    through_wsgi = {label for label, *_, tagged in fast if tagged}
    assert "whole answer" not in through_wsgi and "keyed retry" not in through_wsgi
    assert "not your turn" not in through_wsgi  # a refusal MovePath answers is the worker's too
    flask_only = {"malformed JSON", "schema refusal", "too deep", "token in the query", "from a browser"}
    assert flask_only <= through_wsgi
    others_left_to_flask = {"not JSON", "token in the body", "no token", "malformed Authorization"}
    assert through_wsgi <= flask_only | others_left_to_flask


def _exchange(sock: socket.socket, request: bytes, data: bytes = b"") -> bytes:
    """Send ``request``; the answer's bytes (an interim 100 Continue included), read up to its
    Content-Length. ``data``: bytes of the answer already received."""
    sock.sendall(request)
    while True:
        head, sep, rest = data.partition(b"\r\n\r\n")
        if sep and not head.startswith(b"HTTP/1.1 100"):
            length = int(re.search(rb"(?i)\r\ncontent-length: *(\d+)", head).group(1))
            if len(rest) >= length:
                return data
        elif sep:  # the interim answer: the final one follows it, maybe in the same read already
            final = _exchange(sock, b"", rest)
            return head + sep + final
        chunk = sock.recv(65536)
        assert chunk, f"closed before a whole answer: {data!r}"
        data += chunk


def _closed(sock: socket.socket) -> bool:
    sock.settimeout(5)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False


def _move(game_id: str, token: str, body: bytes, *extra: str, version: str = "1.1") -> bytes:
    head = [
        f"POST /v1/games/{game_id}/moves HTTP/{version}",
        "Host: test",
        f"Authorization: Bearer {token}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        *extra,
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


PASS = b'{"command":{"type":"pass"}}'


def _raw_answers(base: str) -> list[tuple[bytes, bool, bool]]:
    """(answer without its Date, answered through WSGI, connection closed after it) of moves sent
    over raw connections to a new toy game of ``base``."""
    table = Table(_Http(base))
    port = int(base.rsplit(":", 1)[1])
    answers = []

    def record(answer: bytes, closed: bool) -> None:
        tagged = f"\r\n{TAG}: wsgi".encode() in answer
        answer = re.sub(rb"\r\nDate: [^\r]*", b"", answer).replace(f"\r\n{TAG}: wsgi".encode(), b"")
        answers.append((answer.replace(table.id.encode(), b"GAME"), tagged, closed))

    def connection() -> socket.socket:
        return socket.create_connection(("127.0.0.1", port), timeout=10)

    with connection() as sock:  # two moves on one keep-alive connection, the second closing it
        record(_exchange(sock, _move(table.id, table.tokens[0], PASS)), False)
        record(_exchange(sock, _move(table.id, table.tokens[1], PASS, "Connection: close")), _closed(sock))
    with connection() as sock:
        record(_exchange(sock, _move(table.id, table.tokens[0], PASS, version="1.0")), _closed(sock))
    with connection() as sock:
        record(_exchange(sock, _move(table.id, table.tokens[1], PASS, "Expect: 100-continue")), False)
    with connection() as sock:
        chunked = _move(table.id, table.tokens[0], b"", "Transfer-Encoding: chunked")
        chunked = chunked.replace(b"Content-Length: 0\r\n", b"")
        record(_exchange(sock, chunked + b"%x\r\n%s\r\n0\r\n\r\n" % (len(PASS), PASS)), False)
    with connection() as sock:
        twice = _move(table.id, table.tokens[1], PASS, f"Authorization: Bearer {table.tokens[1]}")
        record(_exchange(sock, twice), False)
    return answers


def test_raw_answers_are_gunicorns_own_and_keep_alive_and_close_as_gunicorn_does(servers):
    """Over raw connections, every answer is the WSGI path's byte for byte (the head in the same
    order, the Date aside), the worker answers the ordinary HTTP/1.1 moves itself and keeps the
    connection open for the next request, closes it after a ``Connection: close`` request, and
    leaves to WSGI what it does not handle (HTTP/1.0, ``Expect: 100-continue``, a chunked body, a
    header sent twice), which answers it as before."""
    fast, plain = _raw_answers(servers["fast"]), _raw_answers(servers["plain"])
    for mine, theirs in zip(fast, plain, strict=True):
        assert mine[0] == theirs[0]
        assert mine[2] == theirs[2]
    statuses = [answer.split(b"\r\n", 1)[0] for answer, *_ in fast]
    assert statuses[:2] == [b"HTTP/1.1 200 OK"] * 2, statuses
    assert [closed for *_, closed in fast][:3] == [False, True, True]
    assert [tagged for _, tagged, _ in fast] == [False, False, True, True, True, True]
    assert all(tagged for _, tagged, _ in plain)


def test_with_an_access_log_every_move_goes_through_wsgi_and_is_logged(redis_server, tmp_path):
    """gunicorn's access log records what its WSGI path served: with one configured, the worker
    answers no move itself, and every move is in the log."""
    access_log = tmp_path / "access.log"
    with open(tmp_path / "gunicorn.log", "wb") as log:
        process, base = start_gunicorn(redis_server.url, log, app=APP, ACCESS_LOG=str(access_log))
        try:
            wait_until_serving(process, base, tmp_path / "gunicorn.log")
            table = Table(_Http(base))
            moved = table.move(0, {"type": "pass"}, headers={"Prefer": "return=minimal"})
            assert moved.status_code == 200
            assert moved.headers.get(TAG) == "wsgi"
        finally:
            process.terminate()
            process.wait(timeout=15)
    assert f"POST /v1/games/{table.id}/moves" in access_log.read_text()
