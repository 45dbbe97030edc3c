from __future__ import annotations

import pytest
from rq import SimpleWorker

from api import create_app
from tests.api import toy_game

toy_game.register()


@pytest.fixture()
def app(redis_client, redis_server):
    app = create_app({"REDIS_URL": redis_server.url, "TESTING": True})
    yield app
    app.extensions["game_service"].store.redis.close()


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture()
def run_jobs(queue_client):
    """Run every queued job to completion in this process (an RQ SimpleWorker in burst mode)."""

    def run() -> None:
        SimpleWorker(["default"], connection=queue_client).work(burst=True, logging_level="WARNING")

    return run
