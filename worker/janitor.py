"""The janitor: finishes what dead processes left. ``python -m worker.janitor`` (the Procfile's
``janitor``); several may run (each game's work is leased), one is enough.

Every ``JANITOR_INTERVAL`` seconds (default 1):

1. **follow-up work** (slots hinted by the writers, and every ``JANITOR_FULL_SCAN`` seconds (30)
   all 16384 due sets; ``service.followups``): the games whose outbox still holds actions after their
   grace period (the process that made the change died, or an action failed) get them run again;
   a bot turn left waiting gets a fresh job (``service.bot_turns.bot_followup``);
2. **lost dequeues**: jobs a worker took from a queue and died before starting go back on it;
3. **dead runs**: a started job whose own heartbeat (``service.jobs.ALIVE_SECONDS``, 10 s) expired
   (its worker died mid-job) is handed back to RQ at once, retried or failed by RQ's own rules;
4. **abandoned jobs**: RQ's own handling of jobs whose worker stopped heart-beating (60-90 s: the
   backstop for jobs started by a worker that beats no heartbeat of ours);
5. **job records** (``store.jobs``) are reconciled with RQ (``service.jobs.JobService.reconcile``),
   and the notices of finished jobs whose worker died before sending them are sent
   (``JobService.announce_due``: ``verified``, ``export_ready`` to the accounts that asked);
6. **compaction**: finished games whose delay is over get their compact form (``service.compaction``);
7. **account deletions** a dead process left half done are finished (``service.account_deletion``);
8. **challenges** past their time expire (``service.challenges``);
9. **quick pairing**: the matcher's pass over the seeks (``service.seeks``), and the bot ladder's
   (``service.ladder``: finished ladder games tallied, free bot accounts online paired);
10. **the analytical store's compaction** and rollups, once per ``FACTS_COMPACT_SECONDS`` (3600)
    across every machine (``service.facts.scheduled_compaction``: a lease in Redis).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import time
from typing import Any

from service import GameService, account_deletion, bot_turns, composition, facts, jobs
from service.challenges import ChallengeService
from service.compaction import Compaction
from service.ladder import LadderService
from service.seeks import SeekService

log = logging.getLogger("worker.janitor")

INTERVAL_SECONDS = float(os.environ.get("JANITOR_INTERVAL") or 1.0)
# A game taken by a sweep comes back after this long if work is still left (a bot turn not played).
LEASE_MS = int(os.environ.get("JANITOR_LEASE_MS") or 1500)
FULL_SCAN_SECONDS = float(os.environ.get("JANITOR_FULL_SCAN") or 30.0)
HOLDER = f"{socket.gethostname()}:{os.getpid()}"


class Janitor:
    def __init__(
        self,
        service: GameService,
        jobs: jobs.JobService,
        compaction: Compaction,
        challenges: ChallengeService,
        seeks: SeekService,
        ladder: LadderService | None = None,
    ):
        """The services of ``service.composition.build`` (the game service with every follow-up
        action's handler)."""
        self.service = service
        self.jobs = jobs
        self._seen: dict[tuple[str, str], float] = {}
        self._next_full_scan = 0.0
        self.compaction = compaction
        self.challenges = challenges
        self.seeks = seeks
        self.ladder = ladder

    @classmethod
    def of(cls, services: composition.Services) -> Janitor:
        return cls(
            services.games,
            services.jobs,
            services.compaction,
            services.challenges,
            services.seeks,
            services.ladder,
        )

    def tick(self) -> dict[str, Any]:
        report: dict[str, Any] = {}
        if time.monotonic() >= self._next_full_scan:
            # The backstop for hints lost between a script and its ZADD (store.outbox).
            report["hinted_slots"] = self.service.followups.outbox.rebuild_hints()
            self._next_full_scan = time.monotonic() + FULL_SCAN_SECONDS
        report["games"] = self.service.followups.sweep(LEASE_MS)
        queues = (*jobs.ALL_QUEUES, bot_turns.QUEUE)
        report["rescued"] = self.jobs.rescue_lost_dequeues(self._seen, queues)
        report["dead_runs"] = self.jobs.recover_dead_runs()
        report["abandoned"] = [jid for queue in queues for jid in self.jobs.requeue_abandoned(queue)]
        report["jobs"] = self.jobs.reconcile()
        report["job_notices"] = self.jobs.announce_due()
        report["compacted"] = self.compaction.run_due().compacted
        report["deleted_accounts"] = account_deletion.finish_deletions(self.service)
        report["challenges_expired"] = self.challenges.expire_due()
        report["paired"] = self.seeks.match()
        if self.ladder is not None:
            report["ladder"] = self.ladder.tick()
        report["facts_compacted"] = facts.scheduled_compaction(self.service.store, facts.fact_store(), HOLDER)
        return report


def main() -> int:
    logging.basicConfig(
        level=os.environ.get("LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s janitor %(levelname)s %(message)s",
    )
    stopping = []

    def stop(signum: int, frame: Any) -> None:
        stopping.append(signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    settings = composition.Settings.from_env(redis_options={"socket_timeout": 10})
    janitor = Janitor.of(composition.build(settings))
    log.info("sweeping every %.1f s", INTERVAL_SECONDS)
    while not stopping:
        started = time.monotonic()
        try:
            report = janitor.tick()
            repaired = any(report["jobs"].values()) or any(report["dead_runs"].values())
            if (
                report["games"]
                or report["rescued"]
                or report["abandoned"]
                or report["compacted"]
                or repaired
                or report["facts_compacted"]
            ):
                log.info("swept: %s", report)
        except Exception:  # noqa: BLE001 - Redis down or a bug: log, and try again next tick
            log.exception("sweep failed")
        time.sleep(max(0.0, INTERVAL_SECONDS - (time.monotonic() - started)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
