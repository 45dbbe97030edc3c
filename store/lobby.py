"""The live lobby: one Redis stream of what a player looking for a game may join, as it changes.

``lobby:events`` (a stream, capped at about :data:`LOBBY_LENGTH` entries) holds entries
``{t: kind, c: change, id, d: JSON}``: ``kind`` game, challenge or seek, ``change`` added, changed
or gone. Its entry ids are what ``Last-Event-ID`` resumes from (``GET /v1/lobby/stream``). Written
by follow-ups (at least once: an entry may repeat after a crash, and says how things stand).
One key, so one Cluster slot: the lobby is one stream, and its writes are a few per game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson
import redis

LOBBY = "lobby:events"
LOBBY_LENGTH = 2000


@dataclass(frozen=True)
class LobbyEntry:
    id: str
    kind: str
    change: str
    subject: str
    data: dict[str, Any] | None


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class LobbyStore:
    def __init__(self, client: redis.Redis):
        self.redis = client

    def publish(self, kind: str, subject: str, change: str, data: Mapping[str, Any] | None) -> str:
        fields = {"t": kind, "c": change, "id": subject, "d": orjson.dumps(dict(data) if data else None)}
        return _text(self.redis.xadd(LOBBY, fields, maxlen=LOBBY_LENGTH, approximate=True))

    def after(self, last: str | None, count: int = 100) -> list[LobbyEntry]:
        low = f"({last}" if last else "-"
        rows = self.redis.xrange(LOBBY, low, "+", count=count)
        entries = []
        for entry_id, fields in rows:
            f = {_text(k): v for k, v in fields.items()}
            entries.append(
                LobbyEntry(
                    _text(entry_id), _text(f["t"]), _text(f["c"]), _text(f["id"]), orjson.loads(f["d"])
                )
            )
        return entries

    def last_id(self) -> str:
        rows = self.redis.xrevrange(LOBBY, "+", "-", count=1)
        return _text(rows[0][0]) if rows else "0-0"

    def oldest_id(self) -> str | None:
        rows = self.redis.xrange(LOBBY, "-", "+", count=1)
        return _text(rows[0][0]) if rows else None
