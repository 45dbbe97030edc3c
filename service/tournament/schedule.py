"""A tournament's start time: parsed when it is created, and the start the workers make at it.

A tournament created with ``starts_at`` records, with its record in one script, its follow-up
``s`` due at that time (``store.tournaments``); the janitor's sweep runs it then, as any follow-up
(``service.tournament.runner.advance`` hands an open tournament here). At the start time round 1
is paired from the entrants and recorded only if they are still those it paired and only as round
1 (``RECORD_ROUND``): a run twice, or one racing the organiser's own start, starts it once. A run
that comes early (clocks apart) puts the follow-up back to the start time.

Too few entrants at the start time to fill a table: the tournament stays open (its organiser may
still start it by hand) until a change of its entrants makes it startable. Every join (an account's,
or a server bot the organiser adds) or withdrawal of an open tournament with a start time that
leaves at least the game's smallest table of active entrants records the start follow-up again, in
the join's own script (``store.tournaments.TimedStart``), under a value of its own (``s<token>``):
a sweep that ran an older value and found too few acknowledges only that one, and whatever run of
the new value reads the entrants reads them with this join. Before the start time it is due then;
after it, at once, and the request runs it in-line (the janitor's sweep if that process dies). It
starts round 1 as above, once; entrants that still do not split into the game's tables (5 at tables
of 3 or 4) leave it open for the next change.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from service.faults import fault_point
from service.tournament import rounds
from service.tournament.errors import InvalidStartTime, StartTimePassed, TableSizeNotAllowed
from store.tournaments import StoredTournament, TimedStart, TournamentStore

FURTHEST = timedelta(days=366)  # a start more than a year ahead is a mistake, not a plan


def parse_start(value: Any, now_ms: int) -> tuple[str, int] | None:
    """``starts_at`` as given (an ISO 8601 date and time with its offset, or None for a manual
    start) -> (the time in UTC as ``2026-12-06T16:00:00Z``, ms), or a 422 refusal:
    ``INVALID_START_TIME`` (unparsable, no offset, more than a year ahead), ``START_TIME_PASSED``."""
    if value is None or value == "":
        return None
    try:
        when = datetime.fromisoformat(str(value))
    except ValueError:
        raise InvalidStartTime(f"starts_at {value!r}: a date and time such as 2026-12-06T16:00:00Z") from None
    if when.tzinfo is None:
        raise InvalidStartTime("starts_at needs its offset from UTC (Z, or +01:00)")
    ms = int(when.timestamp() * 1000)
    if ms <= now_ms:
        raise StartTimePassed(f"starts_at {value!r} has passed")
    if ms - now_ms > FURTHEST.total_seconds() * 1000:
        raise InvalidStartTime("starts_at: at most a year ahead")
    text = datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return text, ms


def start_ms(settings: Mapping[str, Any]) -> int | None:
    text = settings.get("starts_at")
    return int(datetime.fromisoformat(text).timestamp() * 1000) if text else None


def timed_start(found: StoredTournament, now_ms: int, grace_ms: int) -> TimedStart | None:
    """What a join or withdrawal of ``found`` records with it (the module's docstring), or None
    (no start time, or not open: a running tournament's late entry starts nothing)."""
    settings = rounds.settings_of(found)
    at = start_ms(settings)
    if at is None or found.record["status"] != "open":
        return None
    return TimedStart(int(settings["min_size"]), f"s{secrets.token_hex(4)}", max(grace_ms, at - now_ms))


def start_when_due(store: TournamentStore, found: StoredTournament, now_ms: int) -> str:
    """The start an open tournament's follow-up makes: ``manual`` (no start time), ``early``
    (not yet: the caller puts the follow-up back), ``waiting`` (too few entrants: it stays open
    for the organiser), ``changed`` (an entrant came or went while pairing: pair again), or the
    store's outcome of recording round 1 (``recorded``, ``recorded_before``...)."""
    at = start_ms(rounds.settings_of(found))
    if at is None:
        return "manual"
    if now_ms < at:
        return "early"
    try:
        first = rounds.next_round(found, 1)
    except TableSizeNotAllowed:
        return "waiting"
    outcome = store.record_round(found.id, 1, first, found.record["version"], "running")
    fault_point("after_tournament_timed_start")  # tests/faults: recorded, no table made yet
    return outcome
