from __future__ import annotations

import pytest

from service import GameService, followups


@pytest.fixture(autouse=True)
def handlers():
    """The follow-up handlers of the web process and workers, in the test process too."""
    followups.connect_receivers()
    yield
    followups.disconnect_receivers()


@pytest.fixture()
def service(redis_client, redis_server, queue_server):
    svc = GameService.from_url(redis_server.url, queue_url=queue_server.url)
    yield svc
    svc.store.redis.close()
