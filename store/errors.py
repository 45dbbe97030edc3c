"""Store-level errors: callers (the API's error handlers, the live listener) tell store trouble apart
without knowing which client library the store uses."""

from __future__ import annotations

import redis

# Any failure of a store call.
StoreError: type[Exception] = redis.RedisError

# The store cannot be reached right now (refused or lost connection, timeout): the operation may or
# may not have been applied, and a retry later may succeed. Not a bug of ours: the API answers 503.
# On a Redis Cluster, a failover in progress answers CLUSTERDOWN / TRYAGAIN, or leaves a slot without
# a master for a moment (redis-py retries a few times first): the same 503, the same retry.
STORE_UNAVAILABLE: tuple[type[Exception], ...] = (
    redis.ConnectionError,
    redis.TimeoutError,
    redis.exceptions.ClusterDownError,
    redis.exceptions.TryAgainError,
    redis.exceptions.SlotNotCoveredError,
)


class NotReplicated(redis.TimeoutError):  # type: ignore[misc]  # redis-py is untyped here
    """``REDIS_WAIT_REPLICAS``: a change was applied on its master but fewer replicas than asked
    acknowledged it within ``REDIS_WAIT_TIMEOUT_MS``. A 503 like any store outage: the change may
    survive or be lost in a failover, and a retry with the same idempotency key gets its answer."""
