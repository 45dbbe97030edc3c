"""Pushed view streams (api/edge/view_push.py, issue 12): under gunicorn's gevent worker the live reader
writes each seat's new view to that stream's socket itself.

The reader's side (``_Pusher.push``) is checked here on a real socket pair and a real service: it
writes the seat's own view at once, in the response's framing, and never blocks nor writes in the
middle of another message (a busy stream or a full socket leaves the newest version to the stream's
greenlet). Under gunicorn, a pushed stream and the iterator path send the same bytes, end the
response properly and leave the connection usable (keep-alive)."""

from __future__ import annotations

import json
import os
import random
import re
import socket
import threading
import time

import psutil
import pytest
import requests

from api.edge.view_push import PushedViewStream, _Pusher
from service.games import StreamGrant, hash_token
from tests.api.conftest import Table
from tests.gunicorn_server import play_toy_turn, start_gunicorn, wait_until_serving


def socket_pair(send_buffer: int | None = None) -> tuple[socket.socket, socket.socket]:
    server, client = socket.socketpair()
    if send_buffer is not None:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, send_buffer)
    server.setblocking(False)  # as gevent's sockets are at the OS level
    client.settimeout(5)
    return server, client


def pusher_after_head(svc, table: Table, seat: int, sock: socket.socket, chunked: bool = True) -> _Pusher:
    """A pusher in the state its greenlet leaves it after sending the head and the view now."""
    pusher = _Pusher(
        svc, table.id, StreamGrant(seat, hash_token(table.tokens[seat])), sock, chunked, heartbeat=60
    )
    pusher.version = table.view(seat)["version"]
    pusher.busy = False
    return pusher


def play(table: Table, seat: int) -> int:
    card = table.view(seat)["view"]["hand"][0]
    moved = table.move(seat, {"type": "play", "card": card})
    assert moved.status_code == 200, moved.get_json()
    return moved.get_json()["version"]


def read_available(sock: socket.socket) -> bytes:
    sock.settimeout(0.2)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except TimeoutError:
        pass
    return data


def test_the_reader_writes_the_seats_own_view_at_once_in_one_chunk(client, svc):
    """Hidden information as on every stream: what the reader writes to Bob's (seat 1) socket is
    exactly his GET /view answer at the new version, framed as one HTTP chunk, with no wake of the
    stream's greenlet (nothing but ``push`` runs here)."""
    table = Table(client, hand_size=3)
    server, peer = socket_pair()
    pusher = pusher_after_head(svc, table, 1, server)
    version = play(table, 0)
    pusher.push(version)
    data = read_available(peer)
    size, _, rest = data.partition(b"\r\n")
    message = rest[: int(size, 16)]
    assert rest[int(size, 16) :] == b"\r\n", "one chunk, nothing after it"
    head, _, body = message.partition(b"data: ")
    assert head == b"id: %d\nevent: view\n" % version
    assert json.loads(body) == table.view(1)
    assert pusher.version == version and not pusher.wake.is_set()
    pusher.push(version)  # the same news again (another reader loop): nothing more is sent
    assert read_available(peer) == b""


def test_unchunked_responses_get_the_bare_message(client, svc):
    """An HTTP/1.0 client's stream is not chunked: the reader writes the SSE message alone."""
    table = Table(client, hand_size=3)
    server, peer = socket_pair()
    pusher = pusher_after_head(svc, table, 0, server, chunked=False)
    version = play(table, 0)
    pusher.push(version)
    assert read_available(peer).startswith(b"id: %d\nevent: view\ndata: {" % version)


def test_a_busy_stream_is_left_to_its_greenlet(client, svc):
    """While the stream's greenlet writes (or reads Redis), the reader must not write: the bytes
    would land in the middle of that message. It records the version and wakes the greenlet."""
    table = Table(client, hand_size=3)
    server, peer = socket_pair()
    pusher = pusher_after_head(svc, table, 1, server)
    pusher.busy = True
    version = play(table, 0)
    pusher.push(version)
    assert read_available(peer) == b""
    assert pusher.behind == version and pusher.wake.is_set()


def test_a_full_socket_never_blocks_the_reader_and_the_rest_waits_for_the_greenlet(client, svc):
    """A client that stops reading: the reader writes what the socket takes and returns; the rest
    of that message is the greenlet's to finish, and a newer version is not written after a partial
    message (the greenlet sends the newest view once the remainder is out)."""
    table = Table(client, hand_size=5)
    server, peer = socket_pair(send_buffer=4096)
    while True:  # fill the socket's buffers
        try:
            server.send(b"x" * 4096)
        except BlockingIOError:
            break
    pusher = pusher_after_head(svc, table, 1, server)
    started = time.monotonic()
    version = play(table, 0)
    pusher.push(version)
    assert time.monotonic() - started < 2
    assert pusher.remainder and pusher.wake.is_set()
    assert pusher.version == version  # that message is on its way: never sent twice
    newer = play(table, 1)
    pusher.push(newer)
    assert pusher.behind == newer and pusher.version == version
    peer.close()


def test_the_greenlet_finishes_the_cut_message_then_sends_the_newest_view_and_the_end(client, svc):
    """What the reader left to the stream's greenlet: the rest of a message the socket did not take
    whole, then (views in between skipped, each message is a whole view) the newest view, here the
    finished game's, then the end. The client reads it all as well-framed chunks."""
    table = Table(client, hand_size=3)
    server, peer = socket_pair(send_buffer=4096)
    server.settimeout(5)  # sendall waits (polling); the descriptor stays non-blocking for os.write
    filler = 0
    while True:
        try:
            filler += os.write(server.fileno(), b"x" * 4096)
        except BlockingIOError:
            break
    pusher = pusher_after_head(svc, table, 1, server)
    first = play(table, 0)
    pusher.push(first)
    assert pusher.remainder
    seat = 1
    while not table.view(0)["status"] == "finished":
        pusher.push(play(table, seat))
        seat = 1 - seat
    final = table.view(1)
    assert pusher.behind == final["version"]
    drained = bytearray()
    reader = threading.Thread(target=lambda: drained.extend(read_all(peer)))
    reader.start()
    pusher._follow()
    server.close()
    reader.join(10)
    chunks, _ = parse_chunked(bytes(drained[filler:]) + b"0\r\n\r\n")
    assert [c.split(b"\n", 1)[0] for c in chunks] == [
        b"id: %d" % first,
        b"id: %d" % final["version"],
        b"event: end",
    ]
    assert json.loads(chunks[1].partition(b"data: ")[2]) == final


def read_all(sock: socket.socket) -> bytes:
    sock.settimeout(10)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_a_vanished_client_fails_the_stream_without_raising(client, svc):
    table = Table(client, hand_size=3)
    server, peer = socket_pair()
    pusher = pusher_after_head(svc, table, 0, server)
    peer.close()
    pusher.push(play(table, 0))
    assert pusher.failed and pusher.wake.is_set()


class GunicornLikeResponse:
    """What gunicorn's ``start_response`` hands back the ``write`` of: its response, framing known."""

    chunked = True

    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)


def test_real_threads_get_the_iterator_not_the_push(client, svc):
    """The pushed stream relies on gevent: the reader and a stream's greenlet never run at once.
    Under real threads (this test process is not monkey-patched, as gunicorn's gthread worker would
    not be) the same response must be served through its iterator, even on gunicorn's socket."""
    table = Table(client, hand_size=1)
    play(table, 0)
    play(table, 1)  # finished: a pushed stream, were it used, would send its view and end at once
    server, peer = socket_pair()
    grant = StreamGrant(1, hash_token(table.tokens[1]))
    response = PushedViewStream(iter([b"retry: 3000\n\n"]), svc, table.id, grant, None, 60)
    gunicorn = GunicornLikeResponse()
    environ = {"gunicorn.socket": server, "REQUEST_METHOD": "GET", "SERVER_PROTOCOL": "HTTP/1.1"}
    served = response(environ, lambda status, headers: gunicorn.write)
    assert list(served) == [b"retry: 3000\n\n"]  # the iterator, not the pushed stream's []
    assert gunicorn.written == [] and read_available(peer) == b""


# -- under gunicorn ------------------------------------------------------------------------------


@pytest.fixture()
def servers(redis_server, redis_client, tmp_path):
    """Two gunicorn servers on one Redis: view streams pushed, and served through their iterator."""
    started = []
    try:
        for push in ("true", "false"):
            log = open(tmp_path / f"gunicorn-{push}.log", "wb")  # noqa: SIM115 - closed below
            process, base = start_gunicorn(redis_server.url, log, VIEW_STREAM_PUSH=push)
            started.append((process, base, log))
        for process, base, _ in started:
            wait_until_serving(process, base)
        yield {"pushed": started[0][1], "iterated": started[1][1]}
    finally:
        for process, _, log in started:
            process.terminate()
            process.wait(timeout=10)
            log.close()


def follow_a_whole_game(base: str) -> tuple[bytes, bytes, bytes, str]:
    """Bob's view stream over HTTP/1.1 (chunked) while the toy game is played out, one move after
    the stream delivered the previous one; then GET /v1/health on the same connection. The
    response's head, its body, what the health request got, and the game's id."""
    game = requests.post(
        f"{base}/v1/games", json={"game": "toy", "config": {"hand_size": 4, "seed": 3}}
    ).json()
    tokens = [
        requests.post(f"{base}/v1/games/{game['id']}/seats", json={"name": n}).json()["token"] for n in "AB"
    ]
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    sock.sendall(
        f"GET /v1/games/{game['id']}/view/stream HTTP/1.1\r\nHost: {host}\r\n"
        f"Authorization: Bearer {tokens[1]}\r\n\r\n".encode()
    )
    received = b""

    def until(marker: bytes) -> None:
        nonlocal received
        while marker not in received:
            chunk = sock.recv(65536)
            assert chunk, received[-300:]
            received += chunk

    until(b"\r\n\r\n")
    while (version := play_toy_turn(base, game["id"], tokens)[1]) is not None:
        until(b"id: %d\n" % version)  # the next move only once the stream delivered this one
    until(b"0\r\n\r\n")  # the last chunk: the response is over
    head, _, body = received.partition(b"\r\n\r\n")
    sock.sendall(f"GET /v1/health HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    after = b""
    while b'"ok"' not in after:
        chunk = sock.recv(65536)
        if not chunk:
            break
        after += chunk
    sock.close()
    return head, body, after, game["id"]


def test_pushed_and_iterated_streams_send_the_same_bytes_and_keep_the_connection(servers):
    """One game played alike on both servers: Bob's stream is byte for byte the same (the game's id
    aside), every chunk included, ends with the last chunk, and the connection then serves the
    next request (the pushed stream hands the socket back to gunicorn cleanly)."""
    seen = {}
    for name, base in servers.items():
        head, body, after, game_id = follow_a_whole_game(base)
        body = body.replace(game_id.encode(), b"GAME").replace(b"D\r\n: heartbeat\n\n\r\n", b"")
        headers = sorted(line for line in head.split(b"\r\n")[1:] if not line.startswith(b"Date:"))
        seen[name] = (head.split(b"\r\n")[0], headers, body)
        assert after.startswith(b"HTTP/1.1 200"), after[:200]
        assert b'"ok"' in after
    assert seen["pushed"] == seen["iterated"]
    status, headers, body = seen["pushed"]
    assert status == b"HTTP/1.1 200 OK" and b"Transfer-Encoding: chunked" in headers
    assert body.endswith(b"event: end\ndata: {}\n\n\r\n0\r\n\r\n")
    assert len(re.findall(rb"event: view", body)) >= 9  # the view at once, then one per move


def parse_chunked(body: bytes) -> tuple[list[bytes], bool]:
    """The chunks of a chunked body (raising on bad framing) and whether the last chunk came."""
    chunks, at = [], 0
    while at < len(body):
        line_end = body.index(b"\r\n", at)
        size = int(body[at:line_end], 16)
        if size == 0:
            return chunks, True
        chunk = body[line_end + 2 : line_end + 2 + size]
        assert len(chunk) == size and body[line_end + 2 + size : line_end + 4 + size] == b"\r\n", (
            "bad framing"
        )
        chunks.append(chunk)
        at = line_end + 4 + size
    return chunks, False


def test_a_client_that_stops_reading_holds_up_nobody_and_gets_a_whole_stream_later(servers):
    """The reader writes to every stream of the process: Bob's stream keeps up with every move of a
    whole Condottiere game while Ann's (a small receive buffer) is not read at all. Read afterwards,
    Ann's stream is well framed, its versions only grow, and it ends with the game's last view and
    the end. (The kernel may take the whole game into its buffers here; a socket that is really full
    is checked above on a socket pair.)"""
    base = servers["pushed"]
    host, port = base.removeprefix("http://").split(":")
    game = requests.post(
        f"{base}/v1/games", json={"game": "condottiere", "config": {"players": 2, "seed": 5}}
    ).json()
    tokens = [
        requests.post(f"{base}/v1/games/{game['id']}/seats", json={"name": n}).json()["token"] for n in "AB"
    ]

    def open_stream(token: str, receive_buffer: int | None = None) -> socket.socket:
        sock = socket.socket()
        if receive_buffer:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        sock.settimeout(10)
        sock.connect((host, int(port)))
        sock.sendall(
            f"GET /v1/games/{game['id']}/view/stream HTTP/1.1\r\nHost: {host}\r\n"
            f"Authorization: Bearer {token}\r\n\r\n".encode()
        )
        return sock

    slow = open_stream(tokens[0], receive_buffer=2048)
    quick = open_stream(tokens[1])
    seen = b""
    rng = random.Random(5)
    moves = 0
    while True:
        seat_views = [
            requests.get(
                f"{base}/v1/games/{game['id']}/view", headers={"Authorization": f"Bearer {t}"}
            ).json()
            for t in tokens
        ]
        version = seat_views[0]["version"]
        while b"id: %d\n" % version not in seen:  # Bob's stream has every version in time
            chunk = quick.recv(65536)
            assert chunk, "Bob's stream ended early"
            seen += chunk
        if seat_views[0]["status"] == "finished":
            break
        seat = seat_views[0]["view"]["awaiting"][0]
        command = rng.choice(seat_views[seat]["view"]["legal_moves"])
        moved = requests.post(
            f"{base}/v1/games/{game['id']}/moves",
            json={"command": command},
            headers={"Authorization": f"Bearer {tokens[seat]}", "Prefer": "return=minimal"},
        )
        assert moved.status_code == 200, moved.text
        moves += 1
    assert moves > 50
    received = b""
    while not received.endswith(b"0\r\n\r\n"):
        chunk = slow.recv(65536)
        assert chunk, "Ann's stream closed before its end"
        received += chunk
    chunks, ended = parse_chunked(received.partition(b"\r\n\r\n")[2])
    assert ended and chunks[0] == b"retry: 3000\n\n" and chunks[-1] == b"event: end\ndata: {}\n\n"
    versions = [int(c.split(b"\n", 1)[0][4:]) for c in chunks if c.startswith(b"id: ")]
    assert versions == sorted(set(versions)) and versions[-1] == version
    last = json.loads(chunks[-2].partition(b"data: ")[2])
    assert last["status"] == "finished" and last["seat"] == 0
    slow.close()
    quick.close()


@pytest.fixture()
def slow_heartbeat_server(redis_server, redis_client, tmp_path):
    """One gunicorn worker pushing view streams, with a heartbeat (30 s) longer than any test wait."""
    with open(tmp_path / "gunicorn.log", "wb") as log:
        process, base = start_gunicorn(redis_server.url, log, SSE_HEARTBEAT_SECONDS="30")
        try:
            wait_until_serving(process, base)
            yield process, base
        finally:
            process.terminate()
            process.wait(timeout=10)


@pytest.mark.parametrize("stream", ["view/stream", "stream"])
def test_a_client_that_hangs_up_ends_its_stream_at_once_not_at_the_next_heartbeat(
    slow_heartbeat_server, stream
):
    """A stream whose client closes its socket is ended by the server within moments: its
    connection (and the subscription with it) is gone long before the next write, here a heartbeat
    30 s away, would have found the client gone. A client that stays is still served. Both kinds of
    stream: the pushed view stream and the event stream, served as an iterator (the browser
    client's)."""
    process, base = slow_heartbeat_server
    worker = psutil.Process(process.pid).children()[0]
    game = requests.post(f"{base}/v1/games", json={"game": "toy", "config": {"hand_size": 3}}).json()
    tokens = [
        requests.post(f"{base}/v1/games/{game['id']}/seats", json={"name": n}).json()["token"] for n in "AB"
    ]
    host, port = base.removeprefix("http://").split(":")
    # From the current version on: the client reads all it is sent before it closes, so its close is
    # a FIN the server must notice (unread bytes would make it an RST, which the kernel acts on).
    version = requests.get(f"{base}/v1/games/{game['id']}/view").json()["version"]
    path, first = (
        ("view/stream", b"event: view")
        if stream == "view/stream"
        else (f"stream?after={version}", b"following")
    )

    def open_stream(token: str) -> socket.socket:
        sock = socket.create_connection((host, int(port)), timeout=10)
        sock.sendall(
            f"GET /v1/games/{game['id']}/{path} HTTP/1.1\r\nHost: {host}\r\n"
            f"Authorization: Bearer {token}\r\n\r\n".encode()
        )
        received = b""
        while first not in received:
            chunk = sock.recv(65536)
            assert chunk, received
            received += chunk
        return sock

    def served(sock_port: int) -> bool:
        return any(c.raddr and c.raddr.port == sock_port for c in worker.net_connections("tcp"))

    leaving, staying = open_stream(tokens[0]), open_stream(tokens[1])
    leaving_port = leaving.getsockname()[1]
    assert served(leaving_port)
    leaving.close()
    deadline = time.monotonic() + 30
    while served(leaving_port):
        assert time.monotonic() < deadline, "the server still holds the stream of a client that hung up"
        time.sleep(0.05)
    version = play_toy_turn(base, game["id"], tokens)[1]
    received = b""
    while b"id: %d\n" % version not in received:
        chunk = staying.recv(65536)
        assert chunk, received
        received += chunk
    staying.close()
