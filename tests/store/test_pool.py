"""store.pool.LeasingPool: the append's cheap checkout keeps every guarantee of redis-py's bounded
pool (issue 12): the bound, a ready connection (reconnected when Redis closed it, never one with
stray bytes to read), a forked child's own connections; and in the common case it takes the fast
path, not redis-py's ``get_connection``."""

from __future__ import annotations

import os
import queue
import select

import pytest
import redis

from store.games import connect
from store.pool import LeasingPool


@pytest.fixture()
def pool(queue_server):
    # A plain server even on a cluster run: the pool is the single-server client's (a cluster
    # client keeps redis-py's per-node pools).
    client = connect(queue_server.url, max_connections=2, pool_timeout=0.2)
    assert isinstance(client.connection_pool, LeasingPool)
    yield client.connection_pool
    client.close()


def ping(connection) -> bytes:
    connection.send_command("PING")
    return connection.read_response()


def wait_until_readable(connection, seconds: float = 30.0) -> None:
    """Until the connection's socket has bytes (or its end) to read: the reply or the close travels
    through the kernel, and on a loaded machine it may not be there yet when the next line runs."""
    readable, _, _ = select.select([connection._sock], [], [], seconds)
    assert readable, f"nothing arrived on the connection within {seconds} s"


def counting_checkouts(pool, monkeypatch) -> list[int]:
    calls: list[int] = []
    original = pool.get_connection

    def get_connection(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(pool, "get_connection", get_connection)
    return calls


def test_redis_py_still_has_what_the_lease_relies_on(pool):
    """The idle connections in a queue holding None for those not made yet, and the owner's pid: if
    an upgrade of redis-py changed them, this fails rather than the lease misbehaving."""
    assert isinstance(pool.pool, queue.LifoQueue) or hasattr(pool.pool, "get_nowait")
    assert pool.pid == os.getpid()
    assert pool.pool.get_nowait() is None  # not made yet
    pool.pool.put_nowait(None)


def test_a_steady_lease_takes_the_fast_path(pool, monkeypatch):
    connection = pool.lease()  # the first is made by redis-py's path
    pool.give_back(connection)
    calls = counting_checkouts(pool, monkeypatch)
    for _ in range(20):
        again = pool.lease()
        assert again is connection
        assert ping(again) == b"PONG"
        pool.give_back(again)
    assert calls == []


def test_the_lease_keeps_the_bound(pool):
    first, second = pool.lease(), pool.lease()
    assert first is not second
    with pytest.raises(redis.ConnectionError, match="No connection available"):
        pool.lease()  # waits pool_timeout, as redis-py's checkout would
    pool.give_back(first)
    assert pool.lease() is first
    assert len(pool._connections) == 2


def test_a_connection_redis_closed_is_reconnected(pool, queue_server):
    connection = pool.lease()
    ping(connection)
    connection.send_command("CLIENT", "ID")
    client_id = connection.read_response()
    pool.give_back(connection)
    admin = queue_server.client()
    try:
        assert admin.client_kill_filter(_id=client_id) == 1
    finally:
        admin.close()
    wait_until_readable(connection)
    again = pool.lease()
    assert ping(again) == b"PONG"
    again.send_command("CLIENT", "ID")
    assert again.read_response() != client_id
    pool.give_back(again)


def test_a_connection_with_bytes_to_read_is_never_handed_out(pool, monkeypatch):
    """A reply nobody read (here: a PING sent, its PONG left on the socket) must not be taken for
    the next command's answer: the lease hands the connection to redis-py's path, which replaces it."""
    connection = pool.lease()
    connection.send_command("PING")
    wait_until_readable(connection)
    pool.give_back(connection)
    calls = counting_checkouts(pool, monkeypatch)
    again = pool.lease()
    assert calls == [1]
    again.send_command("ECHO", "mine")
    assert again.read_response() == b"mine"
    pool.give_back(again)


def test_a_forked_child_leases_its_own_connections(pool):
    parent = pool.lease()
    ping(parent)
    pool.give_back(parent)
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through its exit status
        status = 1
        try:
            connection = pool.lease()
            ok = connection is not parent and connection.pid == os.getpid() and ping(connection) == b"PONG"
            pool.give_back(connection)
            status = 0 if ok else 2
        finally:
            os._exit(status)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    again = pool.lease()
    assert again is parent and ping(again) == b"PONG"
    pool.give_back(again)
