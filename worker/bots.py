"""The ``bots`` queue's job: play every due bot move of a game (``service.bot_turns``)."""

from __future__ import annotations

from typing import Any, cast

from rq import get_current_job
from rq.job import Job

from service import GameService, bot_turns, composition
from worker.stores import store_for

_services: dict[int, GameService] = {}


def _service() -> GameService:
    """One GameService (and its state cache) per store in this process: the games of
    ``worker.stores``, the queue RQ runs the job from (``python -m worker``)."""
    # Run by RQ only (``python -m worker``), so there is always a current job.
    store = store_for(cast(Job, get_current_job()).connection)
    service = _services.get(id(store))
    if service is None or service.store is not store:
        service = _services[id(store)] = composition.game_service_on(store)
    return service


def play_bot_turns(
    game_id: str, version: int | None = None, *, service: GameService | None = None
) -> dict[str, Any]:
    """The job: ``version`` is the version that enqueued it (informational). ``service`` lets a
    caller outside RQ (a test) pass its own."""
    return bot_turns.play_bot_turns(service or _service(), game_id)
