"""The event store a worker's jobs work on.

RQ hands each job the connection of the Redis it took the job from: RQ's Redis (``RQ_REDIS_URL``).
The games may live elsewhere: the store's ``REDIS_URL`` (a plain server or a Redis Cluster, which RQ
cannot use), given to ``python -m worker --url`` (:func:`configure`) or found in the environment.
With neither, the queue's Redis holds the games too (one plain Redis for everything)."""

from __future__ import annotations

import os
from typing import Any

from store import GameStore
from store.connections import worker_store

_configured: list[str] = []


def configure(store_url: str) -> None:
    """Name the event store this worker process's jobs work on (``python -m worker --url``)."""
    _configured[:] = [store_url]


def store_for(queue: Any) -> GameStore:
    """The store of a job RQ took from ``queue`` (its connection): see the module docstring."""
    url = (_configured[0] if _configured else None) or os.environ.get("REDIS_URL")
    return worker_store(queue, url)
