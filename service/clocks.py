"""Clocks: a game's time control and each seat's remaining time. Pure functions over plain JSON: the
service computes the next clock state with every change to a game and stores it in the game's
metadata (``clock``) in the same atomic step as the events, so a clock never disagrees with the log.

The engine has no clock. Time is the service's (``time.time()`` in ms when the change is decided);
the enforcer (``worker.clocks``) finds seats past their deadline and submits a timeout, which the
engine folds like a move (``games.base.SeatHooks.timeout``).

Time control (``"clock"`` at creation): ``move_seconds`` for each decision; optionally a per-seat
``bank_seconds`` with ``increment_seconds`` added after each of the seat's own moves. A decision may
take ``move_seconds`` plus what is left of the seat's bank; the time beyond ``move_seconds`` comes out
of the bank. After ``timeouts_to_bot`` timeouts a seat is handed to the bot ``timeout_bot`` (a level
the game offers: random by default, expert for a table that wants the seat played well).

Clock state: ``{"control": {...}, "since": {seat: ms}, "deadlines": {seat: ms}, "banks": [ms] | null,
"timeouts": [n]}``; ``since``/``deadlines`` hold the awaited human seats only (JSON keys are strings).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

MIN_MOVE_SECONDS = 1
MAX_SECONDS = 60 * 24 * 3600  # 60 days: correspondence games
DEFAULT_TIMEOUTS_TO_BOT = 3
TIMEOUT_BOT_LEVEL = "random"


class ClockError(ValueError):
    """An invalid time control (the message says which field)."""


def control(
    raw: Mapping[str, Any] | None, levels: Iterable[str] = (TIMEOUT_BOT_LEVEL,)
) -> dict[str, Any] | None:
    """Validate and normalise a time control; ``None`` for a game without clock. ``levels``: the
    bot levels the game offers, one of which takes a seat over after its timeouts."""
    if raw is None:
        return None

    def seconds(name: str, default: float | None, low: float) -> float | None:
        value = raw.get(name, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= MAX_SECONDS:
            raise ClockError(f"{name} must be a number of seconds from {low} to {MAX_SECONDS}")
        return float(value)

    move = seconds("move_seconds", None, MIN_MOVE_SECONDS)
    if move is None:
        raise ClockError("move_seconds is required")
    bank = seconds("bank_seconds", None, 0)
    increment = seconds("increment_seconds", 0, 0)
    if increment and bank is None:
        raise ClockError("increment_seconds needs bank_seconds")
    limit = raw.get("timeouts_to_bot", DEFAULT_TIMEOUTS_TO_BOT)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
        raise ClockError("timeouts_to_bot must be an integer from 1 to 1000")
    offered = list(levels)
    takeover = raw.get("timeout_bot", TIMEOUT_BOT_LEVEL)
    if takeover not in offered:
        raise ClockError(f"timeout_bot must be one of this game's bot levels: {', '.join(offered)}")
    return {
        "move_seconds": move,
        "bank_seconds": bank,
        "increment_seconds": increment,
        "timeouts_to_bot": limit,
        "timeout_bot": takeover,
    }


def new_state(ctrl: Mapping[str, Any], seat_count: int) -> dict[str, Any]:
    bank = ctrl.get("bank_seconds")
    return {
        "control": dict(ctrl),
        "since": {},
        "deadlines": {},
        "banks": None if bank is None else [int(bank * 1000)] * seat_count,
        "timeouts": [0] * seat_count,
    }


def advance(
    clock: Mapping[str, Any],
    now_ms: int,
    awaiting: Iterable[int],
    humans: Iterable[int],
    acted: int | None = None,
    timed_out: int | None = None,
) -> dict[str, Any]:
    """The clock after a change decided at ``now_ms``: ``acted`` made a move (its time is charged,
    its increment added), ``timed_out`` ran out (its bank is spent, its timeout counted); every
    awaited human seat that was not awaited before starts its time now."""
    ctrl = clock["control"]
    move_ms = int(ctrl["move_seconds"] * 1000)
    since = {int(k): int(v) for k, v in clock["since"].items()}
    banks = list(clock["banks"]) if clock.get("banks") is not None else None
    timeouts = list(clock["timeouts"])
    waiting = set(awaiting) & set(humans)
    for seat in (acted, timed_out):
        if seat is None or seat not in since:
            continue
        used = now_ms - since.pop(seat)
        if banks is not None:
            banks[seat] = max(0, banks[seat] - max(0, used - move_ms))
            if seat == acted:
                banks[seat] += int(ctrl["increment_seconds"] * 1000)
    if timed_out is not None:
        timeouts[timed_out] += 1
        if banks is not None:
            banks[timed_out] = 0
    since = {seat: start for seat, start in since.items() if seat in waiting}
    for seat in waiting:
        since.setdefault(seat, now_ms)
    deadlines = {
        seat: start + move_ms + (banks[seat] if banks is not None else 0) for seat, start in since.items()
    }
    return {
        "control": dict(ctrl),
        "since": {str(s): v for s, v in sorted(since.items())},
        "deadlines": {str(s): v for s, v in sorted(deadlines.items())},
        "banks": banks,
        "timeouts": timeouts,
    }


def next_deadline(clock: Mapping[str, Any] | None) -> int | None:
    if not clock or not clock.get("deadlines"):
        return None
    return min(int(v) for v in clock["deadlines"].values())


def overdue(clock: Mapping[str, Any] | None, now_ms: int) -> list[int]:
    """Seats past their deadline at ``now_ms``, earliest first."""
    if not clock:
        return []
    late = [(int(v), int(k)) for k, v in clock.get("deadlines", {}).items() if int(v) <= now_ms]
    return [seat for _, seat in sorted(late)]


def public(clock: Mapping[str, Any] | None, now_ms: int) -> dict[str, Any] | None:
    """What views and summaries show: the control, and per seat the remaining time of the current
    decision (``null`` when not awaited), the bank and the timeouts so far."""
    if not clock:
        return None
    deadlines = {int(k): int(v) for k, v in clock.get("deadlines", {}).items()}
    banks = clock.get("banks")
    seats = []
    for seat in range(len(clock["timeouts"])):
        deadline = deadlines.get(seat)
        seats.append(
            {
                "seat": seat,
                "deadline_ms": deadline,
                "remaining_ms": None if deadline is None else max(0, deadline - now_ms),
                "bank_ms": None if banks is None else banks[seat],
                "timeouts": clock["timeouts"][seat],
            }
        )
    return {"control": clock["control"], "now_ms": now_ms, "seats": seats}
