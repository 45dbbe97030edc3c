"""Reaching Redis: a client for a URL (a plain server, or a Redis Cluster with ``redis+cluster://``)
with a bounded pool, and the one store an RQ job works on per process."""

from __future__ import annotations

import threading
from typing import Any

import redis

from store.games import GameStore
from store.redis_adapter import ClusterClient

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def is_cluster_url(url: str) -> bool:
    return url.split("://", 1)[0] in CLUSTER_SCHEMES


def connect(
    url: str, max_connections: int | None = None, pool_timeout: float = 20.0, **kwargs: Any
) -> redis.Redis:
    """A client for ``url`` (redis-py picks the hiredis parser when it is installed).

    ``max_connections`` bounds the pool (per node on a cluster): a caller beyond it waits up to
    ``pool_timeout`` seconds for a connection to come back instead of opening one more. Under gevent
    an unbounded pool grows to the number of greenlets that ever waited on Redis at once (one per
    open stream), and redis-py never closes idle connections.

    ``redis+cluster://host:port`` (or ``rediss+cluster://``) names any node of a Redis Cluster: the
    client is then redis-py's ``RedisCluster``, which learns the slot map from that node and routes
    each command to the master of its key's slot. Every key of one game shares the hash tag
    ``{g:<id>}``, so each script and each transaction of the store stays within one slot.
    """
    scheme, _, rest = url.partition("://")
    if scheme in CLUSTER_SCHEMES:
        if max_connections is not None:
            # Per node, and blocking as on a single server: a caller beyond the bound waits for a
            # connection instead of failing with "Too many connections" (a 503 under contention).
            kwargs.update(
                max_connections=max_connections,
                connection_pool_class=redis.BlockingConnectionPool,
                timeout=pool_timeout,
            )
        return ClusterClient.from_url(f"{CLUSTER_SCHEMES[scheme]}://{rest}", **kwargs)
    if max_connections is not None:
        pool = redis.BlockingConnectionPool.from_url(
            url, max_connections=max_connections, timeout=pool_timeout, **kwargs
        )
        client = redis.Redis(connection_pool=pool)
        client.auto_close_connection_pool = True
        return client
    return redis.Redis.from_url(url, **kwargs)


_worker_stores: dict[tuple[str, int], GameStore] = {}
_worker_stores_lock = threading.Lock()


def worker_store(queue: redis.Redis, store_url: str | None) -> GameStore:
    """The store an RQ job works on, one per process and queue connection: the games at
    ``store_url`` (``REDIS_URL``: a plain server or a cluster), or on ``queue`` itself (RQ's Redis,
    the connection the job came from) when none is named; its jobs are enqueued on ``queue``."""
    key = (store_url or "", id(queue))
    with _worker_stores_lock:
        store = _worker_stores.get(key)
        if store is None:
            client = connect(store_url, socket_timeout=10) if store_url else queue
            store = _worker_stores[key] = GameStore(client, queue=queue)
        return store
