"""Measuring what the store costs Redis: round trips on the wire and server-side command counts.

* :func:`count_round_trips` counts every packet of commands a process sends to one Redis server
  (one per round trip: a pipeline or a script call is one), with the command names in it;
* :func:`command_calls` / :func:`calls_delta` read ``INFO commandstats`` (which also counts the
  commands a Lua script runs inside Redis).
Used by tests (an accepted move is exactly one round trip); it patches redis-py while counting, so it
lives in tests/, not in the store.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import redis
import redis.cluster
from redis.connection import AbstractConnection

_COMMAND_NAME = re.compile(rb"\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n")


@dataclass
class RoundTrips:
    count: int = 0
    commands: list[list[str]] = field(default_factory=list)  # names sent in each round trip
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def names(self) -> list[str]:
        return [name for trip in self.commands for name in trip]


@contextmanager
def count_round_trips(client: redis.Redis) -> Iterator[RoundTrips]:
    """Count round trips from this process to ``client``'s server (every node of a cluster) while
    the block runs. On a cluster, commands a pipeline sends to two nodes are two round trips (sent
    one after the other, answered in parallel)."""
    counter = RoundTrips()
    original = AbstractConnection.send_packed_command
    targets = _addresses(client)

    def counting(self, command, check_health=True):
        if (getattr(self, "host", None), getattr(self, "port", None)) in targets:
            packed = (
                command.encode()
                if isinstance(command, str)
                else b"".join(
                    c if isinstance(c, (bytes, bytearray, memoryview)) else str(c).encode() for c in command
                )
            )
            names = [m.group(1).decode().upper() for m in _COMMAND_NAME.finditer(bytes(packed))]
            with counter._lock:
                counter.count += 1
                counter.commands.append(names)
        return original(self, command, check_health)

    AbstractConnection.send_packed_command = counting
    try:
        yield counter
    finally:
        AbstractConnection.send_packed_command = original


def _addresses(client: redis.Redis) -> set[tuple[str | None, int | None]]:
    if isinstance(client, redis.cluster.RedisCluster):
        return {(node.host, node.port) for node in client.get_nodes()}
    kwargs = client.connection_pool.connection_kwargs
    return {(kwargs.get("host"), kwargs.get("port"))}


def command_calls(client: redis.Redis) -> dict[str, int]:
    """Calls per command since the server started (``INFO commandstats``), e.g. {"evalsha": 3};
    on a cluster, summed over the masters."""
    if isinstance(client, redis.cluster.RedisCluster):
        per_node = client.info("commandstats", target_nodes=redis.cluster.RedisCluster.PRIMARIES)
        if per_node and not isinstance(next(iter(per_node.values())), dict):
            per_node = {"one": per_node}  # a single master answers without the per-node level
        total: dict[str, int] = {}
        for stats in per_node.values():
            for name, value in stats.items():
                key = name.removeprefix("cmdstat_")
                total[key] = total.get(key, 0) + int(value["calls"])
        return total
    stats = client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(value["calls"]) for name, value in stats.items()}


def calls_delta(
    before: dict[str, int], after: dict[str, int], ignore: tuple[str, ...] = ("info",)
) -> dict[str, int]:
    """Commands run between two :func:`command_calls` snapshots (the INFO calls themselves ignored)."""
    delta = {}
    for name, calls in after.items():
        diff = calls - before.get(name, 0)
        if diff and name not in ignore:
            delta[name] = diff
    return delta
