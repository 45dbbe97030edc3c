"""Stored analyses of finished games (``replays/analysis.py`` computes them): one string per game,
under the game's hash tag, holding the compact analysis with the revision it was made under
(``<revision label>\\n<bytes>``), and the hourly request counters of the accounts that ask.

A stored analysis is written in one SET, so a worker killed while it computes leaves nothing (the
job is redone, ``service.jobs``) and never half an analysis; a reader finds the whole value or none.
It has no expiry: a finished game's analysis is worth keeping, and it is small.
"""

from __future__ import annotations

import redis

from store.keys import game_keys

HOUR_SECONDS = 3600
STORED_COUNT_KEY = "analysis-stored-count"


def _key(game_id: str) -> str:
    return game_keys(game_id).meta.replace(":meta", ":analysis")


def _requests_key(account_id: str, hour: int) -> str:
    return f"analysis-requests:{account_id}:{hour}"


class AnalysisStore:
    def __init__(self, client: redis.Redis):
        self._redis = client

    def get(self, game_id: str, revision: str) -> bytes | None:
        """The stored analysis of ``game_id`` made under ``revision``; None when there is none or
        it was made under another (the caller redoes it)."""
        raw = self._redis.get(_key(game_id))
        if raw is None:
            return None
        label, _, data = bytes(raw).partition(b"\n")
        return data if label.decode() == revision else None

    def revisions(self, game_ids: list[str]) -> list[str | None]:
        """The revision each game's stored analysis was made under (None: none stored), read in
        one round trip per slot group without the analyses themselves (the idle scan's test)."""
        pipe = self._redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.getrange(_key(game_id), 0, 63)
        found: list[str | None] = []
        for raw in pipe.execute():
            label, newline, _ = bytes(raw or b"").partition(b"\n")
            found.append(label.decode() if newline else None)
        return found

    def put(self, game_id: str, revision: str, data: bytes) -> None:
        self._redis.set(_key(game_id), revision.encode() + b"\n" + data)
        # After the analysis: a job result that carries analyses (the observation export) is made
        # afresh once this grows; a crash between the two leaves one result stale until the next.
        self._redis.incr(STORED_COUNT_KEY)

    def stored_count(self) -> int:
        """How many analyses have been stored, ever (the data version of what carries them)."""
        return int(self._redis.get(STORED_COUNT_KEY) or 0)

    def size(self, game_id: str) -> int:
        return int(self._redis.strlen(_key(game_id)))

    def count_request(self, account_id: str, hour: int) -> int:
        """This account's requests in ``hour`` (hours since the epoch), this one included."""
        key = _requests_key(account_id, hour)
        pipe = self._redis.pipeline(transaction=True)
        pipe.incr(key)
        pipe.expire(key, 2 * HOUR_SECONDS)
        count, _ = pipe.execute()
        return int(count)

    def uncount_request(self, account_id: str, hour: int) -> None:
        """Give back a counted request that was refused for another reason (nothing was started)."""
        self._redis.decr(_requests_key(account_id, hour))
