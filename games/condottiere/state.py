"""The state of a Condottiere game: an immutable-by-convention object with ``__slots__`` whose fields
are ints, bools, ``None`` or tuples. ``evolve`` copies it (one shallow copy) and replaces only the
changed fields, so a state is never shared mutably and no deep copy is ever needed."""

from __future__ import annotations

from typing import Any

FIELDS = (
    # configuration, cached flags
    "config",
    "n",
    "classic",
    "draw",
    "target",
    "big",
    "cap",
    "hid",
    "seed",
    # chance: counter of random outcomes drawn so far (RL-10)
    "rng",
    # match (OPT-POINTS) and game bookkeeping
    "game_number",
    "scores",
    "first",
    "prev_first",
    # board and cards; hands are sorted tuples of codes, lines tuples of face-up codes,
    # down[s] the face-down cards of seat s (OPT-HID), owners[r] a seat or None
    "holder",
    "declines",
    "pope",
    "owners",
    "deck",
    "discard",
    "hands",
    "lines",
    "down",
    # the automatic-step machine: the current step, the automatic event it will emit (or None),
    # the seats awaited; queue of (seat, count) deals or draws and the step after the deals
    "step",
    "pending",
    "awaiting",
    "queue",
    "deal_next",
    # inside one move's own events: the event type that completes the move (None between moves)
    "midmove",
    # the current battle
    "region",
    "defender",
    "fb",
    "part",
    "passed",
    "defender_played",
    "turn",
    "end_cause",
    "concluding",
    # whether any card was played in the current battle, and how many battles in a row ended with
    # none played (RL-11)
    "card_played",
    "idle_battles",
    # the last battle's outcome (kept until the next one ends)
    "last_region",
    "last_winner",
    "last_cause",
    "last_strengths",
    # hand discards (END-7) and rounds (RND-2)
    "hand_pending",
    "round_holder",
    # outcome
    "winners",
    "reason",
    "match_winners",
)


class State:
    __slots__ = FIELDS

    def copy(self) -> State:  # replaced below by a generated, unrolled version
        raise NotImplementedError

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in FIELDS)

    def __repr__(self) -> str:
        return f"<condottiere State game={self.game_number} step={self.step} awaiting={self.awaiting}>"


# An unrolled attribute copy is several times faster than copy.copy or a getattr loop, and the
# copy is on the hot path of every event.
_source = (
    "def copy(self):\n    o = _new(State)\n"
    + "".join(f"    o.{f} = self.{f}\n" for f in FIELDS)
    + "    return o\n"
)
_namespace: dict[str, Any] = {"_new": object.__new__, "State": State}
exec(_source, _namespace)  # noqa: S102 - generated from the constant FIELDS above
State.copy = _namespace["copy"]
