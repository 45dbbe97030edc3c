"""Short-lived passes to a seat: stream tickets (``EventSource`` cannot send a header, so a seat's
stream is opened with a one-use ticket) and device links (a code that moves a seat to another
device). Both are kept as "seat:token hash" under a key that Redis expires, and are taken with
GETDEL, so one pass is used once even when two requests race for it; the token hash lets the
service void a pass whose token was rotated since it was made."""

from __future__ import annotations

import redis

from store.keys import device_link, stream_ticket


class SeatPasses:
    def __init__(self, client: redis.Redis):
        self.redis = client

    def put_stream_ticket(
        self, game_id: str, ticket_hash: str, seat: int, token_hash: str, ttl_seconds: int
    ) -> None:
        self._put(stream_ticket(game_id, ticket_hash), seat, token_hash, ttl_seconds)

    def take_stream_ticket(self, game_id: str, ticket_hash: str) -> tuple[int, str] | None:
        """The ticket's seat and token hash; ``None`` when unknown, expired or already used (or
        kept in the old form, a seat alone: such a ticket names no token, and lives 30 s)."""
        return self._take(stream_ticket(game_id, ticket_hash))

    def put_device_link(
        self, game_id: str, code_hash: str, seat: int, token_hash: str, ttl_seconds: int
    ) -> None:
        self._put(device_link(game_id, code_hash), seat, token_hash, ttl_seconds)

    def take_device_link(self, game_id: str, code_hash: str) -> tuple[int, str] | None:
        """The link's seat and token hash; ``None`` when unknown, expired or already used."""
        return self._take(device_link(game_id, code_hash))

    def _put(self, key: str, seat: int, token_hash: str, ttl_seconds: int) -> None:
        self.redis.set(key, f"{seat}:{token_hash}", ex=ttl_seconds)

    def _take(self, key: str) -> tuple[int, str] | None:
        raw = self.redis.getdel(key)
        if raw is None:
            return None
        seat, _, token_hash = (raw.decode() if isinstance(raw, bytes) else raw).partition(":")
        if not token_hash:
            return None
        return int(seat), token_hash
