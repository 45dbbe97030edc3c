"""The automatic-step machine: what the rules do by themselves between two decisions.

After every event, ``evolve`` *settles* the new state: it runs the function of the current step,
which either emits the next automatic event (an automatic pass, a battle's conclusion, a deal...),
or names the seats whose decision is awaited, or moves on to the next step when it has nothing to
do. The result is cached in ``state.pending`` / ``state.awaiting``, so asking for the next automatic
event is a lookup. Random outcomes are ``Chance`` markers, drawn only when asked for (RL-10).

The order of one battle's conclusion follows END-1..END-7 (2006) and section 9 (classic):
battle_ended, region_won, token_passed, (victory check: game_won), (OPT-DRAW: draws), choose the
next region (END-5, or VIC-3), battle_lines_discarded (END-6), hand discards (END-7, RL-3), round
end (RND-1..RND-3, CL-6), then the next battle starts.

The step numbers are stored in snapshots: never renumber them, only append.
"""

from __future__ import annotations

from collections.abc import Callable

from games.base import REVISION, UNREVISED
from games.condottiere.board import REGIONS
from games.condottiere.config import RL_11_RL_12, revision
from games.condottiere.events import Chance, Event, copy_config, make_event
from games.condottiere.queries import (
    allowed_regions,
    first_from,
    hand_limit,
    is_final_pass,
    may_discard_hand,
    region_count,
    regions_by_seat,
    strengths,
    victory_reason,
)
from games.condottiere.state import State

# RL-11: this many battles in a row ending with no card played end the game with no winner.
STALL_LIMIT = 10

(
    STEP_CHOOSE_FIRST,
    STEP_SHUFFLE_AT_START,
    STEP_DEAL,
    STEP_PLACE_TOKEN,
    STEP_DISCARD_LINES,
    STEP_OFFER_HAND_DISCARD,
    STEP_HAND_DISCARD,
    STEP_CHECK_ROUND_END,
    STEP_KEEP_CARDS,
    STEP_SHUFFLE_FOR_ROUND,
    STEP_START_BATTLE,
    STEP_BATTLE,
    STEP_AWARD_REGION,
    STEP_PASS_TOKEN,
    STEP_CHECK_VICTORY,
    STEP_DRAW_CARDS,
    STEP_SCORE_GAME,
    STEP_CHECK_MATCH,
    STEP_SHUFFLE_FOR_FINAL_BATTLE,
    STEP_GAME_OVER,
) = range(20)

# What a step function returns: an event or a Chance to emit, a tuple of awaited seats, or None
# after moving ``state.step`` on (``state`` is a fresh copy that the step may change).
StepResult = Event | Chance | tuple[int, ...] | None


def choose_first(state: State) -> StepResult:
    if state.game_number > 1:  # RL-8
        previous = state.previous_first
        assert previous is not None, "a later game of a match knows its previous first player"
        seat = (previous + 1) % state.seat_count
        return make_event("first_condottiere_chosen", seat=seat, drawn=False)
    chosen = state.config["first_condottiere"]
    if chosen is not None:
        return make_event("first_condottiere_chosen", seat=chosen, drawn=False)
    return Chance("first")  # SET-2


def shuffle_at_start(state: State) -> StepResult:
    order = state.config["deck_order"]
    if state.game_number == 1 and order is not None:
        return make_event("deck_shuffled", cards=list(order), reason="start", count=len(order))
    return Chance("shuffle", "start")  # SET-3


def deal(state: State) -> StepResult:
    deal_queue = state.deal_queue
    while deal_queue and deal_queue[0][1] <= 0:
        deal_queue = deal_queue[1:]
    if deal_queue and state.deck:
        state.deal_queue = deal_queue
        seat, count = deal_queue[0]
        cards = state.deck[:count]
        return make_event("cards_dealt", seat=seat, cards=list(cards), count=len(cards))
    state.deal_queue = ()
    state.step = state.step_after_deal
    return None


def place_token(state: State) -> StepResult:
    holder = state.holder
    assert holder is not None, "the token is placed after the first Condottiere is chosen"
    if allowed_regions(state, holder):
        return (holder,)
    # END-5 -> VIC-3 / CL-2: nothing can be chosen; most regions wins, a tie is fought out (VIC-4)
    counts = [0] * state.seat_count
    for owner in state.owners:
        if owner is not None:
            counts[owner] += 1
    most = max(counts)
    tied = [seat for seat in range(state.seat_count) if counts[seat] == most]
    if len(tied) == 1:
        return make_event("game_won", winners=tied, reason="most_regions", regions=regions_by_seat(state))
    return make_event("final_battle_started", seats=tied, first=first_from(holder, tied, state.seat_count))


def discard_lines(state: State) -> StepResult:
    if any(state.lines) or any(state.down):  # END-6
        cards = [
            {"seat": seat, "card": card}
            for seat in range(state.seat_count)
            for card in state.lines[seat] + state.down[seat]
        ]
        return make_event("battle_lines_discarded", cards=cards)
    state.step = STEP_START_BATTLE if state.draw_after_battle else STEP_OFFER_HAND_DISCARD
    return None


def offer_hand_discard(state: State) -> StepResult:
    # RL-12: eligibility (no Mercenary in hand) is hidden, so every seat holding cards is asked;
    # the event and the awaited seats depend only on public hand sizes.
    holders = [seat for seat, hand in enumerate(state.hands) if hand]
    if revision(state.config) < RL_11_RL_12:  # a log of revision 1 offered it to the eligible only
        holders = [seat for seat in holders if may_discard_hand(state, seat)]
    if holders:  # END-7
        return make_event("hand_discard_offered", seats=holders)
    state.step = STEP_CHECK_ROUND_END
    return None


def hand_discard(state: State) -> StepResult:
    if state.hand_discard_awaited:
        return state.hand_discard_awaited
    state.step = STEP_CHECK_ROUND_END
    return None


def check_round_end(state: State) -> StepResult:
    holders = [seat for seat, hand in enumerate(state.hands) if hand]
    if len(holders) <= 1:  # RND-1, CL-6
        return make_event("round_ended", holder=holders[0] if holders else None)
    state.step = STEP_START_BATTLE
    return None


def keep_cards(state: State) -> StepResult:
    seat = state.round_holder
    if seat is not None and state.hands[seat]:
        if state.classic:  # CL-6: that player's cards are discarded
            hand = state.hands[seat]
            return make_event(
                "hand_discarded", seat=seat, discard=True, cards=list(hand), count=len(hand), auto=True
            )
        return (seat,)  # RND-2
    state.step = STEP_SHUFFLE_FOR_ROUND
    return None


def shuffle_for_round(state: State) -> StepResult:
    return Chance("shuffle", "round")  # RND-3, CL-6


def start_battle(state: State) -> StepResult:
    if state.final_battle:
        takes_part = state.takes_part
        turn = state.turn  # set by final_battle_started (VIC-4)
    else:
        takes_part = (True,) * state.seat_count
        turn = state.holder  # BAT-2
    state.takes_part = takes_part
    state.passed = tuple(not fights for fights in takes_part)
    state.defender_played = False
    state.turn = turn
    state.end_cause = None
    state.concluding = False
    state.card_played = False
    state.step = STEP_BATTLE
    return None


def battle(state: State) -> StepResult:
    if state.end_cause is not None:
        for seat, down in enumerate(state.down):
            if down:  # OPT-HID-3
                return make_event("cards_revealed", seat=seat, cards=list(down), cause="battle_end")
        return battle_ended_event(state)
    turn = state.turn
    assert turn is not None, "a battle in progress has a seat to play"
    if not state.hands[turn]:  # BAT-5
        return make_event("passed", seat=turn, auto=True, final=is_final_pass(state, turn))
    return (turn,)


def battle_ended_event(state: State) -> Event:
    """The battle's outcome: strengths, and its winner unless tied (END-1, END-2) or CL-3."""
    values = strengths(state.lines)
    winner = None
    if not (state.classic and state.end_cause == "bishop"):  # CL-3: no victor
        fighters = [seat for seat in range(state.seat_count) if state.takes_part[seat]]
        best = max(values[seat] for seat in fighters)
        strongest = [seat for seat in fighters if values[seat] == best]
        if len(strongest) == 1:  # END-1, END-2
            winner = strongest[0]
    region = None if state.region is None else REGIONS[state.region]
    return make_event("battle_ended", region=region, strengths=values, winner=winner, cause=state.end_cause)


def award_region(state: State) -> StepResult:
    if state.idle_battles >= STALL_LIMIT and revision(state.config) >= RL_11_RL_12:
        # RL-11: the game ends at once, nobody wins
        if state.final_battle == "match":
            return make_event("match_won", winners=[], scores=list(state.scores), reason="stalled")
        return make_event("game_won", winners=[], reason="stalled", regions=regions_by_seat(state))
    winner = state.last_winner
    if state.final_battle:
        if winner is not None:
            winners = [winner]
        elif state.classic:  # CL-2: a final battle without winner ends the game without winner
            winners = []
        else:  # VIC-4: the players tied for the highest strength share the victory
            values = state.last_strengths
            assert values is not None, "a final battle that ended has its strengths"
            fighters = [seat for seat in range(state.seat_count) if state.takes_part[seat]]
            best = max(values[seat] for seat in fighters)
            winners = [seat for seat in fighters if values[seat] == best]
        if state.final_battle == "match":
            return make_event("match_won", winners=winners, scores=list(state.scores))
        return make_event(
            "game_won",
            winners=winners,
            reason="final_battle" if winners else "no_winner",
            regions=regions_by_seat(state),
        )
    region = state.region
    if winner is not None and region is not None and state.owners[region] != winner:
        return make_event("region_won", seat=winner, region=REGIONS[region], **{"from": state.owners[region]})
    state.step = STEP_PASS_TOKEN
    return None


def pass_token(state: State) -> StepResult:
    winner = state.last_winner
    seat = None
    if not state.classic:  # END-3, RL-5: the Courtesans come first
        courtesans = [sum(1 for card in line if card == "courtesan") for line in state.lines]
        most = max(courtesans)
        if most > 0 and courtesans.count(most) == 1:
            seat, cause = courtesans.index(most), "courtesans"
    if seat is None:
        if winner is not None:
            seat, cause = winner, "winner"  # END-3, CL-4
        elif state.defender is not None:
            seat, cause = state.defender, "defender"  # OPT-CAP-3, CL-7
        else:
            holder = state.holder
            assert holder is not None, "a battle was fought: someone held the token"
            seat, cause = (holder + 1) % state.seat_count, "left_neighbour"  # END-3, CL-4
    return make_event("token_passed", seat=seat, cause=cause)


def check_victory(state: State) -> StepResult:
    winner = state.last_winner
    if winner is not None:  # END-4: only the battle's winner gained a region
        reason = victory_reason(state, winner)
        if reason:
            return make_event("game_won", winners=[winner], reason=reason, regions=regions_by_seat(state))
    if state.draw_after_battle:  # OPT-DRAW-1..3, RL-7
        seat_count = state.seat_count
        amount = 3 if any(state.hands) else 10
        holder = state.holder
        assert holder is not None, "a battle was fought: someone held the token"
        deal_queue = []
        for offset in range(seat_count):
            seat = (holder + offset) % seat_count
            count = min(amount, hand_limit(state, seat) - len(state.hands[seat]))
            if count > 0:
                deal_queue.append((seat, count))
        state.deal_queue = tuple(deal_queue)
        state.step = STEP_DRAW_CARDS
    else:
        state.step = STEP_PLACE_TOKEN
    return None


def draw_cards(state: State) -> StepResult:
    deal_queue = state.deal_queue
    if deal_queue:
        seat, count = deal_queue[0]
        if state.deck:
            cards = state.deck[:count]
            return make_event("cards_drawn", seat=seat, cards=list(cards), count=len(cards))
        if state.discard:  # RL-7
            return Chance("shuffle", "reshuffle")
        state.deal_queue = ()  # ruling RL-X1: nothing left to draw
    state.step = STEP_PLACE_TOKEN
    return None


def score_game(state: State) -> StepResult:
    gained = [region_count(state, seat) for seat in range(state.seat_count)]  # OPT-POINTS-1
    winners = state.winners or ()
    if state.reason == "adjacent" and len(winners) == 1:
        gained[winners[0]] += 5
    scores = [before + more for before, more in zip(state.scores, gained, strict=True)]
    return make_event("game_scored", scores=scores, gained=gained)


def check_match(state: State) -> StepResult:
    scores = state.scores
    if state.reason == "stalled":  # RL-11: the stalled game scores nothing and the match ends with it
        return make_event("match_won", winners=[], scores=list(scores), reason="stalled")
    best = max(scores)
    target = state.points_target
    assert target is not None, "only a points match checks its target"
    if best >= target:  # OPT-POINTS-2, CL-7
        leaders = [seat for seat in range(state.seat_count) if scores[seat] == best]
        if len(leaders) == 1:
            return make_event("match_won", winners=leaders, scores=list(scores))
        holder = state.holder
        assert holder is not None, "a game was played: someone holds the token"
        first = first_from(holder, leaders, state.seat_count)
        return make_event("final_battle_started", seats=leaders, first=first)
    return make_event(
        "game_started",
        config=copy_config(state.config),
        game_number=state.game_number + 1,
        scores=list(scores),
    )


def shuffle_for_final_battle(state: State) -> StepResult:
    return Chance("shuffle", "final_battle")  # VIC-4


def game_over(state: State) -> StepResult:
    return ()


# Indexed by the step numbers above.
STEP_FUNCTIONS: tuple[Callable[[State], StepResult], ...] = (
    choose_first,
    shuffle_at_start,
    deal,
    place_token,
    discard_lines,
    offer_hand_discard,
    hand_discard,
    check_round_end,
    keep_cards,
    shuffle_for_round,
    start_battle,
    battle,
    award_region,
    pass_token,
    check_victory,
    draw_cards,
    score_game,
    check_match,
    shuffle_for_final_battle,
    game_over,
)


# Automatic events that revisions 1 and 2 produce differently (RL-12's offer, RL-11's stall).
_REVISED_EVENTS = ("hand_discard_offered", "game_won", "match_won")


def read_as_revision_1(state: State) -> State | None:
    """For a game whose configuration names no revision (recorded before revisions existed, see
    config.py): the state settled under revision 1 instead, when revision 1 goes on from here
    differently from the pending event revision 2 produced (the offer of the hand discard, or a
    stall); None when nothing differs. Used when the log's next event is not that pending event."""
    pending = state.pending
    if (
        REVISION in state.config
        or not isinstance(pending, dict)
        or pending.get("type") not in _REVISED_EVENTS
    ):
        return None
    if pending["type"] != "hand_discard_offered" and pending.get("reason") != "stalled":
        return None
    alt = state.copy()
    recorded = alt.config
    alt.config = dict(recorded, revision=UNREVISED)  # only while the steps run: the log's own stays
    try:
        settle(alt)
    finally:
        alt.config = recorded
    if alt.pending == pending and alt.awaiting == state.awaiting:
        return None
    return alt


def settle(state: State) -> State:
    """Run the steps of ``state`` (a fresh copy, changed in place) until one emits an automatic
    event (cached in ``pending``) or awaits seats (cached in ``awaiting``); return it."""
    if state.move_ends_with is not None:  # the rest of a move's own events must come first
        state.pending = None
        state.awaiting = ()
        return state
    step_functions = STEP_FUNCTIONS
    while True:
        result = step_functions[state.step](state)
        if result is None:
            continue
        if isinstance(result, tuple):
            state.pending = None
            state.awaiting = result
        else:
            state.pending = result
            state.awaiting = ()
        return state
