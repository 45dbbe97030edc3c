"""A private, throw-away Redis Cluster for tests and benchmarks: 3 masters and 3 replicas.

Six ``redis-server`` processes in cluster mode on free ports of 127.0.0.1 (never the machine's
default port), wired with plain CLUSTER commands (ADDSLOTSRANGE, MEET, REPLICATE): no
``redis-cli --cluster`` or other tool is needed. Nothing is kept on disk beyond the session.
"""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis

from store.redis_adapter import ClusterClient
from tests.redis_server import redis_server_binary

SLOTS = 16384


def _is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def cluster_port_pair(taken: set[int]) -> int:
    """A free port whose cluster bus port (port + 10000, fixed by Redis) is free as well."""
    for _ in range(1000):
        port = random.randint(20000, 50000)
        if port not in taken and port + 10000 not in taken and _is_free(port) and _is_free(port + 10000):
            return port
    raise RuntimeError("no free port pair for a private Redis Cluster node")


class PrivateRedisCluster:
    """``masters`` masters with ``replicas`` replicas each; ``url`` is a ``redis+cluster://`` URL."""

    def __init__(self, masters: int = 3, replicas: int = 1, *extra_args: str):
        self.dir = tempfile.mkdtemp(prefix="test-redis-cluster-")
        self.processes: dict[int, subprocess.Popen] = {}
        self.masters = masters
        self.replicas = replicas
        self.extra_args = extra_args
        for attempt in range(3):
            # Another process may take a port between our check and the node's bind (the machine
            # is shared): start over on fresh ports.
            self.ports = []
            for _ in range(masters * (1 + replicas)):
                taken = set(self.ports) | {p + 10000 for p in self.ports}
                self.ports.append(cluster_port_pair(taken))
            for port in self.ports:
                self._start_node(port)
            try:
                self._wait_ping()
                break
            except RuntimeError:
                self._stop_processes()
                self.processes = {}
                if attempt == 2:
                    raise
        self._assign()
        self.wait_healthy()
        self.url = f"redis+cluster://127.0.0.1:{self.ports[0]}/0"

    # -- nodes -----------------------------------------------------------------------------------
    def _start_node(self, port: int) -> None:
        node_dir = Path(self.dir) / str(port)
        node_dir.mkdir(exist_ok=True)
        args = [
            redis_server_binary(),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            f"nodes-{port}.conf",
            "--cluster-node-timeout",
            "1000",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(node_dir),
            *self.extra_args,
        ]
        self.processes[port] = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def node(self, port: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)

    def _wait_ping(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        for port in self.ports:
            while True:
                client = self.node(port)
                try:
                    client.ping()
                    break
                except redis.ConnectionError:
                    if self.processes[port].poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"cluster node on port {port} did not start") from None
                    time.sleep(0.02)
                finally:
                    client.close()

    def _assign(self) -> None:
        master_ports = self.ports[: self.masters]
        per = SLOTS // self.masters
        for i, port in enumerate(master_ports):
            first = i * per
            last = SLOTS - 1 if i == self.masters - 1 else first + per - 1
            with self.node(port) as client:
                client.execute_command("CLUSTER", "ADDSLOTSRANGE", first, last)
        with self.node(self.ports[0]) as first_node:
            for port in self.ports[1:]:
                first_node.execute_command("CLUSTER", "MEET", "127.0.0.1", port)
        self._wait(lambda: all(self._known_nodes(p) == len(self.ports) for p in self.ports), "MEET")
        replica_ports = self.ports[self.masters :]
        for k, port in enumerate(replica_ports):
            master = master_ports[k % self.masters]
            with self.node(master) as client:
                master_id = client.execute_command("CLUSTER", "MYID")
            if isinstance(master_id, bytes):
                master_id = master_id.decode()
            with self.node(port) as client:
                client.execute_command("CLUSTER", "REPLICATE", master_id)

    def _known_nodes(self, port: int) -> int:
        with self.node(port) as client:
            return len(client.execute_command("CLUSTER", "NODES").decode().strip().splitlines())

    def _info(self, port: int) -> dict[str, str]:
        with self.node(port) as client:
            text = client.execute_command("CLUSTER", "INFO")
        text = text.decode() if isinstance(text, bytes) else text
        return dict(line.split(":", 1) for line in text.strip().splitlines() if ":" in line)

    def _wait(self, condition, what: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if condition():
                    return
            except redis.RedisError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"private Redis Cluster: {what} did not complete in {timeout} s")
            time.sleep(0.05)

    def wait_healthy(self, timeout: float = 20.0) -> None:
        """Every live node says the cluster is ok and every replica has synced with its master."""

        def healthy() -> bool:
            live = [p for p in self.ports if self.processes[p].poll() is None]
            if not all(self._info(p).get("cluster_state") == "ok" for p in live):
                return False
            for port in live:
                with self.node(port) as client:
                    info = client.info("replication")
                if info.get("role") == "slave" and info.get("master_link_status") != "up":
                    return False
            return True

        self._wait(healthy, "cluster_state:ok", timeout)

    def master_ports(self) -> list[int]:
        """The ports of the nodes that are masters now (after a failover, some replicas)."""
        out = []
        for port in self.ports:
            if self.processes[port].poll() is not None:
                continue
            with self.node(port) as client:
                if client.info("replication").get("role") == "master":
                    out.append(port)
        return out

    def kill(self, port: int) -> None:
        """SIGKILL one node (a failover drill)."""
        self.processes[port].kill()
        self.processes[port].wait()

    def flushall(self) -> None:
        for port in self.master_ports():
            with self.node(port) as client:
                client.flushall()

    def client(self, **kwargs) -> redis.cluster.RedisCluster:
        """A cluster client as the store makes one (``store.connect``), whose ``keys`` looks at
        every master (redis-py asks one node), so tests that dump "every key" see every key."""
        return WholeClusterClient(host="127.0.0.1", port=self.ports[0], **kwargs)

    def stop(self) -> None:
        self._stop_processes()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _stop_processes(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def __enter__(self) -> PrivateRedisCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class WholeClusterClient(ClusterClient):
    """The store's cluster client whose ``keys`` asks every master (redis-py asks one node)."""

    def keys(self, pattern="*", **kwargs):
        kwargs.setdefault("target_nodes", self.PRIMARIES)
        return super().keys(pattern, **kwargs)


def client_ids_by_node(client: redis.Redis) -> set[tuple[int | None, int]]:
    """(node port, client id) of every client connection to ``client``'s server(s), replication
    links left out: what a test counts to bound the connections a process holds."""
    if isinstance(client, redis.cluster.RedisCluster):
        found = set()
        for node in client.get_primaries():
            for entry in node.redis_connection.client_list():
                if "S" not in entry.get("flags", "") and "M" not in entry.get("flags", ""):
                    found.add((node.port, int(entry["id"])))
        return found
    return {(None, int(entry["id"])) for entry in client.client_list()}
