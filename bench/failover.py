"""Failover drill on a private Redis Cluster (docs/scaling.md): kill a master under load, measure what the
clients saw and how many acknowledged moves were lost, with asynchronous replication (Redis's
default) and with ``REDIS_WAIT_REPLICAS=1`` (a move is answered once a replica holds it).

    .venv/bin/python bench/failover.py [--clients 6] [--seconds 8] [--after-kill 10]

Starts a private cluster (3 masters, 3 replicas, ``cluster-node-timeout`` 1000 ms: a replica
promotes itself about 1-2 s after its master stops answering; CLUSTER FAILOVER is not possible once
the master is dead), a plain Redis for RQ, and two gunicorn web processes (one gevent worker each)
on the same cluster: ``async`` (no WAIT) and ``wait`` (``REDIS_WAIT_REPLICAS=1``).

1. **Cost**: the same client threads play random Condottiere games against each node in turn
   (async, wait, async, wait... ``--rounds``: ratios measured in one run), printing moves/s per web
   process, the ratio wait/async, and the Redis CPU per move on the masters (one shard's capacity).
2. **Drills** (one per node): load on the node; after ``--seconds`` the master of the slot holding
   the most games is SIGKILLed; load goes on ``--after-kill`` seconds. Every acknowledged move
   (a 200 answer: version and events) is recorded; afterwards each game's log is read back and every
   acknowledged move whose events are not in the log at their versions counts as lost. Printed: the
   answers the clients got (by status, whether each 503 carried Retry-After), how long the games of
   the killed shard could not move, versions seen going backwards, and the loss. The killed node
   is restarted between drills (it rejoins as a replica).

Figures go to docs/scaling.md ("Failover"). Not a test: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from redis.crc import key_slot  # noqa: E402

from tests.redis_cluster import PrivateRedisCluster  # noqa: E402
from tests.redis_server import PrivateRedis, free_port  # noqa: E402

PLAYERS = 3


class Http:
    """One keep-alive connection, answers with headers; a dropped connection is an answer too."""

    def __init__(self, port: int):
        self.port = port
        self.conn: http.client.HTTPConnection | None = None

    def call(self, method: str, path: str, body=None, token: str | None = None):
        headers = {"Accept": "application/json"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            self.conn.request(method, path, body=payload, headers=headers)
            response = self.conn.getresponse()
            data = response.read()
            if response.will_close:
                self.close()
            return response.status, dict(response.getheaders()), (json.loads(data) if data else None)
        except (OSError, http.client.HTTPException):
            self.close()
            return 0, {}, None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


@dataclass
class Record:
    acks: list[tuple[str, int, str, int, str]] = field(default_factory=list)  # game, from, to, seat, events
    answers: collections.Counter = field(default_factory=collections.Counter)
    retry_after_missing: int = 0
    regressions: int = 0
    moves_by_time: list[tuple[float, str, bool]] = field(default_factory=list)  # when, game, ok
    tokens: dict[str, dict[int, str]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def play(port: int, record: Record, stop: threading.Event, seed: int) -> None:
    rng = random.Random(seed)
    http = Http(port)
    while not stop.is_set():
        status, _, created = http.call(
            "POST", "/v1/games", {"game": "condottiere", "config": {"players": PLAYERS}}
        )
        if status != 201:
            time.sleep(0.2)
            continue
        game_id = created["id"]
        tokens: dict[int, str] = {}
        for index in range(PLAYERS):
            status, _, claimed = http.call("POST", f"/v1/games/{game_id}/seats", {"name": f"p{index}"})
            if status == 201:
                tokens[claimed["seat"]] = claimed["token"]
        if len(tokens) < PLAYERS:
            continue
        with record.lock:
            record.tokens[game_id] = tokens
        last_acked = 0
        seat = 0
        while not stop.is_set():
            status, headers, answer = http.call("GET", f"/v1/games/{game_id}/view", token=tokens[seat])
            if status != 200:
                _count(record, status, headers)
                time.sleep(float(headers.get("Retry-After", "0.2") or 0.2))
                continue
            if answer["version"] < last_acked:
                with record.lock:
                    record.regressions += 1
                last_acked = answer["version"]
            view = answer["view"]
            if answer["status"] == "finished":
                break
            if seat not in view["awaiting"]:
                seat = view["awaiting"][0]
                continue
            command = rng.choice(view["legal_moves"])
            version = answer["version"]
            status, headers, moved = http.call(
                "POST",
                f"/v1/games/{game_id}/moves",
                {"command": command, "expected_version": version},
                token=tokens[seat],
            )
            _count(record, status, headers)
            with record.lock:
                record.moves_by_time.append((time.monotonic(), game_id, status == 200))
            if status == 200:
                events = json.dumps([e["event"] for e in moved["events"]], sort_keys=True)
                with record.lock:
                    record.acks.append((game_id, version, moved["version"], seat, events))
                last_acked = moved["version"]
            elif status == 503:
                time.sleep(float(headers.get("Retry-After", "1")))
    http.close()


def _count(record: Record, status: int, headers: dict) -> None:
    with record.lock:
        record.answers[status] += 1
        if status == 503 and "Retry-After" not in headers:
            record.retry_after_missing += 1


def run_load(port: int, clients: int, seconds: float, record: Record, seed: int, during=None) -> float:
    stop = threading.Event()
    threads = [
        threading.Thread(target=play, args=(port, record, stop, seed * 1000 + i), daemon=True)
        for i in range(clients)
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    if during is not None:
        during(stop)
    else:
        time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    return time.monotonic() - started


def lost_moves(port: int, record: Record) -> tuple[int, list]:
    """Acknowledged moves whose events are not in the log at their versions (read back as the seat
    that made them; what the answer hid from that seat is not compared)."""
    http = Http(port)
    logs: dict[tuple[str, int], dict[int, dict]] = {}
    lost = []
    for game_id, before, after, seat, events in record.acks:
        key = (game_id, seat)
        if key not in logs:
            logs[key] = {}
            while True:
                status, _, page = http.call(
                    "GET",
                    f"/v1/games/{game_id}/events?after={len(logs[key])}&limit=500",
                    token=record.tokens[game_id][seat],
                )
                entries = (page or {}).get("events", []) if status == 200 else []
                logs[key].update({e["version"]: e["event"] for e in entries})
                if len(entries) < 500:
                    break
        stored = [logs[key].get(v) for v in range(before + 1, after + 1)]
        if not _same(json.loads(events), stored):
            lost.append((game_id, before, after))
    http.close()
    return len(lost), lost[:5]


def _same(acked, stored) -> bool:
    """Is ``stored`` the acknowledged event(s)? A value the move's answer hid from its seat (null:
    another seat's cards) matches anything: a finished game's log is read unredacted."""
    if acked is None:
        return stored is not None or acked == stored
    if isinstance(acked, dict):
        return (
            isinstance(stored, dict)
            and acked.keys() == stored.keys()
            and all(_same(acked[k], stored[k]) if acked[k] is not None else True for k in acked)
        )
    if isinstance(acked, list):
        return isinstance(stored, list) and len(acked) == len(stored) and all(map(_same, acked, stored))
    return acked == stored


class Web:
    def __init__(self, cluster_url: str, rq_url: str, wait: int, log: Path):
        self.port = free_port()
        env = dict(
            os.environ,
            REDIS_URL=cluster_url,
            RQ_REDIS_URL=rq_url,
            WEB_CONCURRENCY="1",
            PORT=str(self.port),
            HOST="127.0.0.1",
            RATE_LIMITS_ENABLED="false",
            REDIS_WAIT_REPLICAS=str(wait),
            REDIS_WAIT_TIMEOUT_MS="1000",
        )
        env.pop("BIND", None)
        gunicorn = Path(sys.executable).parent / "gunicorn"
        self.process = subprocess.Popen(
            [str(gunicorn), "--config", str(ROOT / "gunicorn.conf.py"), "api:create_app()"],
            cwd=ROOT,
            env=env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while Http(self.port).call("GET", "/v1/health")[0] != 200:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(log.read_text()[-3000:])
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def masters_cpu(cluster: PrivateRedisCluster) -> float:
    return sum(cpu_seconds(cluster.processes[p].pid) for p in cluster.master_ports())


def master_of_slot(cluster: PrivateRedisCluster, slot: int) -> int:
    for port in cluster.master_ports():
        with cluster.node(port) as node:
            for entry in node.execute_command("CLUSTER", "SLOTS"):
                if entry[0] <= slot <= entry[1]:
                    return int(entry[2][1])
    raise RuntimeError(f"no master serves slot {slot}")


def drill(name: str, web: Web, cluster: PrivateRedisCluster, args) -> dict:
    record = Record()
    killed: dict = {}

    def during(stop: threading.Event) -> None:
        time.sleep(args.seconds)
        with record.lock:
            games = list(record.tokens)
        slots = collections.Counter(key_slot(f"game:{{g:{g}}}:events".encode()) for g in games)
        by_master = collections.Counter()
        for slot, count in slots.items():
            by_master[master_of_slot(cluster, slot)] += count
        port = by_master.most_common(1)[0][0]
        killed["port"] = port
        killed["at"] = time.monotonic()
        killed["acks_before"] = len(record.acks)
        killed["games"] = by_master[port]
        cluster.kill(port)
        time.sleep(args.after_kill)

    run_load(web.port, args.clients, 0, record, seed=hash(name) % 1000, during=during)
    cluster.wait_healthy(timeout=30)
    lost, examples = lost_moves(web.port, record)
    # Outage of the killed shard: from the kill to the first accepted move of a game on it.
    after_kill = [t for t, g, ok in record.moves_by_time if ok and t > killed["at"]]
    failed_after = [t for t, g, ok in record.moves_by_time if not ok and t > killed["at"]]
    outage = (max(failed_after) - killed["at"]) if failed_after else 0.0
    result = {
        "drill": name,
        "acknowledged": len(record.acks),
        "lost": lost,
        "lost_examples": examples,
        "answers": dict(sorted(record.answers.items())),
        "503_without_retry_after": record.retry_after_missing,
        "versions_seen_going_back": record.regressions,
        "last_failed_move_after_kill_s": round(outage, 2),
        "moves_after_kill": len(after_kill),
        "games": len(record.tokens),
        "games_on_killed_master": killed["games"],
    }
    # Bring the killed node back: it rejoins as a replica of the master that replaced it.
    cluster._start_node(killed["port"])
    cluster.wait_healthy(timeout=30)
    return result


def running_memory(cluster: PrivateRedisCluster, record: Record) -> None:
    """Redis bytes of the games the last cost phase left running (MEMORY USAGE of each game's keys,
    idempotency records included: these clients send none)."""
    client = cluster.client()
    sizes, versions = [], []
    for game_id in list(record.tokens):
        keys = client.keys(f"game:{{g:{game_id}}}:*")
        meta = client.hgetall(f"game:{{g:{game_id}}}:meta")
        if meta.get(b"status") != b"active":
            continue
        sizes.append(sum(int(client.memory_usage(key) or 0) for key in keys))
        versions.append(int(meta[b"version"]))
    client.close()
    if sizes:
        print(
            f"memory: {len(sizes)} running 3-player games, mean version {sum(versions) / len(versions):.0f}: "
            f"{sum(sizes) / len(sizes) / 1024:.1f} KiB each (max {max(sizes) / 1024:.1f} KiB)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=8.0, help="load before the kill, and per cost phase")
    parser.add_argument("--after-kill", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3, help="cost phases per node (alternating)")
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="failover-"))
    cluster = PrivateRedisCluster()
    rq = PrivateRedis()
    webs: list[Web] = []
    try:
        webs = [Web(cluster.url, rq.url, 0, tmp / "async.log"), Web(cluster.url, rq.url, 1, tmp / "wait.log")]
        print(f"cluster {cluster.url} (3 masters, 3 replicas), RQ {rq.url}; {args.clients} client threads")
        rates: dict[str, list[float]] = {"async": [], "wait": []}
        redis_cpu: dict[str, list[float]] = {"async": [], "wait": []}
        for round_ in range(args.rounds):
            for name, web in (("async", webs[0]), ("wait", webs[1])):
                record = Record()
                cpu0 = masters_cpu(cluster)
                took = run_load(web.port, args.clients, args.seconds, record, seed=round_)
                moves = sum(1 for *_, ok in record.moves_by_time if ok)
                rates[name].append(moves / took)
                redis_cpu[name].append((masters_cpu(cluster) - cpu0) / max(moves, 1))
        for name in rates:
            per_move_ms = 1000 * sum(redis_cpu[name]) / len(redis_cpu[name])
            print(
                f"cost [{name}]: moves/s per web process {', '.join(f'{r:.1f}' for r in rates[name])}; "
                f"Redis CPU per move on the masters {per_move_ms:.3f} ms "
                f"(one shard's core: about {1000 / per_move_ms:.0f} moves/s)"
            )
        running_memory(cluster, record)
        ratios = [w / a for w, a in zip(rates["wait"], rates["async"], strict=True)]
        print(
            f"cost: moves/s ratio wait/async per round {', '.join(f'{r:.2f}' for r in ratios)} "
            f"(median {sorted(ratios)[len(ratios) // 2]:.2f})"
        )
        for name, web in (("async", webs[0]), ("wait", webs[1])):
            print(f"drill [{name}]: " + json.dumps(drill(name, web, cluster, args)))
    finally:
        for web in webs:
            web.stop()
        rq.stop()
        cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
