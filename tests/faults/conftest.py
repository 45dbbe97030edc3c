from __future__ import annotations

import pytest

from service import composition


@pytest.fixture()
def service(redis_client, redis_server, queue_server):
    # With every follow-up handler of the web process and workers (receivers: the default).
    svc = composition.game_service_at(redis_server.url, queue_url=queue_server.url)
    yield svc
    svc.store.redis.close()
