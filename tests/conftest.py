from __future__ import annotations

import pytest

from tests.redis_server import PrivateRedis


@pytest.fixture(scope="session")
def redis_server():
    """One private redis-server for the whole test session (never the machine's default port)."""
    server = PrivateRedis()
    yield server
    server.stop()


@pytest.fixture()
def redis_client(redis_server):
    """A client on a freshly emptied database of the private server."""
    client = redis_server.client()
    client.flushall()
    yield client
    client.close()
