"""Compaction of finished games: once archived and verified, a game's log becomes one compressed
value (``store.compact``) and what a finished game no longer needs goes.

When. The ``archive`` follow-up action (``service.followups``) schedules every finished game
(``CompactionQueue``), ``COMPACT_DELAY_MS`` (default 60 s) after it finished: long enough for the
live listeners of every web process to have read the last events from the stream (a listener that
had not would wait for events that are no longer in a stream; readers of a finished game read the
compact value) and for clients to retry their last moves against the full idempotency records.
The janitor (``worker.janitor``) compacts the games that are due (:meth:`Compaction.run_due`).

Crash safety. Compacting a game is idempotent: it reads the stream, verifies it (the rules and the
snapshot, ``replays.core.verify``), and runs one script that writes the compact value and deletes
the stream, snapshot and configuration atomically. A process killed anywhere leaves the game in the
queue (it is removed after the script), leased for ``LEASE_MS``, and the next run finishes it; a
game already compacted is only removed from the queue. A game whose log does not verify is never
compacted (it keeps its stream for an operator; logged).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field

from games import get_game
from replays import core
from store import GameStore, parts, timestamps
from store.outbox import now_ms

log = logging.getLogger(__name__)

LEASE_MS = 30_000


def delay_ms() -> int:
    """How long after its end a finished game is compacted (``COMPACT_DELAY_MS``)."""
    return int(os.environ.get("COMPACT_DELAY_MS") or 60_000)


@dataclass
class CompactionReport:
    compacted: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # their logs do not verify: kept as streams
    left: list[str] = field(default_factory=list)  # to be tried again (not archived yet...)


class Compaction:
    def __init__(self, store: GameStore):
        self.store = store
        self.queue = parts.compaction_queue(store)
        self.compactor = parts.compactor(store)
        self.archive = parts.archive(store)

    def schedule(self, game_id: str, finished: str | None) -> None:
        """Compact ``game_id`` (finished at ``finished``, ISO) once its delay is over."""
        at = timestamps.to_ms(finished) if finished else now_ms()
        self.queue.schedule(game_id, at + delay_ms())

    def run_due(self, limit: int = 100) -> CompactionReport:
        """Compact the games that are due (each leased while it is compacted)."""
        report = CompactionReport()
        for game_id in self.queue.take_due(now_ms(), LEASE_MS, limit):
            try:
                outcome = self.compact(game_id)
            except Exception:  # noqa: BLE001 - left leased: tried again when the lease runs out
                log.exception("compaction of %s failed", game_id)
                report.left.append(game_id)
                continue
            if outcome == "left":
                report.left.append(game_id)
                continue
            (report.refused if outcome == "refused" else report.compacted).append(game_id)
            self.queue.done(game_id)
        return report

    def compact(self, game_id: str) -> str:
        """Compact one finished game now: ``compacted`` (now or before), ``gone`` (no such game, or
        not finished), ``refused`` (its log does not verify), or ``left`` (try again later)."""
        found = parts.load_log(self.store, game_id)
        if found is None or not found.finished:
            return "gone"
        if found.meta.get("compacted"):
            self.compactor.compact(game_id, found.name, found.events)  # removes any leftover
            return "compacted"
        rated = (found.result or {}).get("rated") is not False
        if rated and self.archive.record(game_id) is None:
            return "left"  # the archive follow-up comes first: its entry needs the meta only
        report = core.verify(get_game(found.name), found.events, found.snapshot)
        if (
            not report["ok"]
            or found.snapshot is None
            # A finished game's snapshot is written with its last change: its fold is checked whole.
            or int(found.snapshot["version"]) != found.version
            or int(found.meta.get("version") or 0) != found.version
        ):
            log.error("not compacting %s: its log does not verify: %s", game_id, report)
            return "refused"
        outcome = self.compactor.compact(game_id, found.name, found.events)
        if outcome in ("ok", "already"):
            return "compacted"
        return "left"  # stale: read again next time
