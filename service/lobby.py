"""The live lobby: one stream of the open games, open challenges and seeks, as they come and go.

``GET /v1/lobby/stream`` (Server-Sent Events) sends ``event: lobby`` first (everything open now, no
id), then each change of the lobby's Redis stream (``store.lobby``) as ``event: game``,
``challenge`` or ``seek`` with ``{change: added|changed|gone, id, data}`` and the entry's id, which
``Last-Event-ID`` resumes after. A client resuming from an id the stream no longer keeps (it keeps
about 2,000 changes) gets ``event: lobby`` again, as a fresh one does. An open game is added when
created, changed when a seat is claimed or left (its free seats), and gone when it starts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from service.challenges import ChallengeService
from service.games import GameService
from service.live import FeedSubscription
from service.seeks import SeekService
from store import parts
from store.lobby import LOBBY

OPEN_GAMES_SHOWN = 100


class LobbyService:
    def __init__(self, games: GameService, challenges: ChallengeService, seeks: SeekService):
        self.games = games
        self.challenges = challenges
        self.seeks = seeks
        self.store = parts.lobby(games.store)

    def snapshot(self) -> dict[str, Any]:
        games, _ = self.games.list_games(status="open", limit=OPEN_GAMES_SHOWN)
        shown = []
        for summary in games:
            shown.append(
                {
                    "id": summary["id"],
                    "game": summary["game"],
                    "title": summary["title"],
                    "seat_count": summary["seat_count"],
                    "free_seats": [s["seat"] for s in summary["seats"] if not s["claimed"]],
                    "created": summary["created"],
                }
            )
        return {
            "games": shown,
            "challenges": self.challenges.open_challenges(),
            "seeks": self.seeks.open_seeks(),
        }

    def follow(self) -> FeedSubscription:
        return self.games.live.follow_feed(LOBBY, self.store.last_id)

    def stream(
        self,
        after: str | None,
        heartbeat: float,
        feed: FeedSubscription,
        gone: Callable[[], bool] = lambda: False,
        poll_seconds: float = 15.0,
    ) -> Iterator[tuple[str, str | None, bytes] | None]:
        """``(event, id, data)`` items, ``None`` for a heartbeat, until the client is gone."""
        oldest = self.store.oldest_id()
        if after is None or (oldest is not None and _older(after, oldest)):
            last = self.store.last_id()  # read before the snapshot: a change in between is sent
            yield "lobby", None, orjson.dumps(self.snapshot())
        else:
            last = after
        beat = time.monotonic() + heartbeat
        while not gone():
            entries = self.store.after(last)
            for entry in entries:
                last = entry.id
                body = {"change": entry.change, "id": entry.subject, "data": entry.data}
                yield entry.kind, entry.id, orjson.dumps(body)
            if entries:
                continue
            feed.wait(max(0.0, min(poll_seconds, beat - time.monotonic())))
            if time.monotonic() >= beat:
                beat = time.monotonic() + heartbeat
                yield None


def _older(entry_id: str, than: str) -> bool:
    a, _, b = entry_id.partition("-")
    c, _, d = than.partition("-")
    return (int(a), int(b or 0)) < (int(c), int(d or 0))
