"""The automatic events: what the rules emit by themselves, chance outcomes included. A chance
outcome is drawn from ``Random(f"{seed}/{counter}")`` (RL-10), so it is a pure function of the
state, like everything else in the engine."""

from __future__ import annotations

from random import Random

from games.condottiere.events import Chance, Event, make_event
from games.condottiere.evolve import evolve
from games.condottiere.queries import shuffle_source
from games.condottiere.state import State

# A bug, never a rule: every chain of automatic events is short.
AUTOMATIC_CHAIN_LIMIT = 100_000


def next_automatic_event(state: State) -> Event | None:
    """The automatic event the rules produce now, or None when a player must decide (or the game
    is over)."""
    pending = state.pending
    if pending is None:
        return None
    if isinstance(pending, Chance):
        draw = Random(f"{state.seed}/{state.chance_draws}")
        if pending.kind == "first":
            return make_event("first_condottiere_chosen", seat=draw.randrange(state.seat_count), drawn=True)
        assert pending.reason is not None, "a shuffle has a reason"
        cards = shuffle_source(state, pending.reason)
        draw.shuffle(cards)
        return make_event("deck_shuffled", cards=cards, reason=pending.reason, count=len(cards))
    return dict(pending)


def run_automatic(state: State, out: list[Event]) -> State:
    """Append every automatic event to ``out`` until a player must decide; return the state."""
    emitted = 0
    while state.pending is not None:
        event = next_automatic_event(state)
        assert event is not None  # a pending step always makes its event
        out.append(event)
        state = evolve(state, event)
        emitted += 1
        if emitted > AUTOMATIC_CHAIN_LIMIT:
            raise RuntimeError("automatic events do not stop")
    return state
