"""The API app on the session's private Redis, and a way to run its queued jobs in-process, for the test
directories that drive the HTTP API. A conftest imports the fixtures it wants (pytest finds fixtures by
name in a conftest's namespace); a test module that needs another configuration overrides ``app``
with :func:`make_app`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from rq import SimpleWorker

from api import create_app


def make_app(redis_server: Any, **config: Any) -> Iterator[Flask]:
    """Yield an app on ``redis_server`` with ``config`` added, then close its live reader and its
    Redis connections (a fixture's body: ``yield from make_app(...)``)."""
    app = create_app({"REDIS_URL": redis_server.url, "TESTING": True, **config})
    yield app
    app.extensions["game_service"].live.close()
    app.extensions["game_service"].store.redis.close()


def run_queued_jobs(connection: Any) -> None:
    """Run every job queued on RQ's Redis ``connection`` to completion in this process (an RQ
    SimpleWorker in burst mode), as a worker would."""
    SimpleWorker(["default"], connection=connection).work(burst=True, logging_level="WARNING")


@pytest.fixture()
def app(redis_client, redis_server):
    yield from make_app(redis_server)


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture()
def svc(app):
    return app.extensions["game_service"]


@pytest.fixture()
def run_jobs(queue_client):
    """Run every queued job to completion in this process (an RQ SimpleWorker in burst mode)."""
    return lambda: run_queued_jobs(queue_client)
