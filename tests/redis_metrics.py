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
    """Count round trips from this process to ``client``'s server while the block runs."""
    kwargs = client.connection_pool.connection_kwargs
    target = (kwargs.get("host"), kwargs.get("port"))
    counter = RoundTrips()
    original = AbstractConnection.send_packed_command

    def counting(self, command, check_health=True):
        if (getattr(self, "host", None), getattr(self, "port", None)) == target:
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


def command_calls(client: redis.Redis) -> dict[str, int]:
    """Calls per command since the server started (``INFO commandstats``), e.g. {"evalsha": 3}."""
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
