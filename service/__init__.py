"""Application logic (no Flask): the API and the workers call :class:`GameService`."""

from games.base import public_config
from service.errors import ServiceError
from service.games import (
    ClaimOutcome,
    EventsPage,
    GameService,
    GameView,
    MoveOutcome,
    hash_token,
    new_token,
)
from service.signals import events_appended

__all__ = [
    "ClaimOutcome",
    "EventsPage",
    "GameService",
    "GameView",
    "MoveOutcome",
    "ServiceError",
    "events_appended",
    "hash_token",
    "new_token",
    "public_config",
]
