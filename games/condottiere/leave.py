"""Seats that leave a Condottiere game: resignation (RL-X17), abort (RL-X18), timeouts (RL-X19), and
the server's records of a token rotation or of a seat handed to a bot (no-ops for the rules). The
``games.base.SeatHooks`` of ``GAME``.

The events are folded by ``evolve`` (their handlers are registered below) and re-decided by
``verify_log`` from the event itself, like a player's move."""

from __future__ import annotations

from typing import Any

from games.base import ABORTED, SEAT_HANDED_TO_BOT, SEAT_TOKEN_ROTATED, CommandError
from games.condottiere.decide import check_seat, command_events
from games.condottiere.events import Event, make_event
from games.condottiere.evolve import EVENT_HANDLERS
from games.condottiere.queries import regions_by_seat
from games.condottiere.state import State
from games.condottiere.steps import STEP_GAME_OVER
from games.condottiere.views import legal_moves

RESIGNED = "resigned"
LEAVE_EVENTS = ("seat_resigned", "game_aborted", "seat_timed_out", SEAT_TOKEN_ROTATED, SEAT_HANDED_TO_BOT)


def _check(state: State | None, seat: Any) -> None:
    state = check_seat(state, seat)
    if state.pending is not None or state.move_ends_with is not None:  # never between the events of one move
        raise CommandError("NOT_NOW", "Not in the middle of a move.")


def resign_events(state: State, seat: Any) -> list[Event]:
    """RL-X17: the game (a points match: the match) ends at once; among the other seats, those with
    the most regions (in a match: the most points) win. The resigner's cards and regions stay where
    they are: the result still shows his regions, he is never a winner."""
    _check(state, seat)
    others = [i for i in range(state.seat_count) if i != seat]
    out = [make_event("seat_resigned", seat=seat)]
    if state.points_target:
        best = max(state.scores[i] for i in others)
        winners = [i for i in others if state.scores[i] == best]
        out.append(make_event("match_won", winners=winners, scores=list(state.scores), reason=RESIGNED))
        return out
    counts = [0] * state.seat_count
    for owner in state.owners:
        if owner is not None:
            counts[owner] += 1
    best = max(counts[i] for i in others)
    winners = [i for i in others if counts[i] == best]
    out.append(make_event("game_won", winners=winners, reason=RESIGNED, regions=regions_by_seat(state)))
    return out


def abort_events(state: State, seat: Any) -> list[Event]:
    """RL-X18: any seat may abort the game while no battle of it has ended (nobody has won or lost
    anything yet); it ends with no winner and is not rated."""
    _check(state, seat)
    if state.game_number != 1 or state.last_strengths is not None:
        raise CommandError("TOO_LATE_TO_ABORT", "A battle has been fought: resign instead.", "RL-X18")
    return [make_event("game_aborted", seat=seat)]


def record_events(state: State, event: Event) -> list[Event]:
    """A server's record (token rotated, seat handed to a bot): accepted as it is for a seat of an
    unfinished game, at a decision point."""
    _check(state, event.get("seat"))
    fields = {"seat": event.get("seat")}
    if event.get("type") == SEAT_HANDED_TO_BOT:
        if not isinstance(event.get("level"), str):
            raise CommandError("MALFORMED_EVENT", "seat_handed_to_bot names the bot level.")
        fields["level"] = event["level"]
    return [make_event(event["type"], **fields)]


def default_command(state: State, seat: int) -> dict[str, Any]:
    """RL-X19: what a seat that ran out of time does: it passes in a battle; as token holder it
    declines when it may (classic), else places the token on the first region it may choose, in board
    order; it keeps its hand at a hand discard; as last holder it keeps no cards (RND-2)."""
    moves = legal_moves(state, seat)
    kinds = {move["type"] for move in moves}
    if "pass" in kinds:
        return {"type": "pass"}
    if "decline_token" in kinds:
        return {"type": "decline_token"}
    if "place_token" in kinds:
        return next(move for move in moves if move["type"] == "place_token")
    if "discard_hand" in kinds:
        return {"type": "discard_hand", "discard": False}
    return {"type": "keep_cards", "cards": []}


def timeout_events(state: State, seat: Any) -> list[Event]:
    """RL-X19: ``seat_timed_out`` then the events of the seat's default command."""
    _check(state, seat)
    if seat not in state.awaiting:
        raise CommandError("NOT_AWAITED", "No decision of that seat is awaited.")
    return [
        make_event("seat_timed_out", seat=seat),
        *command_events(state, seat, default_command(state, seat)),
    ]


def events_for(state: State, event: Event) -> list[Event]:
    """The events the leave event ``event`` expresses, decided again on ``state`` (for ``verify_log``)."""
    kind = event.get("type")
    seat = event.get("seat")
    if kind == "seat_resigned":
        return resign_events(state, seat)
    if kind == "game_aborted":
        return abort_events(state, seat)
    if kind == "seat_timed_out":
        return timeout_events(state, seat)
    return record_events(state, event)


def _seat_resigned(state: State, event: Event) -> None:
    """The ending event that follows records the outcome."""


def _game_aborted(state: State, event: Event) -> None:
    state.winners = ()
    state.match_winners = ()
    state.reason = ABORTED
    state.final_battle = None
    state.step = STEP_GAME_OVER


def _no_change(state: State, event: Event) -> None:
    """Nothing changes in the game (a server's record; a timeout's default move follows it)."""


EVENT_HANDLERS.update(
    {
        "seat_resigned": _seat_resigned,
        "game_aborted": _game_aborted,
        "seat_timed_out": _no_change,
        SEAT_TOKEN_ROTATED: _no_change,
        SEAT_HANDED_TO_BOT: _no_change,
    }
)
