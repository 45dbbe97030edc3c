"""Which machine compacts the analytical store's files (``store.facts``) this period: a lease in
Redis, taken with ``SET NX PX`` and never released but left to expire. That makes it a schedule
as well as a lock: across every janitor on every machine, at most one compaction starts per lease,
and a janitor killed mid-compaction blocks nobody for longer than the lease (its half-done
compaction is safe: ``store.facts``). The file lock in ``store.facts`` still serialises the
operator's command with it on one machine."""

from __future__ import annotations

from typing import Any

KEY = "facts:compaction-lease"


class FactsLease:
    def __init__(self, client: Any):
        self._redis = client

    def claim(self, holder: str, ms: int) -> bool:
        """Take the lease for ``ms`` milliseconds unless someone holds it. True: taken."""
        return bool(self._redis.set(KEY, holder, nx=True, px=ms))

    def holder(self) -> str | None:
        """Who holds the lease now (None: nobody)."""
        found = self._redis.get(KEY)
        return found.decode() if isinstance(found, bytes) else found
