"""Questions about a state that change nothing: strengths, which regions may be chosen, victory
conditions, whose turn comes next. The steps, ``decide`` and the views all ask them."""

from __future__ import annotations

from collections.abc import Sequence

from games.condottiere.board import DECKS, MERCENARY, REGIONS, largest_group
from games.condottiere.state import State

REGION_COUNT = len(REGIONS)


def region_mask(state: State, seat: int) -> int:
    """The regions ``seat`` controls, as a bit mask over the indexes of ``REGIONS``."""
    mask = 0
    for index, owner in enumerate(state.owners):
        if owner == seat:
            mask |= 1 << index
    return mask


def region_count(state: State, seat: int) -> int:
    """How many regions ``seat`` controls."""
    return sum(1 for owner in state.owners if owner == seat)


def regions_by_seat(state: State) -> list[list[str]]:
    """The names of the regions each seat controls, seat by seat."""
    regions: list[list[str]] = [[] for _ in range(state.seat_count)]
    for index, owner in enumerate(state.owners):
        if owner is not None:
            regions[owner].append(REGIONS[index])
    return regions


def card_strength(card: str, *, winter: bool, spring: bool, drummer: bool, highest_mercenary: int) -> int:
    """What one face-up card adds to its line (STR-1, STR-2, STR-3): a Mercenary its printed value (1
    under Winter), doubled by a Drummer in the line, +3 under Spring if it is the highest Mercenary in
    play; the Heroine 10, a Courtesan 1, any other card nothing."""
    value = MERCENARY.get(card)
    if value is not None:
        worth = 1 if winter else value
        if drummer:
            worth *= 2
        if spring and value == highest_mercenary:
            worth += 3
        return worth
    if card == "heroine":
        return 10
    if card == "courtesan":
        return 1
    return 0


def season(lines: Sequence[Sequence[str]]) -> tuple[bool, bool, int]:
    """What every line's strength depends on (STR-2, STR-3): winter, spring, the highest mercenary."""
    winter = spring = False
    highest_mercenary = 0
    for line in lines:
        for card in line:
            if card == "winter":
                winter = True
            elif card == "spring":
                spring = True
            else:
                value = MERCENARY.get(card)
                if value is not None and value > highest_mercenary:
                    highest_mercenary = value
    return winter, spring, highest_mercenary


def strengths(lines: Sequence[Sequence[str]]) -> list[int]:
    """STR-1, STR-2, STR-3 over the given battle lines (every card in them counts)."""
    winter, spring, highest_mercenary = season(lines)
    totals = []
    for line in lines:
        total = 0
        drummer = "drummer" in line
        for card in line:
            total += card_strength(
                card, winter=winter, spring=spring, drummer=drummer, highest_mercenary=highest_mercenary
            )
        totals.append(total)
    return totals


def allowed_regions(state: State, seat: int) -> list[int]:
    """BAT-1 (free, not the Pope's), OPT-CAP-1 (also another player's), CL-5."""
    allowed = []
    pope = state.pope
    capturing = state.capturing
    for index, owner in enumerate(state.owners):
        if index == pope:
            continue
        if owner is None or (capturing and owner != seat):
            allowed.append(index)
    return allowed


def pope_regions(state: State) -> list[int]:
    """BIS-2: a region without a control marker; OPT-CAP-4: any region."""
    if state.capturing:
        return list(range(REGION_COUNT))
    return [index for index, owner in enumerate(state.owners) if owner is None]


def victory_reason(state: State, seat: int) -> str | None:
    """VIC-1, VIC-2, OPT-BIG-1, CL-2. Adjacency is reported first: it is worth the OPT-POINTS-1
    bonus (ruling RL-X3)."""
    few_players = state.seat_count <= 3
    adjacent_needed = (4 if few_players else 3) + (1 if state.bigger_kingdoms else 0)
    mask = region_mask(state, seat)
    if largest_group(mask) >= adjacent_needed:
        return "adjacent"
    if not state.classic and mask.bit_count() >= (6 if few_players else 5):
        return "total"
    return None


def first_from(holder: int, seats: Sequence[int], seat_count: int) -> int:
    """VIC-4: the token holder if among ``seats``, else the nearest of them to his left."""
    for offset in range(seat_count):
        seat = (holder + offset) % seat_count
        if seat in seats:
            return seat
    return seats[0]


def next_turn(state: State, seat: int) -> int | None:
    """The next seat to the left of ``seat`` that has not passed, or None when all have (BAT-4)."""
    passed = state.passed
    seat_count = state.seat_count
    for offset in range(1, seat_count + 1):
        candidate = (seat + offset) % seat_count
        if not passed[candidate]:
            return candidate
    return None


def is_final_pass(state: State, seat: int) -> bool:
    """OPT-CAP-2: a defender who has played nothing passes freely; RL-4: unless everyone else
    has passed."""
    if state.defender == seat and state.capturing and not state.defender_played:
        passed = state.passed
        return all(passed[other] for other in range(state.seat_count) if other != seat)
    return True


def hand_limit(state: State, seat: int) -> int:
    """OPT-DRAW-2: the most cards ``seat`` may hold after drawing."""
    return 10 + region_count(state, seat)


def may_discard_hand(state: State, seat: int) -> bool:
    """END-7: a seat holding cards but no Mercenary may discard its whole hand."""
    hand = state.hands[seat]
    return bool(hand) and not any(card in MERCENARY for card in hand)


def shuffle_source(state: State, reason: str) -> list[str]:
    """The cards a shuffle for ``reason`` gathers, in a canonical (sorted) order."""
    if reason in ("start", "final_battle"):
        return list(DECKS[state.config["ruleset"]])
    if reason == "reshuffle":
        return sorted(state.discard)
    cards = list(state.deck) + list(state.discard)
    for line, down in zip(state.lines, state.down, strict=True):
        cards.extend(line)
        cards.extend(down)
    cards.sort()
    return cards
