"""The search hooks (``games.base.SearchHooks``): what a searching bot and the game analysis need of
Condottiere beyond the ``Game`` protocol.

``determinize`` samples a complete state that ``seat`` cannot tell from the real one. It first
*forgets* everything the seat may not see (``observe``: the other hands and face-down cards, the
deck's order and content, the discard pile's content, the seed and its draw counter), keeping only
their sizes, and then fills them from the cards the seat cannot account for. Hidden cards are thus
drawn from one function of the seat's information set alone, so two states that differ only in
what the seat cannot see give the same samples under the same random generator.

The discard pile's content is treated as unknown, although a seat with a perfect memory knows most
of it (battle lines are discarded face up): the seat's view carries only its size, and a sample
that knows less than the seat is still consistent with what it saw. The full composition of the
deck (CARD-1, CARD-2, CL-1) is public, so the unknown cards are that deck minus the seat's hand,
its face-down cards and every face-up card on the table.

``estimate`` is the value of a state a search stops at before the end: each seat's chance to win,
judged from the regions held (VIC-1..VIC-3: the closer to a victory, the likelier) and the hand
sizes (staying power for the battles to come). It is a cheap prior, not a prediction; the search's
playouts do the rest.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from games.condottiere.board import DECKS, largest_group
from games.condottiere.decide import decide_and_evolve
from games.condottiere.state import State
from games.condottiere.steps import STEP_GAME_OVER
from games.condottiere.views import legal_moves

# A seed drawn for a sample: any value the rules accept (normalise_seed), wide enough not to repeat.
_SEED_BITS = 53


def observe(state: State, seat: int | None) -> State:
    """``state`` with everything ``seat`` may not see erased (placeholders of the right size); with
    ``seat`` None (an analysis after the game: every card known) only the seed, so future shuffles
    are unknown. The result is only fit for :func:`fill`."""
    seen = state.copy()
    # The configuration's secrets go too: a given deck order decides only the first deal, already
    # made, but nothing hidden is kept where a later step might read it.
    seen.config = {**state.config, "seed": 0, "deck_order": None}
    seen.seed = 0
    seen.chance_draws = 0
    if seat is None:
        return seen
    # Placeholders (None) where a card is unknown: only their number survives.
    seen.hands = tuple(
        hand if i == seat else (None,) * len(hand)  # type: ignore[misc]
        for i, hand in enumerate(state.hands)
    )
    seen.down = tuple(
        down if i == seat else (None,) * len(down)  # type: ignore[misc]
        for i, down in enumerate(state.down)
    )
    seen.deck = (None,) * len(state.deck)  # type: ignore[assignment]
    seen.discard = (None,) * len(state.discard)  # type: ignore[assignment]
    return seen


def fill(seen: State, seat: int | None, rng: random.Random) -> State:
    """A complete state drawn from the erased one: unknown cards dealt from the cards ``seat``
    cannot account for, a fresh seed for the shuffles to come."""
    sample = seen.copy()
    sample.seed = rng.getrandbits(_SEED_BITS)
    if seat is None:
        return sample
    unknown = Counter(DECKS[seen.config["ruleset"]])
    unknown.subtract(seen.hands[seat])
    unknown.subtract(seen.down[seat])
    for line in seen.lines:
        unknown.subtract(line)
    pool = sorted(unknown.elements())  # sorted: the sample depends on the multiset, not an order
    rng.shuffle(pool)

    def deal(count: int) -> tuple[str, ...]:
        taken = [pool.pop() if pool else rng.choice(DECKS[seen.config["ruleset"]]) for _ in range(count)]
        return tuple(taken)

    sample.hands = tuple(
        hand if i == seat else tuple(sorted(deal(len(hand)))) for i, hand in enumerate(seen.hands)
    )
    sample.down = tuple(down if i == seat else deal(len(down)) for i, down in enumerate(seen.down))
    sample.deck = deal(len(seen.deck))
    sample.discard = deal(len(seen.discard))
    return sample


def determinize(state: State, seat: int | None, rng: random.Random) -> State:
    """A state ``seat`` cannot tell from ``state``, drawn with ``rng`` (``games.base.SearchHooks``)."""
    return fill(observe(state, seat), seat, rng)


def estimate(state: State) -> list[float]:
    """Each seat's chance to win a game stopped at ``state`` (summing to 1), from regions and hands."""
    n = state.seat_count
    if state.step == STEP_GAME_OVER:
        winners = state.match_winners if state.points_target else state.winners
        won = tuple(winners or ())
        return [1.0 / len(won) if i in won else 0.0 for i in range(n)] if won else [1.0 / n] * n
    masks = [0] * n
    counts = [0] * n
    for region, owner in enumerate(state.owners):
        if owner is not None:
            masks[owner] |= 1 << region
            counts[owner] += 1
    need_group = 3 if n >= 4 or state.classic else 4
    need_total = 5 if n >= 4 or state.classic else 6
    if state.bigger_kingdoms:
        need_group, need_total = need_group + 1, need_total + 1
    scores = []
    for i in range(n):
        progress = max(largest_group(masks[i]) / need_group, counts[i] / need_total)
        scores.append(0.4 + 3.0 * progress * progress + 0.05 * len(state.hands[i]))
    total = sum(scores)
    return [score / total for score in scores]


def advance(state: State, seat: int, command: dict[str, Any]) -> State:
    """The state after ``seat``'s ``command`` and every automatic event it causes."""
    return decide_and_evolve(state, seat, command)[1]


def playout_move(state: State, seat: int, rng: random.Random) -> dict[str, Any]:
    """A uniform playout's move for ``seat`` among its legal moves (the search's default playouts
    are the guided ones of ``playout.py``; this one is kept for comparison)."""
    moves = legal_moves(state, seat)
    return moves[rng.randrange(len(moves))] if len(moves) > 1 else moves[0]
