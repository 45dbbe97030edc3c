"""Game-affine connections (``api.edge.affinity``, issue 12): under gunicorn with two workers, every
connection whose first request names a game is served by that game's one owner worker, whichever
worker accepted it; the streams it serves still carry every event; keep-alive requests after the
first are served there too; a worker that dies gives its slot to its replacement; only a peer of
the same user may hand a socket over; and a new game is placed on the worker serving the fewest
connections."""

from __future__ import annotations

import os
import random
import socket
import time

import psutil
import pytest
import requests

from api.edge.affinity import RETRY_SECONDS, Loads, game_of_request, owner_slot, slot_address
from service.ids import PLACEMENT_DRAWS, is_game_id, new_placed_game_id
from tests.gunicorn_server import play_toy_turn, start_gunicorn, wait_until_serving

pytestmark = pytest.mark.skipif(not hasattr(socket, "SO_PEERCRED"), reason="Linux only")

SEATS = 2
STREAMS_PER_GAME = 4


@pytest.fixture()
def two_workers(redis_server, tmp_path):
    log_path = tmp_path / "gunicorn.log"
    with open(log_path, "wb") as log:
        process, base = start_gunicorn(redis_server.url, log, WEB_CONCURRENCY="2")
        wait_until_serving(process, base, log_path)
        deadline = time.monotonic() + 60
        while len(psutil.Process(process.pid).children()) < 2:
            assert time.monotonic() < deadline, "gunicorn did not fork its second worker"
            time.sleep(0.1)
        # Each worker binds its slot as it starts (and again every second if taken): wait until
        # both slots are bound rather than guessing how long a loaded machine takes.
        while not all(_slot_bound(process.pid, slot) for slot in range(2)):
            assert time.monotonic() < deadline, "the workers did not bind their slots"
            time.sleep(0.1)
        yield process, base
        process.terminate()
        process.wait(timeout=15)


def _slot_bound(master_pid: int, slot: int) -> bool:
    """Whether a worker of ``master_pid`` has bound ``slot``'s abstract address (/proc/net/unix
    lists abstract names with a leading "@")."""
    name = "@" + slot_address(master_pid, slot)[1:].decode()
    with open("/proc/net/unix") as table:
        return any(line.split()[-1] == name for line in table if len(line.split()) >= 8)


def _new_game(base: str) -> tuple[str, list[str]]:
    game = requests.post(f"{base}/v1/games", json={"game": "toy", "config": {"hand_size": 3}}).json()
    tokens = [
        requests.post(f"{base}/v1/games/{game['id']}/seats", json={"name": n}).json()["token"] for n in "AB"
    ]
    return game["id"], tokens


def _open_stream(base: str, game_id: str) -> socket.socket:
    port = int(base.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(
        f"GET /v1/games/{game_id}/stream HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    # Wait for the answer's head (peeked, so the caller still reads all of it): until a worker
    # answers, the one that accepted the connection may be about to hand it over, and on a loaded
    # machine it can hold it alone for a while before it even peeks at the request.
    deadline = time.monotonic() + 30
    head = b""
    while b"\r\n\r\n" not in head:
        assert time.monotonic() < deadline, f"no answer to the stream of {game_id}: {head!r}"
        seen = len(head)
        head = sock.recv(65536, socket.MSG_PEEK)
        if len(head) == seen:
            time.sleep(0.05)  # a peek returns at once while anything is queued: poll for more
    return sock


def _holder(workers: list[psutil.Process], sock: socket.socket) -> int:
    """The pid of the worker holding the server's end of ``sock`` (one that has answered already)."""
    port = sock.getsockname()[1]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        holders = {
            worker.pid
            for worker in workers
            for conn in worker.net_connections("tcp")
            if conn.raddr and conn.raddr.port == port
        }
        if len(holders) == 1:
            return holders.pop()
        time.sleep(0.05)  # the hand-off is under way: both may hold it for an instant
    raise AssertionError(f"no single worker holds the connection from port {port}")


def _read_until(sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_the_first_request_line_names_the_game_or_nothing():
    assert game_of_request(b"GET /v1/games/01abc/view/stream HTTP/1.1\r\n") == "01abc"
    assert game_of_request(b"POST /v1/games/01abc/moves HTTP/1.1\r\n") == "01abc"
    assert game_of_request(b"GET /v1/games/01abc?x=1 HTTP/1.1\r\n") == "01abc"
    assert game_of_request(b"GET /v1/games/01abc HTTP/1.1\r\n") == "01abc"
    assert game_of_request(b"POST /v1/games HTTP/1.1\r\n") is None
    assert game_of_request(b"GET /v1/health HTTP/1.1\r\n") is None
    assert game_of_request(b"GET /v1/games/01ab") is None  # cut before the id ends: not routed
    assert game_of_request(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") is None
    assert game_of_request(b"\x16\x03\x01\x02\x00\x01") is None  # a TLS hello
    assert {owner_slot(f"game{i}", 2) for i in range(20)} == {0, 1}


def test_every_connection_of_a_game_is_served_by_one_worker_and_streams_carry_every_event(two_workers):
    process, base = two_workers
    workers = psutil.Process(process.pid).children()
    owners: dict[str, int] = {}
    games = []
    for _ in range(6):
        game_id, tokens = _new_game(base)
        streams = [_open_stream(base, game_id) for _ in range(STREAMS_PER_GAME)]
        holders = {_holder(workers, sock) for sock in streams}
        assert len(holders) == 1, f"game {game_id}'s streams are served by {holders}"
        owners[game_id] = holders.pop()
        games.append((game_id, tokens, streams))
    # The owner is the game's slot: games of one slot share a worker, the two slots' workers differ.
    by_slot: dict[int, set[int]] = {}
    for game_id, pid in owners.items():
        by_slot.setdefault(owner_slot(game_id, 2), set()).add(pid)
    assert all(len(pids) == 1 for pids in by_slot.values()), by_slot
    if len(by_slot) == 2:
        assert by_slot[0] != by_slot[1]

    game_id, tokens, streams = games[0]
    while True:
        _, version = play_toy_turn(base, game_id, tokens)
        if version is None:
            break
    for sock in streams:
        data = _read_until(sock, b"event: end")
        ids = [int(line[4:]) for line in data.split(b"\n") if line.startswith(b"id: ")]
        assert ids and ids == list(range(ids[0], ids[-1] + 1)) and b"event: end" in data
    for _, _, socks in games:
        for sock in socks:
            sock.close()


def test_a_handed_over_connection_serves_its_later_keep_alive_requests(two_workers):
    _, base = two_workers
    game_id, _ = _new_game(base)
    with requests.Session() as session:
        first = session.get(f"{base}/v1/games/{game_id}")
        second = session.get(f"{base}/v1/health")
        third = session.get(f"{base}/v1/games/{game_id}")
    assert (first.status_code, second.status_code, third.status_code) == (200, 200, 200)
    assert first.json()["id"] == third.json()["id"] == game_id


def test_a_killed_workers_replacement_takes_its_slot_and_its_games(two_workers):
    process, base = two_workers
    workers = psutil.Process(process.pid).children()
    game_id, _ = _new_game(base)
    sock = _open_stream(base, game_id)
    owner = _holder(workers, sock)
    sock.close()
    psutil.Process(owner).kill()
    deadline = time.monotonic() + 60
    while True:
        now = psutil.Process(process.pid).children()
        if len(now) == 2 and owner not in {w.pid for w in now}:
            break
        assert time.monotonic() < deadline, "gunicorn did not replace the worker"
        time.sleep(0.1)
    replacement = next(w for w in now if w not in workers)
    # It binds its slot before it accepts: once it serves a connection, it owns the game.
    port = int(base.rsplit(":", 1)[1])
    while True:
        probe = socket.create_connection(("127.0.0.1", port), timeout=10)
        probe.sendall(b"GET /v1/health HTTP/1.1\r\nHost: t\r\n\r\n")
        served = _read_until(probe, b"\r\n\r\n").startswith(b"HTTP/1.1 200")
        held_by_replacement = served and _holder(now, probe) == replacement.pid
        probe.close()
        if held_by_replacement:
            break
        assert time.monotonic() < deadline, "the replacement never served a connection"
    # A sibling that found the slot unbound (its hand-offs of probes above, balanced to the least
    # loaded slot, may have) serves the slot's games itself for RETRY_SECONDS before trying again.
    deadline = time.monotonic() + 10 * RETRY_SECONDS
    while True:
        streams = [_open_stream(base, game_id) for _ in range(STREAMS_PER_GAME)]
        holders = {_holder(now, s) for s in streams}
        for s in streams:
            s.close()
        if holders == {replacement.pid}:
            break
        assert time.monotonic() < deadline, f"the game's streams are held by {holders}, not {replacement.pid}"
        time.sleep(RETRY_SECONDS / 4)


def test_only_a_peer_of_the_same_user_may_hand_sockets_over(two_workers):
    process, _ = two_workers
    address = slot_address(process.pid, 0)

    def channel_stays_open() -> bool:
        channel = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        channel.settimeout(1.0)
        channel.connect(address)
        try:
            return channel.recv(1) != b""  # the worker closed it: refused
        except TimeoutError:
            return True  # kept, waiting for hand-offs
        finally:
            channel.close()

    assert channel_stays_open()
    if os.geteuid() != 0:
        pytest.skip("needs root to connect as another user")
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # another user: nobody
        try:
            os.setuid(65534)
            os.write(write, b"1" if channel_stays_open() else b"0")
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert os.read(read, 1) == b"0", "a peer of another user kept its channel"


def test_a_worker_serves_a_connection_handed_over_after_junk_on_its_channel(two_workers):
    """The receiving end on its own: what is not one TCP socket with a one-byte message (a pipe, a
    datagram socket, a malformed message) is closed and skipped, and the next connection handed
    over on the same channel is served as if the worker had accepted it."""
    process, _ = two_workers
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    channel.connect(slot_address(process.pid, 0))
    read, write = os.pipe()
    datagram = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    socket.send_fds(channel, [b"\x00"], [read])
    socket.send_fds(channel, [b"\x00"], [datagram.fileno()])
    socket.send_fds(channel, [b"\x00\x01"], [datagram.fileno()])
    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.create_connection(server.getsockname(), timeout=10)
        served, _ = server.accept()
    socket.send_fds(channel, [b"\x00"], [served.fileno()])
    served.close()  # the worker holds its own descriptor now
    client.sendall(b"GET /v1/health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    answer = _read_until(client, b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    for closable in (client, channel, datagram):
        closable.close()
    os.close(read)
    os.close(write)


def test_the_least_loaded_slot_is_chosen_and_ties_are_drawn():
    loads = Loads(slots=4)
    for slot, count in enumerate([7, 3, 9, 3]):
        loads.set(slot, count)
    assert loads.get(2) == 9
    assert loads.least_loaded(3) == 1  # slot 3 is past the server's three workers
    rng = random.Random(5)
    assert {loads.least_loaded(4, rng) for _ in range(40)} == {1, 3}
    loads.set(9, 1)  # past the table: ignored, never a crash
    assert loads.least_loaded(4, rng) in (1, 3)


def test_a_placed_game_id_satisfies_the_hint_or_is_taken_after_the_last_draw():
    ids = [new_placed_game_id(lambda game_id: owner_slot(game_id, 4) == 3) for _ in range(20)]
    assert all(owner_slot(game_id, 4) == 3 and is_game_id(game_id) for game_id in ids)
    assert ids == sorted(ids), "ids stay monotonic within a process"
    draws = []
    never = new_placed_game_id(lambda game_id: draws.append(game_id) and False)
    assert is_game_id(never) and len(draws) == PLACEMENT_DRAWS - 1 and never > draws[-1]


def test_new_games_are_placed_on_the_worker_serving_fewer_connections(two_workers):
    """With one worker holding a game's streams, every game created meanwhile is owned by the other
    worker (drawn from the id alone, five games would all land there one time in 32)."""
    process, base = two_workers
    workers = psutil.Process(process.pid).children()
    busy_game, _ = _new_game(base)
    streams = [_open_stream(base, busy_game) for _ in range(STREAMS_PER_GAME)]
    busy = _holder(workers, streams[0])
    assert {_holder(workers, sock) for sock in streams} == {busy}
    created = [_new_game(base)[0] for _ in range(5)]
    assert {owner_slot(game_id, 2) for game_id in created} == {1 - owner_slot(busy_game, 2)}
    quiet = [_open_stream(base, created[0])]
    assert _holder(workers, quiet[0]) != busy
    for sock in streams + quiet:
        sock.close()


def test_a_connection_naming_no_game_goes_to_the_worker_serving_fewer(two_workers):
    """A new connection whose first request names no game (a health check, a lobby) is served by
    the worker holding fewer connections: with one worker holding a game's streams, every such
    connection opened meanwhile lands on the other (left to the kernel, about half would not)."""
    process, base = two_workers
    workers = psutil.Process(process.pid).children()
    game_id, _ = _new_game(base)
    streams = [_open_stream(base, game_id) for _ in range(8)]
    busy = _holder(workers, streams[0])
    assert {_holder(workers, sock) for sock in streams} == {busy}
    port = int(base.rsplit(":", 1)[1])
    lobbies = []
    for _ in range(5):
        lobby = socket.create_connection(("127.0.0.1", port), timeout=10)
        lobby.sendall(b"GET /v1/health HTTP/1.1\r\nHost: t\r\n\r\n")
        assert _read_until(lobby, b"\r\n\r\n").startswith(b"HTTP/1.1 200")
        lobbies.append(lobby)
    assert all(_holder(workers, lobby) != busy for lobby in lobbies)
    for sock in streams + lobbies:
        sock.close()


def test_connections_accepted_together_are_shared_between_the_workers(two_workers):
    """Keep-alive clients that connect at once (a bench's, a bot farm's) are spread over both
    workers: gevent accepts a burst of connections in one go, and each one, while its worker
    decides where it goes, counts as that worker's, as does each one handed over as its owner's."""
    process, base = two_workers
    workers = psutil.Process(process.pid).children()
    port = int(base.rsplit(":", 1)[1])
    clients = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(8)]
    for client in clients:
        client.sendall(b"GET /v1/health HTTP/1.1\r\nHost: t\r\n\r\n")
    for client in clients:
        assert _read_until(client, b"\r\n\r\n").startswith(b"HTTP/1.1 200")
    held = [_holder(workers, client) for client in clients]
    assert max(held.count(worker.pid) for worker in workers) <= 5, held
    for client in clients:
        client.close()
