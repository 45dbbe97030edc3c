"""What the follow-up work, bot turns, jobs and accounts need of the game service.

They are called by the game service (its follow-ups) and call it back; typing them against
``service.games.GameService`` made the service's modules one import circle. These Protocols are
that need, and this module imports nothing of ``service`` but its leaves, so ``service.games``
may import its collaborators and none of them imports it back. ``GameService`` satisfies each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from service.cache import CachedGame, GameCache
from service.live import LiveHub
from store import GameStore


class FollowUpRunner(Protocol):
    """``service.followups.FollowUps`` as its callers see it."""

    def run(self, game_id: str, recorded: Mapping[str, Any] | None = None) -> Any: ...


class StoreHolder(Protocol):
    """A service on a game store: what the follow-up handlers of the store alone need."""

    @property
    def store(self) -> GameStore: ...


class GameAccess(StoreHolder, Protocol):
    """The game service as bot turns and account deletions use it: read a game (through the
    per-process cache), drop it from the cache, act for a bot seat, hand a seat to the bot, run a
    game's follow-ups."""

    @property
    def cache(self) -> GameCache: ...

    @property
    def followups(self) -> FollowUpRunner: ...

    @property
    def live(self) -> LiveHub: ...

    def viewer_seat(self, game_id: str, token: str | None) -> tuple[int | None, CachedGame]: ...

    def submit_as_seat(
        self,
        game_id: str,
        seat: int,
        command: Mapping[str, Any],
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Any: ...

    def leave_to_bot(self, game_id: str, seat: int) -> bool: ...
