"""The state of a Condottiere game: an immutable-by-convention object with ``__slots__`` whose fields
are ints, bools, ``None`` or tuples. ``evolve`` copies it (one shallow copy) and replaces only the
changed fields, so a state is never shared mutably and no deep copy is ever needed."""

from __future__ import annotations

from typing import Any

from games.condottiere.events import Chance, Event

FIELDS = (
    # configuration, and its options as flags (read on every event)
    "config",
    "seat_count",
    "classic",
    "draw_after_battle",
    "points_target",
    "bigger_kingdoms",
    "capturing",
    "hidden_cards",
    "seed",
    # chance: how many random outcomes were drawn so far (RL-10)
    "chance_draws",
    # match (OPT-POINTS) and game bookkeeping
    "game_number",
    "scores",
    "first",
    "previous_first",
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
    # the seats awaited; the (seat, count) deals or draws still to make and the step after the deals
    "step",
    "pending",
    "awaiting",
    "deal_queue",
    "step_after_deal",
    # inside one move's own events: the event type that completes the move (None between moves)
    "move_ends_with",
    # the current battle; final_battle is "game" or "match" during a final battle (VIC-4, CL-2,
    # OPT-POINTS-2), takes_part[s] whether seat s fights in it
    "region",
    "defender",
    "final_battle",
    "takes_part",
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
    "hand_discard_awaited",
    "round_holder",
    # outcome
    "winners",
    "reason",
    "match_winners",
)


class State:
    __slots__ = FIELDS

    # The fields' types (annotations only: the slots above hold the values).
    config: dict[str, Any]
    seat_count: int
    classic: bool
    draw_after_battle: bool
    points_target: int | None
    bigger_kingdoms: bool
    capturing: bool
    hidden_cards: bool
    seed: int | str
    chance_draws: int
    game_number: int
    scores: tuple[int, ...]
    first: int | None
    previous_first: int | None
    holder: int | None
    declines: int
    pope: int | None  # a region index
    owners: tuple[int | None, ...]
    deck: tuple[str, ...]
    discard: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    lines: tuple[tuple[str, ...], ...]
    down: tuple[tuple[str, ...], ...]
    step: int  # an index into steps.STEP_FUNCTIONS
    pending: Event | Chance | None
    awaiting: tuple[int, ...]
    deal_queue: tuple[tuple[int, int], ...]
    step_after_deal: int
    move_ends_with: str | None
    region: int | None
    defender: int | None
    final_battle: str | None
    takes_part: tuple[bool, ...]
    passed: tuple[bool, ...]
    defender_played: bool
    turn: int | None
    end_cause: str | None
    concluding: bool
    card_played: bool
    idle_battles: int
    last_region: int | None
    last_winner: int | None
    last_cause: str | None
    last_strengths: tuple[int, ...] | None
    hand_discard_awaited: tuple[int, ...]
    round_holder: int | None
    winners: tuple[int, ...] | None
    reason: str | None
    match_winners: tuple[int, ...] | None

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
    "def copy(self):\n    duplicate = _new(State)\n"
    + "".join(f"    duplicate.{f} = self.{f}\n" for f in FIELDS)
    + "    return duplicate\n"
)
_namespace: dict[str, Any] = {"_new": object.__new__, "State": State}
exec(_source, _namespace)  # noqa: S102 - generated from the constant FIELDS above
State.copy = _namespace["copy"]  # type: ignore[method-assign]  # the generated copy replaces the stub
