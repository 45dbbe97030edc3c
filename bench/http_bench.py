"""HTTP benchmark: many full Condottiere games at once against gunicorn, and the health endpoint
on the same server with the same client concurrency, in one run.

    ./run bench                         # or: .venv/bin/python bench/http_bench.py --help
    ./run bench --clients 16 --seconds 15 --players 4

Unless ``--url`` is given it starts its own server: an embedded redis-server (the launcher's, with
AOF on, ``appendfsync always`` unless ``--fsync`` says otherwise) in a temporary directory on a free
port (never 6379) and gunicorn with ``gunicorn.conf.py`` (gevent workers) on a free port.

Phases, each bounded in time: warm-up; health (every client thread loops ``GET /v1/health``); then
for each mode a games phase followed by health again. Games: every client thread plays whole games
one after the other (create, claim every seat, then random legal moves until the game is over); a
game's claims and moves go on a connection of the game's own, as a seat's client's do, so the server
can serve it in the game's worker (api/edge/affinity.py; ``--shared-connection``: one connection per
thread for everything, as before). ``poll``: the awaited seat GETs its view, then POSTs its move.
``stream``: every seat follows ``GET /view/stream`` and the awaited seat POSTs its move with
``Prefer: return=minimal`` (no view GET; the cycle ends when every seat's stream has delivered the
new view); ``stream-whole``: the same with the whole move answer. Each mode is compared with the two
health phases around it, so drift on a shared machine counts against neither side; ``--rounds N``
plays every mode N times and prints each ratio's median (on a shared 2-core machine one round's
ratio can be off by a tenth).

Figures: move cycles/s, p50/p99 latency of the move POST (and of the view GET, or of the POST until
every seat's stream has the view), health requests/s, their RATIO, server (and Redis, client) CPU
per move cycle and per stream message (with the web processes' time in the kernel apart: sockets and
epoll, which no change to our Python lowers), the CPU RATIO (web CPU of a health request / web CPU of a
move cycle: what a CPU-bound server reaches, far less noisy than the rates when the machine is
shared), the most Redis connections held, Redis commands per accepted move (``INFO commandstats``
deltas) and, under MONITOR, per request; for every phase, the cores busy (client, web and Redis
CPU over the phase's time) and each web worker's share of the web CPU: a game is served by one
worker, and a keep-alive health client by the worker it reached, so uneven shares mean a core idled
(a health phase with uneven shares understates the server, and the RATIO it yields is high).
``--profile DIR`` records one web worker with py-spy
during each games phase and prints the functions with the largest share of samples.

The client uses ``http.client`` keep-alive connections (one per thread) rather than ``requests``:
its per-request CPU is a fraction of ``requests``' and the client shares the machine's cores with
the server, so a lighter client measures more of the server. For the same reason it decodes JSON
with orjson, decodes one view per move where one tells it all, and reads streams into 64 KiB
buffers (the cost of every client-side step lands in the ratios, the health phases' too).
"""

from __future__ import annotations

import argparse
import collections
import http.client
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402
import redis  # noqa: E402

from launcher.embedded_redis import EmbeddedRedis, free_port  # noqa: E402


class HttpError(Exception):
    def __init__(self, method: str, path: str, status: int, body: bytes):
        super().__init__(f"{method} {path} -> {status}: {body[:300]!r}")
        self.status = status
        self.body = body


class Client:
    """One keep-alive connection; reconnects when the server closes it."""

    def __init__(self, base_url: str):
        parts = urlsplit(base_url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.connection: http.client.HTTPConnection | None = None

    def _connect(self) -> http.client.HTTPConnection:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        connection.connect()
        connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection

    def request(
        self, method: str, path: str, body=None, token: str | None = None, headers: dict | None = None
    ) -> tuple[int, bytes]:
        headers = {"Accept": "application/json", **(headers or {})}
        payload = None
        if body is not None:
            payload = orjson.dumps(body)
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = self._connect()
            try:
                self.connection.request(method, path, body=payload, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
                if response.will_close:
                    self.close()
                return response.status, data
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # A keep-alive connection the server closed between two requests: retry once on a
                # new one (only safe because the benchmark never sends a request twice otherwise).
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def json(
        self, method: str, path: str, body=None, token: str | None = None, expect=(200, 201), headers=None
    ):
        status, data = self.request(method, path, body, token, headers)
        if status not in expect:
            raise HttpError(method, path, status, data)
        return orjson.loads(data) if data else None

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


MINIMAL = {"Prefer": "return=minimal"}


@dataclass
class Tally:
    moves: int = 0
    games: int = 0
    move_latencies: list[float] = field(default_factory=list)
    view_latencies: list[float] = field(default_factory=list)  # stream mode: POST until all streams have it
    errors: list[str] = field(default_factory=list)
    stream_messages: int = 0


def new_game(
    client: Client, players: int, rng: random.Random, seats: Client | None = None
) -> tuple[str, dict[int, str]]:
    """A Condottiere game of ``players`` seats, every seat claimed (on ``seats``, else on ``client``):
    its id and the seats' tokens."""
    seats = seats or client
    created = client.json(
        "POST",
        "/v1/games",
        {"game": "condottiere", "config": {"players": players, "seed": rng.randrange(2**31)}},
        expect=(201,),
    )
    game_id = created["id"]
    tokens: dict[int, str] = {}
    for index in range(players):
        claimed = seats.json("POST", f"/v1/games/{game_id}/seats", {"name": f"bench{index}"}, expect=(201,))
        tokens[claimed["seat"]] = claimed["token"]
    return game_id, tokens


def play_one_game(
    lobby: Client,
    players: int,
    rng: random.Random,
    tally: Tally,
    deadline: float,
    mark=lambda label: None,
    client: Client | None = None,
) -> bool:
    """Create a game (on ``lobby``), claim its seats and play random legal moves until it ends (or
    the deadline) on ``client`` (default: ``lobby``). Returns whether the game reached its end."""
    client = client or lobby
    game_id, tokens = new_game(lobby, players, rng, client)

    seat = min(tokens)
    while time.monotonic() < deadline:
        mark("view")
        started = time.perf_counter()
        answer = client.json("GET", f"/v1/games/{game_id}/view", token=tokens[seat])
        tally.view_latencies.append(time.perf_counter() - started)
        mark("idle")
        view = answer["view"]
        if answer["status"] == "finished":
            tally.games += 1
            return True
        if seat not in view["awaiting"]:
            # The view of a seat with nothing to do (the turn moved on): fetch the awaited seat's.
            seat = view["awaiting"][0]
            continue
        command = rng.choice(view["legal_moves"])
        mark("move")
        started = time.perf_counter()
        moved = client.json(
            "POST",
            f"/v1/games/{game_id}/moves",
            {"command": command, "expected_version": answer["version"]},
            token=tokens[seat],
        )
        tally.move_latencies.append(time.perf_counter() - started)
        mark("idle")
        tally.moves += 1
        awaiting = moved["view"]["view"]["awaiting"]
        if awaiting and seat not in awaiting:
            seat = awaiting[0]
    return False


class ViewStream:
    """One seat's ``GET /view/stream`` on a raw socket (HTTP/1.0, so the body is not chunked): the
    bench reads many at once with a selector, parsing only each message's version until a view's
    content is needed."""

    def __init__(self, host: str, port: int, game_id: str, token: str):
        self.sock = socket.create_connection((host, port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.sendall(
            f"GET /v1/games/{game_id}/view/stream HTTP/1.0\r\nHost: {host}\r\n"
            f"Accept: text/event-stream\r\nAuthorization: Bearer {token}\r\n\r\n".encode()
        )
        self.buffer = b""
        self.headers_done = False
        self.version = -1
        self.data = b""  # the latest view's JSON
        self.messages = 0
        self.ended = False

    def feed(self) -> None:
        # 64 KiB: above glibc's mmap threshold (128 KiB) every recv would map and unmap its buffer,
        # 19 us against 3 us here, which the client's CPU (sharing the server's cores) then pays.
        chunk = self.sock.recv(65536)
        if not chunk:
            self.ended = True
            return
        self.buffer += chunk
        if not self.headers_done:
            head, sep, rest = self.buffer.partition(b"\r\n\r\n")
            if not sep:
                return
            if not head.startswith((b"HTTP/1.1 200", b"HTTP/1.0 200")):
                raise HttpError("GET", "view/stream", 0, head)
            self.headers_done, self.buffer = True, rest
        *blocks, self.buffer = self.buffer.split(b"\n\n")
        for block in blocks:
            if block.startswith(b"id: "):
                first, _, rest = block.partition(b"\n")
                event, _, data = rest.partition(b"\n")
                if event == b"event: view":
                    self.version = int(first[4:])
                    self.data = data[6:]
                    self.messages += 1
            elif block.startswith(b"event: end"):
                self.ended = True

    def view(self) -> dict:
        return orjson.loads(self.data)

    def close(self) -> None:
        self.sock.close()


def play_one_game_streamed(
    lobby: Client,
    players: int,
    rng: random.Random,
    tally: Tally,
    deadline: float,
    minimal: bool = True,
    client: Client | None = None,
) -> bool:
    """Like ``play_one_game``, but no client ever GETs a view: every seat follows its view stream and
    the awaited seat POSTs a move (``minimal``: asking for the minimal answer, ``Prefer:
    return=minimal``, as a client that follows its stream does); a move cycle ends when every seat's
    stream has delivered the view at the move's version (that latency is recorded)."""
    import selectors

    client = client or lobby
    game_id, tokens = new_game(lobby, players, rng, client)
    streams = {seat: ViewStream(client.host, client.port, game_id, token) for seat, token in tokens.items()}
    selector = selectors.DefaultSelector()
    for stream in streams.values():
        selector.register(stream.sock, selectors.EVENT_READ, stream)

    def until_all_at(version: int) -> None:
        while any(stream.version < version for stream in streams.values()):
            if time.monotonic() > deadline + 30:
                raise HttpError("GET", "view/stream", 0, b"a stream did not deliver in time")
            for key, _ in selector.select(timeout=1.0):
                key.data.feed()
                if key.data.ended and key.data.version < version:
                    raise HttpError("GET", "view/stream", 0, b"stream ended early")

    try:
        until_all_at(0)
        version = max(stream.version for stream in streams.values())
        until_all_at(version)
        while time.monotonic() < deadline:
            view = streams[min(streams)].view()
            if view["status"] == "finished":
                tally.games += 1
                return True
            seat = view["view"]["awaiting"][0]
            mine = view if seat == min(streams) else streams[seat].view()
            command = rng.choice(mine["view"]["legal_moves"])
            started = time.perf_counter()
            moved = client.json(
                "POST",
                f"/v1/games/{game_id}/moves",
                {"command": command, "expected_version": mine["version"]},
                token=tokens[seat],
                headers=MINIMAL if minimal else None,
            )
            tally.move_latencies.append(time.perf_counter() - started)
            until_all_at(moved["version"])
            tally.view_latencies.append(time.perf_counter() - started)  # POST until every stream has it
            tally.moves += 1
        return False
    finally:
        tally.stream_messages += sum(stream.messages for stream in streams.values())
        selector.close()
        for stream in streams.values():
            stream.close()


def run_threads(clients: int, target) -> list:
    results = [None] * clients
    errors: list[BaseException] = []

    def runner(index: int) -> None:
        try:
            results[index] = target(index)
        except BaseException as exc:  # reported after the phase
            errors.append(exc)

    threads = [threading.Thread(target=runner, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


def health_phase(base_url: str, clients: int, seconds: float) -> tuple[int, float]:
    def loop(index: int) -> int:
        client = Client(base_url)
        count = 0
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                status, _ = client.request("GET", "/v1/health")
                if status != 200:
                    raise HttpError("GET", "/v1/health", status, b"")
                count += 1
        finally:
            client.close()
        return count

    started = time.perf_counter()
    counts = run_threads(clients, loop)
    return sum(counts), time.perf_counter() - started


def games_phase(
    base_url: str,
    clients: int,
    seconds: float,
    players: list[int],
    max_games: int,
    seed: int,
    streamed=False,
    minimal=False,
    shared_connection=False,
):
    tallies = [Tally() for _ in range(clients)]
    games_started = [0]
    lock = threading.Lock()

    def loop(index: int) -> Tally:
        client = Client(base_url)
        rng = random.Random(seed * 1000 + index)
        tally = tallies[index]
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                with lock:
                    if games_started[0] >= max_games:
                        break
                    games_started[0] += 1
                # A game's seats claim and move on a connection of the game's own (as a seat's
                # client does: its first request names the game, so the server can place it with
                # the game's streams, api/edge/affinity.py), unless --shared-connection.
                seats = None if shared_connection else Client(base_url)
                try:
                    if streamed:
                        play_one_game_streamed(
                            client, rng.choice(players), rng, tally, deadline, minimal, seats
                        )
                    else:
                        play_one_game(client, rng.choice(players), rng, tally, deadline, client=seats)
                except HttpError as exc:
                    tally.errors.append(str(exc))
                    if len(tally.errors) > 5:
                        raise
                finally:
                    if seats is not None:
                        seats.close()
        finally:
            client.close()
        return tally

    started = time.perf_counter()
    run_threads(clients, loop)
    elapsed = time.perf_counter() - started
    total = Tally()
    for tally in tallies:
        total.moves += tally.moves
        total.games += tally.games
        total.move_latencies += tally.move_latencies
        total.view_latencies += tally.view_latencies
        total.errors += tally.errors
        total.stream_messages += tally.stream_messages
    return total, elapsed


def round_trips(base_url: str, redis_url: str, players: int, seed: int) -> dict[str, collections.Counter]:
    """Play one game with one client under MONITOR; ECHO markers sent between requests attribute
    every command Redis receives to the request that caused it. Top-level commands are round trips
    (or members of one pipeline); commands a Lua script runs are listed apart ("lua"). Exact when
    the bench runs its own server (no RQ workers); with --url, workers' commands mix in."""
    marker = redis.Redis.from_url(redis_url)
    monitor_client = redis.Redis.from_url(redis_url)
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    requests_seen: collections.Counter = collections.Counter()
    ready = threading.Event()

    def watch() -> None:
        segment = "idle"
        with monitor_client.monitor() as monitor:
            ready.set()
            while True:
                command = monitor.next_command()
                words = command["command"].split(" ")
                name = words[0].lower()
                if name == "echo" and words[1].startswith("bench:"):
                    label = words[1].removeprefix("bench:")
                    if label == "stop":
                        return
                    segment = label
                    requests_seen[segment] += 1
                    continue
                kind = "lua" if command["client_type"] == "lua" else "top"
                counts[segment][(kind, name)] += 1

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    ready.wait(5)
    client = Client(base_url)
    tally = Tally()
    try:
        play_one_game(
            client,
            players,
            random.Random(seed),
            tally,
            time.monotonic() + 60,
            mark=lambda label: marker.echo(f"bench:{label}"),
        )
    finally:
        marker.echo("bench:stop")
        watcher.join(10)
        client.close()
        marker.close()
        monitor_client.close()
    return {segment: (counter, requests_seen[segment]) for segment, counter in counts.items()}


def commandstats(client: redis.Redis) -> dict[str, int]:
    """Calls per command, and (keys ending in " us") the microseconds Redis spent in each."""
    stats = client.info("commandstats")
    found = {}
    for name, value in stats.items():
        found[name.removeprefix("cmdstat_")] = int(value["calls"])
        found[name.removeprefix("cmdstat_") + " us"] = int(value["usec"])
    return found


def process_cpu_seconds(pid: int) -> tuple[float, float]:
    """utime and stime of one process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


WORKER = "worker"  # the key prefix of one web worker's CPU in a CpuMeter sample
SETTLE_SECONDS = 0.5  # between phases: the server closes the last phase's connections


class CpuMeter:
    """CPU seconds spent by the gunicorn master and workers, by Redis and by this client process,
    between ``start`` and ``stop``: the cost of a phase, whatever else the machine is doing."""

    def __init__(self, server_pid: int | None, redis_client: redis.Redis | None):
        self.server_pids = [server_pid, *children_of(server_pid)] if server_pid else []
        self.redis_client = redis_client

    def sample(self) -> dict[str, float]:
        sample = {"client": time.process_time()}
        if self.server_pids:
            times = [process_cpu_seconds(pid) for pid in self.server_pids]
            sample["web"] = sum(user + system for user, system in times)
            # The kernel's share (sockets, epoll): a floor no change to our Python code can lower.
            sample["web in kernel"] = sum(system for _, system in times)
            for pid, (user, system) in zip(self.server_pids[1:], times[1:], strict=True):
                sample[f"{WORKER} {pid}"] = user + system
        if self.redis_client is not None:
            info = self.redis_client.info("cpu")
            sample["redis"] = float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
        return sample

    @staticmethod
    def delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
        return {key: after[key] - before[key] for key in before}


def format_cpu(cost: dict[str, float], count: int, unit: str) -> str:
    return (
        ", ".join(
            f"{key} {value / count * 1000:.3f} ms"
            for key, value in cost.items()
            if not key.startswith(WORKER)
        )
        + f" of CPU per {unit}"
    )


def format_load(cost: dict[str, float], elapsed: float) -> str:
    """How busy the machine was in a phase (this client, the web processes and Redis, in cores) and
    how evenly the web workers shared their CPU: a game is served by one worker (api/edge/affinity.py),
    so games placed unevenly leave a core idle while the other is the bottleneck."""
    busy = sum(value for key, value in cost.items() if key in ("client", "web", "redis")) / elapsed
    shares = worker_shares(cost)
    return f"cores busy {busy:.2f} of {os.cpu_count()}; web workers' shares of their CPU {shares}"


def worker_shares(cost: dict[str, float]) -> str:
    """Each web worker's share of the web CPU, the largest first ("52% / 48%")."""
    workers = sorted((value for key, value in cost.items() if key.startswith(WORKER)), reverse=True)
    return " / ".join(f"{value / sum(workers):.0%}" for value in workers) if sum(workers) else "-"


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class ConnectionSampler:
    """The most Redis connections held at once during a phase (CLIENT LIST every half second),
    not counting this bench's own statistics connection."""

    def __init__(self, client: redis.Redis | None):
        self.client = client
        self.most = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        if client is not None:
            self.thread.start()

    def _run(self) -> None:
        while not self.done.wait(0.5):
            self.most = max(self.most, len(self.client.client_list()) - 1)

    def stop(self) -> int | None:
        if self.client is None:
            return None
        self.done.set()
        self.thread.join()
        return self.most


def report_games(
    mode, tally, elapsed, cost, before, after, held, health_rate, health_cpu, health_count
) -> tuple[float, float | None]:
    """Prints a games phase's figures; returns its RATIO and CPU RATIO (None without server CPU)."""
    rate = tally.moves / elapsed
    cpu_ratio = None
    print(
        f"[{mode}] games phase: {elapsed:.1f} s, {tally.games} games finished, {tally.moves} accepted moves, "
        f"{len(tally.errors)} errors"
    )
    for error in tally.errors[:5]:
        print(f"  error: {error}")
    if not tally.moves:
        return 0.0, None
    p = percentile
    print(
        f"[{mode}] move POST latency: p50 {p(tally.move_latencies, 0.5) * 1000:.2f} ms, "
        f"p99 {p(tally.move_latencies, 0.99) * 1000:.2f} ms"
    )
    if mode.startswith("stream"):
        print(
            f"[{mode}] move POST until every seat's stream delivered its view: p50 "
            f"{p(tally.view_latencies, 0.5) * 1000:.2f} ms, p99 {p(tally.view_latencies, 0.99) * 1000:.2f} ms"
        )
        print(f"[{mode}] move cycles/s: {rate:.0f} (each: one POST; every seat learns it from its stream)")
        print(
            f"[{mode}] RATIO move cycles/s / health req/s: {rate / health_rate:.3f} "
            f"(health {health_rate:.0f} req/s around this phase, its workers' shares "
            f"{worker_shares(health_cpu)}: uneven shares mean a health rate below what the server can do)"
        )
        print(
            f"[{mode}] stream messages: {tally.stream_messages} "
            f"({tally.stream_messages / tally.moves:.2f} per move)"
        )
        if cost.get("web") and tally.stream_messages:
            print(
                f"[{mode}] server CPU per stream message (all web CPU / messages): "
                f"{cost['web'] / tally.stream_messages * 1000:.3f} ms"
            )
    else:
        print(
            f"[poll] view GET latency: p50 {p(tally.view_latencies, 0.5) * 1000:.2f} ms, "
            f"p99 {p(tally.view_latencies, 0.99) * 1000:.2f} ms"
        )
        print(f"[poll] moves/s: {rate:.0f} (each: the mover's view GET and its move POST)")
        print(
            f"[poll] RATIO moves/s / health req/s: {rate / health_rate:.3f} "
            f"(health {health_rate:.0f} req/s around this phase)"
        )
        print(f"[poll] ratio (move POST + view GET)/s / health req/s: {2 * rate / health_rate:.3f}")
    print(f"[{mode}] " + format_cpu(cost, tally.moves, "move cycle (create/claim included)"))
    print(f"[{mode}] " + format_load(cost, elapsed))
    if cost.get("web") and health_cpu.get("web"):
        web_health = health_cpu["web"] / health_count
        cycle_in_health = cost["web"] / tally.moves / web_health
        cpu_ratio = 1 / cycle_in_health
        print(
            f"[{mode}] server CPU of a move cycle in health requests: {cycle_in_health:.2f}; CPU RATIO "
            f"(health CPU / move cycle CPU, the ratio a CPU-bound server reaches whatever the load "
            f"beside): {1 / cycle_in_health:.3f}"
        )
    if held is not None:
        print(f"[{mode}] Redis connections held (most seen, all web workers): {held}")
    if before and after:
        deltas = {name: after.get(name, 0) - before.get(name, 0) for name in after}
        for own in ("info", "client|list", "info us", "client|list us"):
            deltas.pop(own, None)  # the bench's own INFO and CLIENT LIST calls
        spent = {name[:-3]: value for name, value in deltas.items() if name.endswith(" us")}
        calls = {name: value for name, value in deltas.items() if not name.endswith(" us")}
        top = sorted(((count, name) for name, count in calls.items() if count), reverse=True)
        print(
            f"[{mode}] redis commands per accepted move: {sum(calls.values()) / tally.moves:.2f} ("
            + ", ".join(f"{name} {count / tally.moves:.3f}" for count, name in top[:10])
            + ")"
        )
        costly = sorted(((us, name) for name, us in spent.items() if us), reverse=True)
        print(
            f"[{mode}] redis time in commands per accepted move: {sum(spent.values()) / tally.moves:.1f} us ("
            + ", ".join(f"{name} {us / tally.moves:.1f}" for us, name in costly[:6])
            + "; a script's time includes the commands it runs)"
        )
    return rate / health_rate, cpu_ratio


class Server:
    """gunicorn on its own embedded Redis, both on free ports, both stopped by ``stop``."""

    def __init__(self, web_workers: int, fsync: str, rate_limits: bool = False):
        self.tmp = Path(tempfile.mkdtemp(prefix="http-bench-"))
        self.redis = EmbeddedRedis(self.tmp / "redis", appendfsync=fsync)
        self.port = free_port()
        self.web_workers = web_workers
        self.rate_limits = rate_limits
        self.process: subprocess.Popen | None = None
        self.log = self.tmp / "gunicorn.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        self.redis.start()
        env = dict(os.environ)
        env.update(
            REDIS_URL=self.redis.url,
            PORT=str(self.port),
            HOST="127.0.0.1",
            WEB_CONCURRENCY=str(self.web_workers),
        )
        env.pop("BIND", None)
        # The bench is one address creating hundreds of games a minute: the default limits would
        # refuse it. With --rate-limits every request is counted (the cost measured) under limits
        # too high to refuse anything.
        env["RATE_LIMITS_ENABLED"] = "true" if self.rate_limits else "false"
        if self.rate_limits:
            for name in ("CREATE", "CLAIM", "MOVE", "SEAT_ACTION", "JOB"):
                env[f"RATE_LIMIT_{name}"] = "1000000/minute"
        gunicorn = Path(sys.executable).parent / "gunicorn"
        self.process = subprocess.Popen(
            [str(gunicorn), "--config", str(ROOT / "gunicorn.conf.py"), "api:create_app()"],
            cwd=ROOT,
            env=env,
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        client = Client(self.url)
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited:\n{self.log.read_text()}")
            try:
                if client.request("GET", "/v1/health")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn not ready:\n{self.log.read_text()}")
            client.close()
            time.sleep(0.1)
        client.close()
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
        self.redis.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _frame_name(frame: str) -> str:
    """``function (path/to/module.py:12)`` as ``function (module.py)``: one entry per function."""
    name, _, where = frame.rpartition(" (")
    return f"{name} ({where.rsplit('/', 1)[-1].split(':')[0].rstrip(')')})" if name else frame


class Profiler:
    """py-spy recording one gunicorn worker during a phase (``--profile``): collapsed stacks written to
    a file, and the functions with the largest share of samples (inclusive) printed. py-spy needs
    ptrace: run as root or with CAP_SYS_PTRACE."""

    def __init__(self, path: Path, worker_pid: int, seconds: float):
        self.path = path
        py_spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
        if py_spy is None:
            raise RuntimeError("--profile needs py-spy (pip install py-spy; it is in the dev extras)")
        self.process = subprocess.Popen(
            [py_spy, "record", "--pid", str(worker_pid), "--format", "raw", "--rate", "250", "--gil"]
            + ["--nonblocking", "--duration", str(int(seconds) + 1), "--output", str(path)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def report(self, label: str, top: int = 25) -> None:
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if not self.path.exists():
            print(f"[{label}] profile: py-spy wrote nothing (ptrace allowed?)")
            return
        inclusive: collections.Counter = collections.Counter()
        own: collections.Counter = collections.Counter()
        total = 0
        for line in self.path.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            samples = int(count)
            total += samples
            frames = [_frame_name(frame) for frame in stack.split(";")]
            for frame in set(frames):
                inclusive[frame] += samples
            own[frames[-1]] += samples
        if not total:
            print(f"[{label}] profile: no samples")
            return
        print(f"[{label}] profile of one worker ({total} samples with the GIL held; {self.path}):")
        print(
            f"[{label}]   inclusive: "
            + "; ".join(f"{f} {n / total:.1%}" for f, n in inclusive.most_common(top))
        )
        print(f"[{label}]   own: " + "; ".join(f"{f} {n / total:.1%}" for f, n in own.most_common(top)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16, help="client threads, each one connection (16)")
    parser.add_argument("--seconds", type=float, default=15.0, help="length of the games phase (15)")
    parser.add_argument("--health-seconds", type=float, default=5.0, help="length of each health phase (5)")
    parser.add_argument("--players", default="4", help="comma-separated player counts to draw from (4)")
    parser.add_argument(
        "--max-games", type=int, default=2000, help="stop the games phase after this many games"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="play every mode this many times (each between two health phases) and print each "
        "ratio's median: on a shared machine one round can be off by a tenth (1)",
    )
    parser.add_argument(
        "--web-workers", type=int, default=2, help="gunicorn workers when the bench starts the server (2)"
    )
    parser.add_argument(
        "--fsync",
        default="always",
        choices=("always", "everysec", "no"),
        help="AOF policy of the bench's Redis (the launcher's default: always; figures before "
        "2026-12-07 are everysec's)",
    )
    parser.add_argument("--url", help="benchmark this running server instead of starting one")
    parser.add_argument(
        "--redis-url", help="with --url: the server's Redis, for command counts (never a shared one)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--rate-limits",
        action="store_true",
        help="count every request against (unreachable) rate limits, to measure their cost; off by default",
    )
    parser.add_argument(
        "--mode",
        default="both",
        choices=("both", "stream", "poll", "stream-whole", "all"),
        help="stream: seats follow their view streams and never GET a view, moves ask for the minimal "
        "answer (Prefer: return=minimal); stream-whole: the same with the whole move answer (events and "
        "the mover's view); poll: the awaited seat GETs its view before each move (the old cycle); "
        "both (default): poll and stream in the same run; all: the three",
    )
    parser.add_argument(
        "--shared-connection",
        action="store_true",
        help="each client thread plays all its games on its one connection (the default before "
        "each game was placed on one worker); by default a game's claims and moves use a "
        "connection of its own, as a seat's client does",
    )
    parser.add_argument(
        "--profile",
        metavar="DIR",
        help="record one web worker with py-spy during each games phase (collapsed stacks in DIR) and "
        "print the top entries; needs ptrace (root)",
    )
    args = parser.parse_args(argv)
    players = [int(p) for p in args.players.split(",")]

    server = None
    if args.url:
        base_url, redis_url = args.url.rstrip("/"), args.redis_url
    else:
        server = Server(args.web_workers, args.fsync, args.rate_limits).start()
        base_url, redis_url = server.url, server.redis.url
    stats_client = redis.Redis.from_url(redis_url) if redis_url else None
    try:
        print(
            f"server {base_url}, redis {redis_url or '(not given)'}, {args.clients} client threads, "
            f"{os.cpu_count()} cores, players {players}",
            flush=True,
        )
        modes = {"both": ["poll", "stream"], "all": ["poll", "stream-whole", "stream"]}.get(
            args.mode, [args.mode]
        )
        for mode in modes:  # warm-up
            games_phase(
                base_url, min(args.clients, 4), 2.0, players, 8, args.seed + 99, mode.startswith("stream")
            )

        meter = CpuMeter(server.process.pid if server else None, stats_client)
        health_phases: list[tuple[int, float, dict[str, float]]] = []  # (requests, rate, CPU)

        def measure_health() -> None:
            # The server places a new connection by the connections each worker holds (api/edge/affinity.py):
            # give it the moment it takes to see the last phase's connections close, or the health
            # clients, all connecting at once, are placed by stale counts and one worker gets most.
            time.sleep(SETTLE_SECONDS)
            cpu_before = meter.sample()
            count, elapsed = health_phase(base_url, args.clients, args.health_seconds)
            health_phases.append((count, count / elapsed, meter.delta(cpu_before, meter.sample())))

        def health_around() -> tuple[float, dict[str, float], int]:
            """The rate, CPU and requests of the two health phases around the last games phase."""
            (count_a, rate_a, cpu_a), (count_b, rate_b, cpu_b) = health_phases[-2:]
            return (rate_a + rate_b) / 2, {key: cpu_a[key] + cpu_b[key] for key in cpu_a}, count_a + count_b

        # Health before and after every games phase: each mode is compared with the health measured
        # right around it (its two neighbours), so drift on a shared machine counts against neither
        # side and favours no mode.
        measure_health()
        results: list[tuple[str, tuple]] = []
        for mode in [mode for _ in range(max(1, args.rounds)) for mode in modes]:
            before = commandstats(stats_client) if stats_client else {}
            sampler = ConnectionSampler(stats_client)
            profiler = None
            if args.profile and server is not None:
                Path(args.profile).mkdir(parents=True, exist_ok=True)
                worker = children_of(server.process.pid)[0]
                profiler = Profiler(Path(args.profile) / f"{mode}.txt", worker, args.seconds)
            time.sleep(SETTLE_SECONDS)  # as before a health phase
            start = meter.sample()
            tally, elapsed = games_phase(
                base_url,
                args.clients,
                args.seconds,
                players,
                args.max_games,
                args.seed,
                mode.startswith("stream"),
                minimal=mode == "stream",
                shared_connection=args.shared_connection,
            )
            cost = meter.delta(start, meter.sample())
            held = sampler.stop()
            after = commandstats(stats_client) if stats_client else {}
            if profiler is not None:
                profiler.report(mode)
            measure_health()
            results.append((mode, (tally, elapsed, cost, before, after, held, *health_around())))
        health_cpu: dict[str, float] = {}
        for _, _, cpu in health_phases:
            for key, value in cpu.items():
                health_cpu[key] = health_cpu.get(key, 0.0) + value
        print(
            "health req/s: "
            + ", ".join(f"{rate:.0f}" for _, rate, _ in health_phases)
            + " (one phase before and one after each games phase); "
            + format_cpu(health_cpu, sum(count for count, _, _ in health_phases), "health request")
        )
        print("health: " + format_load(health_cpu, sum(count / rate for count, rate, _ in health_phases)))
        errors = 0
        ratios: dict[str, list[tuple[float, float | None]]] = collections.defaultdict(list)
        for mode, (tally, elapsed, cost, before, after, held, rate, cpu, count) in results:
            errors += len(tally.errors)
            ratios[mode].append(
                report_games(mode, tally, elapsed, cost, before, after, held, rate, cpu, count)
            )
        for mode, rounds in ratios.items():
            if len(rounds) < 2:
                continue
            measured = [ratio for ratio, _ in rounds]
            by_cpu = [cpu_ratio for _, cpu_ratio in rounds if cpu_ratio is not None]
            line = f"[{mode}] over {len(rounds)} rounds: RATIO median {statistics.median(measured):.3f} (" + (
                ", ".join(f"{ratio:.3f}" for ratio in measured) + ")"
            )
            if by_cpu:
                line += f"; CPU RATIO median {statistics.median(by_cpu):.3f} (" + (
                    ", ".join(f"{ratio:.3f}" for ratio in by_cpu) + ")"
                )
            print(line)
        if redis_url:
            sample = round_trips(base_url, redis_url, players[0], args.seed + 7)
            print("redis commands per request, one game under MONITOR (top = sent by the web process):")
            for segment in ("view", "move"):
                counter, seen = sample.get(segment, (collections.Counter(), 0))
                if not seen:
                    continue
                top = {name: calls for (kind, name), calls in counter.items() if kind == "top"}
                lua = {name: calls for (kind, name), calls in counter.items() if kind == "lua"}
                top_each = ", ".join(f"{n} {c / seen:.2f}" for n, c in sorted(top.items()))
                lua_each = ", ".join(f"{n} {c / seen:.2f}" for n, c in sorted(lua.items()))
                print(
                    f"  {segment} ({seen} requests): top-level {sum(top.values()) / seen:.2f} per request "
                    f"[{top_each}]; inside scripts {sum(lua.values()) / seen:.2f} [{lua_each}]"
                )
        return 1 if errors else 0
    finally:
        if stats_client:
            stats_client.close()
        if server:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
