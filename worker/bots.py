"""The ``bots`` queue's job: play every due bot move of a game (``service.bot_turns``)."""

from __future__ import annotations

from typing import Any

from rq import get_current_job

from service import GameService, bot_turns
from store import GameStore

_services: dict[int, GameService] = {}


def _service() -> GameService:
    """One GameService (and its state cache) per RQ connection in this process: the connection RQ
    runs the job with (``store.queues.queue_connection``, opened by ``python -m worker``)."""
    connection = get_current_job().connection
    service = _services.get(id(connection))
    if service is None or service.store.redis is not connection:
        service = _services[id(connection)] = GameService(GameStore(connection))
    return service


def play_bot_turns(
    game_id: str, version: int | None = None, *, service: GameService | None = None
) -> dict[str, Any]:
    """The job: ``version`` is the version that enqueued it (informational). ``service`` lets a
    caller outside RQ (a test) pass its own."""
    return bot_turns.play_bot_turns(service or _service(), game_id)
