"""Fixtures shared by the bots tests."""

from __future__ import annotations

import pytest

from tests.bots.live import LiveServer


@pytest.fixture(scope="module")
def live(redis_server):
    """A live API server (werkzeug thread) with an RQ worker on the bots and default queues, one per
    test module, on a flushed private Redis."""
    redis_server.client().flushall()
    server = LiveServer(redis_server.url)
    yield server
    server.stop()
