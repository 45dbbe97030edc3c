"""Store-level errors: callers (the API's error handlers, the live listener) tell store trouble apart
without knowing which client library the store uses."""

from __future__ import annotations

import redis

# Any failure of a store call.
StoreError: type[Exception] = redis.RedisError

# The store cannot be reached right now (refused or lost connection, timeout): the operation may or
# may not have been applied, and a retry later may succeed. Not a bug of ours: the API answers 503.
STORE_UNAVAILABLE: tuple[type[Exception], ...] = (redis.ConnectionError, redis.TimeoutError)
