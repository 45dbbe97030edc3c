"""Seats that leave a Condottiere game: resignation (RL-X17), abort (RL-X18), and the server's record
of a token rotation (a no-op for the rules). The ``games.base.SeatHooks`` of ``GAME``.

The events are folded by ``rules.evolve`` (their handlers are registered below) and re-decided by
``verify_log`` from the event itself, like a player's move."""

from __future__ import annotations

from typing import Any

from games.base import ABORTED, SEAT_TOKEN_ROTATED, CommandError
from games.condottiere import rules
from games.condottiere.rules import ST_OVER, Event, State, ev, regions_by_seat

RESIGNED = "resigned"
LEAVE_EVENTS = ("seat_resigned", "game_aborted", SEAT_TOKEN_ROTATED)


def _check(s: State | None, seat: Any) -> None:
    if s is None:
        raise CommandError("GAME_NOT_STARTED", "The game has not started.")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < s.n:
        raise CommandError("INVALID_SEAT", "No such seat in this game.")
    if s.step == ST_OVER:
        raise CommandError("GAME_OVER", "The game is over.")
    if s.pending is not None or s.midmove is not None:  # never between the events of one move
        raise CommandError("NOT_NOW", "Not in the middle of a move.")


def resign_events(s: State, seat: Any) -> list[Event]:
    """RL-X17: the game (a points match: the match) ends at once; among the other seats, those with
    the most regions (in a match: the most points) win. The resigner's cards and regions stay where
    they are: the result still shows his regions, he is never a winner."""
    _check(s, seat)
    others = [i for i in range(s.n) if i != seat]
    out = [ev("seat_resigned", seat=seat)]
    if s.target:
        best = max(s.scores[i] for i in others)
        winners = [i for i in others if s.scores[i] == best]
        out.append(ev("match_won", winners=winners, scores=list(s.scores), reason=RESIGNED))
        return out
    counts = [0] * s.n
    for owner in s.owners:
        if owner is not None:
            counts[owner] += 1
    best = max(counts[i] for i in others)
    winners = [i for i in others if counts[i] == best]
    out.append(ev("game_won", winners=winners, reason=RESIGNED, regions=regions_by_seat(s)))
    return out


def abort_events(s: State, seat: Any) -> list[Event]:
    """RL-X18: any seat may abort the game while no battle of it has ended (nobody has won or lost
    anything yet); it ends with no winner and is not rated."""
    _check(s, seat)
    if s.game_number != 1 or s.last_strengths is not None:
        raise CommandError("TOO_LATE_TO_ABORT", "A battle has been fought: resign instead.", "RL-X18")
    return [ev("game_aborted", seat=seat)]


def rotation_events(s: State, seat: Any) -> list[Event]:
    _check(s, seat)
    return [ev(SEAT_TOKEN_ROTATED, seat=seat)]


def events_for(s: State, e: Event) -> list[Event]:
    """The events the leave event ``e`` expresses, decided again on ``s`` (for ``verify_log``)."""
    kind = e.get("type")
    seat = e.get("seat")
    if kind == "seat_resigned":
        return resign_events(s, seat)
    if kind == "game_aborted":
        return abort_events(s, seat)
    return rotation_events(s, seat)


def _seat_resigned(s: State, e: Event) -> None:
    """The ending event that follows records the outcome."""


def _game_aborted(s: State, e: Event) -> None:
    s.winners = ()
    s.match_winners = ()
    s.reason = ABORTED
    s.fb = None
    s.step = ST_OVER


def _token_rotated(s: State, e: Event) -> None:
    """Nothing changes in the game."""


rules.HANDLERS.update(
    {"seat_resigned": _seat_resigned, "game_aborted": _game_aborted, SEAT_TOKEN_ROTATED: _token_rotated}
)
