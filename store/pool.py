"""A bounded Redis connection pool with a cheap checkout for the append's hot path.

redis-py's ``BlockingConnectionPool`` stays the pool: its bound, its blocking wait, its reconnects
and every other command's checkout are unchanged. ``LeasingPool.lease`` only adds a faster way in
for the one command every move sends (``GameStore._evalsha``). Under gevent redis-py's checkout and
release of an idle connection cost 12 us (its deprecation wrapper, ``os.getpid`` twice, per-call
metrics, and the probe that the connection holds no stray data, a ``recv`` through gevent's
socket); ``lease`` and ``give_back`` cost 1.6 us (issue 12: 5% of a web worker's profile at load).

``lease`` takes the same guarantees, and falls back to ``get_connection`` for everything but the
common case: an idle, connected connection of this process, with nothing to read on its socket
(one ``poll`` with a zero timeout, outside gevent's hub: nothing is waited for). A connection not
yet made, one with data or a closed socket waiting, a pool in a forked child, a pool under a
maintenance notification: all take redis-py's own path. Unlike redis-py's probe it does not look
into the parser's buffer for a reply read from the socket but not consumed: none can be there, as
the append reads its one reply whole and disconnects a connection whose reply failed midway (as
redis-py does on its own commands).

What it relies on of redis-py (checked by ``tests/store/test_pool.py``): ``pool`` is a queue of
idle connections with ``get_nowait``/``put_nowait``, holding ``None`` for connections not yet
made; ``pid`` is the process that owns them. Both date from redis-py 3 and hold in 7.
"""

from __future__ import annotations

import os
import select
from queue import Empty
from typing import Any

import redis
from redis.connection import AbstractConnection

try:  # the real poll even where gevent patched select: a zero timeout never waits
    from gevent.monkey import get_original

    _poll = get_original("select", "poll")
except ImportError:  # pragma: no cover - gevent is a dependency; a process without it has the real one
    _poll = select.poll

_POLL_IN = select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP

# The current process's id, kept up to date across forks instead of asking the kernel at each lease.
_pid = os.getpid()


def _after_fork() -> None:
    global _pid
    _pid = os.getpid()


os.register_at_fork(after_in_child=_after_fork)


def _has_input(connection: AbstractConnection) -> bool:
    """Whether the connection's socket has bytes (or an EOF, an error) waiting to be read."""
    poller = _poll()
    poller.register(connection._sock.fileno(), _POLL_IN)
    return bool(poller.poll(0))


class LeasingPool(redis.BlockingConnectionPool):  # type: ignore[misc]  # redis-py is Any here
    """``BlockingConnectionPool`` plus ``lease``/``give_back`` (see the module docstring)."""

    def reset(self) -> None:
        # The connections lent by the fast path, given back the same way. One lent by redis-py's
        # path goes back through ``release``, so its optional metrics (OpenTelemetry, off unless
        # configured) count each checkout once and its return once. Emptied with the pool (a
        # forked child's reset): a connection lent before is then given back through ``release``.
        self._lent: set[AbstractConnection] = set()
        super().reset()

    def lease(self) -> AbstractConnection:
        """An idle connection ready to send a command (``get_connection``'s guarantees); hand it
        back with ``give_back``, which must also be called when the command failed."""
        if self.pid != _pid or getattr(self, "_in_maintenance", False):
            return self.get_connection()
        try:
            connection = self.pool.get_nowait()
        except Empty:  # all in use: wait for one the blocking way
            return self.get_connection()
        if connection is None or connection._sock is None or _has_input(connection):
            # Not made yet, closed, or something to read: redis-py's path connects, reconnects or
            # drops it. LIFO: it takes this very entry back first.
            self.pool.put_nowait(connection)
            return self.get_connection()
        self._lent.add(connection)
        return connection

    def give_back(self, connection: AbstractConnection) -> None:
        """Return a leased connection to the idle ones."""
        if connection not in self._lent or connection.pid != self.pid:
            self._lent.discard(connection)
            self.release(connection)
            return
        self._lent.remove(connection)
        if connection.should_reconnect():  # as release: a maintenance notification asked for it
            connection.disconnect()
        self.pool.put_nowait(connection)


def leasing(pool: Any) -> LeasingPool | None:
    """``pool`` when it leases connections, else None."""
    return pool if isinstance(pool, LeasingPool) else None
