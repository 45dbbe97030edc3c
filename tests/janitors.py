"""A janitor on a test's game service (the product builds it from ``service.composition.build``)."""

from __future__ import annotations

from service import GameService
from service.challenges import ChallengeService
from service.compaction import Compaction
from service.jobs import JobService
from service.seeks import SeekService
from worker.janitor import Janitor


def janitor_for(service: GameService) -> Janitor:
    """A janitor sweeping with ``service`` (its follow-up handlers are the ones the janitor runs)."""
    return Janitor(
        service,
        JobService(service.store),
        Compaction(service.store),
        ChallengeService(service),
        SeekService(service),
    )
