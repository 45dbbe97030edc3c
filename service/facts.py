"""The analytical store's writer: each archived game's facts (``replays.facts``) appended to the
Parquet files of ``store.facts``, through the crash-safe follow-ups, and rebuilt from the logs.

A finished game's ``facts`` follow-up action (``service.followups``; not in web processes, whose
games' facts the janitor writes after the grace period) runs after its ``archive`` action: it
waits (stays pending) until the game is in the archive, so the ratings at the start are known,
then writes the game's files unless they are there. A process killed at any instant leaves
the action pending; the retry writes the same bytes again (``store.facts``), so no game is doubled
and none is missing. An imported game is appended by its import job the same way.

``FACTS_DIR`` (default ``$DATA_DIR/facts``, ``./var/facts``) is where the files live;
docs/operations.md. :func:`rebuild` writes the whole store from the archived logs: the same files,
byte for byte, as the incremental appends followed by a compaction (tests/archive/test_facts.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from games import get_game
from replays.facts import SeatFact, month_of, rows_of
from service.aggregates import seats_of
from service.faults import fault_point
from service.ports import StoreHolder
from service.ratings import ratings_before
from service.summaries import summary_of
from store import GameStore, parts
from store.archive import Archive, finished_ms
from store.facts import FactStore
from store.game_logs import GameLog


def facts_dir() -> Path:
    """Where the analytical store's files are: ``FACTS_DIR``, else ``$DATA_DIR/facts`` (``./var``)."""
    return Path(os.environ.get("FACTS_DIR") or Path(os.environ.get("DATA_DIR") or "var") / "facts")


def fact_store() -> FactStore:
    return FactStore(facts_dir())


def seat_facts(archive: Archive, log: GameLog) -> list[SeatFact]:
    """Who held each seat of an archived game, and their ratings when it started."""
    seats = seats_of(log.meta)
    before = ratings_before(archive, log.name, log.game_id) or []
    facts = []
    for seat, name in enumerate(seats.names):
        level = log.meta.get(f"bot:{seat}") if log.meta.get(f"kind:{seat}") == "bot" else None
        rating = before[seat].get("ordinal") if seat < len(before) else None
        facts.append(SeatFact(name, seats.accounts[seat], level or None, rating))
    return facts


def game_rows(archive: Archive, log: GameLog) -> tuple[str, dict[str, list[tuple[Any, ...]]]]:
    """An archived game's month partition and rows."""
    summary = summary_of(log)
    ms = finished_ms(summary["finished"])
    return month_of(ms), rows_of(get_game(log.name), log.events, summary, seat_facts(archive, log), ms)


def append_game(facts: FactStore, archive: Archive, log: GameLog, check: bool = True) -> bool:
    """Write an archived game's facts unless they are in the store (``check``). True: written."""
    month, rows = game_rows(archive, log)
    if check and facts.has(log.name, month, log.game_id):
        facts.touch(log.name)  # a kill may have come between its last file and the stamp
        return False
    facts.append(log.name, month, log.game_id, rows, fault_point)
    return True


def facts_followup(service: StoreHolder, game_id: str, value: str) -> bool:
    """The ``facts`` follow-up action (see the module docstring)."""
    log = parts.load_log(service.store, game_id)
    if log is None or not log.finished or (log.result or {}).get("rated") is False:
        return True  # nothing to count: an aborted game never enters the archive
    archive = parts.archive(service.store)
    if archive.record(game_id) is None:
        return False  # the archive action has not run yet: later
    append_game(fact_store(), archive, log)
    return True


def rebuild(store: GameStore, facts: FactStore, progress: Callable[[int], None] | None = None) -> int:
    """Write the whole store again from the archived logs, oldest first, then compact it. Returns
    how many games. Entering games should be paused meanwhile (one entering during the rebuild may
    be missed; its follow-up, run again, adds it)."""
    archive = parts.archive(store)
    facts.clear()
    count = 0
    for game_id in archive.ids(newest_first=False):
        log = parts.load_log(store, game_id)
        if log is None or not log.finished:
            continue
        append_game(facts, archive, log, check=False)
        count += 1
        if progress is not None:
            progress(count)
    facts.compact()
    return count


COMPACT_EVERY_SECONDS = float(os.environ.get("FACTS_COMPACT_SECONDS") or 3600)


def scheduled_compaction(
    store: GameStore, facts: FactStore, holder: str, every_s: float = COMPACT_EVERY_SECONDS
) -> int | None:
    """The janitor's compaction of the analytical store: run when this process takes the period's
    lease (``store.facts_lease``: one compaction per period across every machine), else None.
    Returns how many partitions were compacted."""
    if not parts.facts_lease(store).claim(holder, int(every_s * 1000)):
        return None
    return facts.compact()
