"""Replays and chapter indexes of finished games, computed once and kept.

A finished game never changes, so what ``/replay`` and ``/battles`` compute from its log (a fold of
up to the whole log) is the same for every request and every viewer: the first request computes it,
later ones read it here. One hash per game, in the game's slot (``game:{g:<id>}:replays``; field =
what was computed: ``battles``, ``replay:<version>``, ``replay:last``), expiring
``TTL_SECONDS`` after its last write so games nobody replays cost nothing.
"""

from __future__ import annotations

import redis

TTL_SECONDS = 7 * 24 * 3600


def replays_key(game_id: str) -> str:
    return f"game:{{g:{game_id}}}:replays"


class ReplayCache:
    def __init__(self, client: redis.Redis):
        self.redis = client

    def get(self, game_id: str, field: str) -> bytes | None:
        value = self.redis.hget(replays_key(game_id), field)
        return bytes(value) if value is not None else None

    def put(self, game_id: str, field: str, body: bytes) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(replays_key(game_id), field, body)
        pipe.expire(replays_key(game_id), TTL_SECONDS)
        pipe.execute()
