"""``evolve``: apply one event to a state. Each event type has a handler that changes a fresh copy
of the state; the automatic-step machine (``steps.settle``) then works out what comes next."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, overload

from games.base import REVISION
from games.condottiere.board import REGION_INDEX, REGIONS
from games.condottiere.events import Event, copy_config
from games.condottiere.queries import next_turn, region_count
from games.condottiere.state import State
from games.condottiere.steps import (
    STEP_AWARD_REGION,
    STEP_CHECK_MATCH,
    STEP_CHECK_VICTORY,
    STEP_CHOOSE_FIRST,
    STEP_DEAL,
    STEP_DISCARD_LINES,
    STEP_GAME_OVER,
    STEP_HAND_DISCARD,
    STEP_KEEP_CARDS,
    STEP_OFFER_HAND_DISCARD,
    STEP_PASS_TOKEN,
    STEP_PLACE_TOKEN,
    STEP_SCORE_GAME,
    STEP_SHUFFLE_AT_START,
    STEP_SHUFFLE_FOR_FINAL_BATTLE,
    STEP_SHUFFLE_FOR_ROUND,
    STEP_START_BATTLE,
    read_as_revision_1,
    settle,
)

# ---------------------------------------------------------------------------------------------
# Tuples are replaced, never changed: these return new ones.


def replace_at(items: tuple, index: int, value: Any) -> tuple:
    """``items`` with the item at ``index`` replaced by ``value``."""
    changed = list(items)
    changed[index] = value
    return tuple(changed)


def remove_one(cards: tuple, card: str) -> tuple:
    """Remove one copy of ``card`` (the last one: cards of one kind are interchangeable)."""
    for index in range(len(cards) - 1, -1, -1):
        if cards[index] == card:
            return cards[:index] + cards[index + 1 :]
    return cards


def add_to_hand(hand: tuple, cards: Iterable[str]) -> tuple:
    """A hand (kept sorted) with ``cards`` added."""
    return tuple(sorted(hand + tuple(cards)))


# ---------------------------------------------------------------------------------------------
# A new game


def new_state(
    config: dict[str, Any],
    game_number: int = 1,
    scores: Iterable[int] | None = None,
    previous_game: State | None = None,
) -> State:
    """The state at the start of game ``game_number`` of a match (before anything is dealt);
    ``previous_game`` carries the chance counter (RL-10) and the last first player (RL-8)."""
    state = object.__new__(State)
    config = copy_config(config)
    seat_count = config["players"]
    options = config["options"]
    state.config = config
    state.seat_count = seat_count
    state.classic = config["ruleset"] == "classic"
    state.draw_after_battle = options["draw_after_battle"]
    state.points_target = options["points_target"]
    state.bigger_kingdoms = options["bigger_kingdoms"]
    state.capturing = options["capturing"]
    state.hidden_cards = options["hidden_cards"]
    state.seed = config["seed"]
    state.chance_draws = previous_game.chance_draws if previous_game is not None else 0
    state.game_number = game_number
    state.scores = tuple(scores) if scores is not None else (0,) * seat_count
    state.first = None
    state.previous_first = previous_game.first if previous_game is not None else None
    state.holder = None
    state.declines = 0
    state.pope = None
    state.owners = (None,) * len(REGIONS)
    state.deck = ()
    state.discard = ()
    empty = ((),) * seat_count
    state.hands = empty
    state.lines = empty
    state.down = empty
    state.step = STEP_CHOOSE_FIRST
    state.pending = None
    state.awaiting = ()
    state.deal_queue = ()
    state.step_after_deal = STEP_PLACE_TOKEN
    state.move_ends_with = None
    state.region = None
    state.defender = None
    state.final_battle = None
    state.takes_part = (True,) * seat_count
    state.passed = (False,) * seat_count
    state.defender_played = False
    state.turn = None
    state.end_cause = None
    state.concluding = False
    state.card_played = False
    state.idle_battles = 0
    state.last_region = None
    state.last_winner = None
    state.last_cause = None
    state.last_strengths = None
    state.hand_discard_awaited = ()
    state.round_holder = None
    state.winners = None
    state.reason = None
    state.match_winners = None
    return state


def game_started(state: State | None, event: Event) -> State:
    return new_state(event["config"], event.get("game_number", 1), event.get("scores"), state)


# ---------------------------------------------------------------------------------------------
# One handler per event type: each changes ``state``, a fresh copy.


def first_condottiere_chosen(state: State, event: Event) -> None:
    state.holder = state.first = event["seat"]
    if event.get("drawn"):
        state.chance_draws += 1
    state.step = STEP_SHUFFLE_AT_START


def deck_shuffled(state: State, event: Event) -> None:
    state.chance_draws += 1
    reason = event["reason"]
    seat_count = state.seat_count
    state.deck = tuple(event["cards"])
    state.discard = ()
    if reason == "reshuffle":  # RL-7: the discard pile becomes the deck
        return
    empty = ((),) * seat_count
    state.lines = empty
    state.down = empty
    if reason == "start":
        count = 7 if state.draw_after_battle else 10  # SET-3, OPT-DRAW-1
        state.deal_queue = tuple((seat, count) for seat in range(seat_count))
        state.step_after_deal = STEP_PLACE_TOKEN
    elif reason == "round":  # RND-3, CL-6
        per_region = 2 if state.classic else 1
        state.deal_queue = tuple(
            (seat, max(0, 10 - len(state.hands[seat])) + per_region * region_count(state, seat))
            for seat in range(seat_count)
        )
        state.step_after_deal = STEP_START_BATTLE
    else:  # final_battle: every card was gathered (VIC-4, CL-2)
        per_region = 2 if state.classic else 1
        state.hands = empty
        state.deal_queue = tuple(
            (seat, 10 + per_region * region_count(state, seat))
            for seat in range(seat_count)
            if state.takes_part[seat]
        )
        state.step_after_deal = STEP_START_BATTLE
    state.step = STEP_DEAL


def cards_dealt(state: State, event: Event) -> None:
    seat = event["seat"]
    cards = event["cards"]
    state.hands = replace_at(state.hands, seat, add_to_hand(state.hands[seat], cards))
    state.deck = state.deck[len(cards) :]
    state.deal_queue = state.deal_queue[1:]


def cards_drawn(state: State, event: Event) -> None:
    seat = event["seat"]
    cards = event["cards"]
    state.hands = replace_at(state.hands, seat, add_to_hand(state.hands[seat], cards))
    state.deck = state.deck[len(cards) :]
    deal_queue = state.deal_queue
    if deal_queue:
        still_owed = deal_queue[0][1] - len(cards)
        state.deal_queue = (((seat, still_owed),) if still_owed > 0 else ()) + deal_queue[1:]


def token_placed(state: State, event: Event) -> None:
    region = REGION_INDEX[event["region"]]
    state.holder = event["seat"]
    state.region = region
    owner = state.owners[region]
    state.defender = owner if owner is not None and owner != event["seat"] else None
    state.declines = 0
    state.final_battle = None
    state.step = STEP_DISCARD_LINES if state.concluding else STEP_START_BATTLE


def token_declined(state: State, event: Event) -> None:
    state.holder = event["to"]
    state.declines += 1


def card_played(state: State, event: Event) -> None:
    seat = event["seat"]
    card = event["card"]
    # Which of the move's own events completes it (see decide.play): until then nobody is awaited.
    if state.down[seat]:
        state.move_ends_with = "cards_revealed"
    elif card == "bishop" and not state.classic:
        state.move_ends_with = "pope_placed"
    elif card == "scarecrow":
        state.move_ends_with = "cards_discarded"
    elif card in ("winter", "spring"):
        opposite = "spring" if card == "winter" else "winter"
        if any(opposite in line for line in state.lines):
            state.move_ends_with = "cards_discarded"
    state.hands = replace_at(state.hands, seat, remove_one(state.hands[seat], card))
    if event.get("face_down"):
        state.down = replace_at(state.down, seat, state.down[seat] + (card,))
    else:
        state.lines = replace_at(state.lines, seat, state.lines[seat] + (card,))
    state.card_played = True
    if seat == state.defender:
        state.defender_played = True
    if card == "surrender" or (card == "bishop" and state.classic):  # SUR-1, BAT-7, CL-3
        state.end_cause = card
    else:
        state.turn = next_turn(state, seat)


def card_taken_back(state: State, event: Event) -> None:
    seat = event["seat"]
    card = event["card"]
    state.lines = replace_at(state.lines, seat, remove_one(state.lines[seat], card))
    state.hands = replace_at(state.hands, seat, add_to_hand(state.hands[seat], (card,)))


def cards_discarded(state: State, event: Event) -> None:
    lines = list(state.lines)
    gone = []
    for item in event["cards"]:
        seat = item["seat"]
        lines[seat] = remove_one(lines[seat], item["card"])
        gone.append(item["card"])
    state.lines = tuple(lines)
    state.discard = state.discard + tuple(gone)
    if state.move_ends_with == "cards_discarded":
        state.move_ends_with = None


def pope_placed(state: State, event: Event) -> None:
    region = event["region"]
    state.pope = None if region is None else REGION_INDEX[region]
    if state.move_ends_with == "pope_placed":
        state.move_ends_with = None


def cards_revealed(state: State, event: Event) -> None:
    seat = event["seat"]
    down = state.down[seat]
    for card in event["cards"]:
        down = remove_one(down, card)
    state.down = replace_at(state.down, seat, down)
    state.lines = replace_at(state.lines, seat, state.lines[seat] + tuple(event["cards"]))
    cause = event.get("cause")
    if cause == "pass":
        state.move_ends_with = "passed"
    elif cause == "next_card" and state.move_ends_with == "cards_revealed":
        state.move_ends_with = None


def passed(state: State, event: Event) -> None:
    seat = event["seat"]
    if state.move_ends_with == "passed":
        state.move_ends_with = None
    if event.get("final", True):
        state.passed = replace_at(state.passed, seat, True)
    turn = next_turn(state, seat)
    if turn is None:
        state.end_cause = "all_passed"  # BAT-7
    else:
        state.turn = turn


def battle_ended(state: State, event: Event) -> None:
    state.last_region = state.region
    state.last_winner = event["winner"]
    state.last_cause = event["cause"]
    state.last_strengths = tuple(event["strengths"])
    state.idle_battles = 0 if state.card_played else state.idle_battles + 1
    state.concluding = True
    state.turn = None
    state.step = STEP_AWARD_REGION


def region_won(state: State, event: Event) -> None:
    state.owners = replace_at(state.owners, REGION_INDEX[event["region"]], event["seat"])
    state.step = STEP_PASS_TOKEN


def token_passed(state: State, event: Event) -> None:
    state.holder = event["seat"]
    state.declines = 0
    state.region = None
    state.defender = None
    state.step = STEP_CHECK_VICTORY


def battle_lines_discarded(state: State, event: Event) -> None:
    state.discard = state.discard + tuple(item["card"] for item in event["cards"])
    empty = ((),) * state.seat_count
    state.lines = empty
    state.down = empty
    state.step = STEP_START_BATTLE if state.draw_after_battle else STEP_OFFER_HAND_DISCARD


def hand_discard_offered(state: State, event: Event) -> None:
    state.hand_discard_awaited = tuple(event["seats"])
    state.step = STEP_HAND_DISCARD


def hand_discarded(state: State, event: Event) -> None:
    seat = event["seat"]
    if event["discard"]:
        state.discard = state.discard + state.hands[seat]
        state.hands = replace_at(state.hands, seat, ())
    state.hand_discard_awaited = tuple(other for other in state.hand_discard_awaited if other != seat)


def round_ended(state: State, event: Event) -> None:
    state.round_holder = event["holder"]
    state.step = STEP_KEEP_CARDS


def cards_kept(state: State, event: Event) -> None:
    seat = event["seat"]
    state.discard = state.discard + tuple(event["discarded"])
    state.hands = replace_at(state.hands, seat, tuple(sorted(event["kept"])))
    state.step = STEP_SHUFFLE_FOR_ROUND


def final_battle_started(state: State, event: Event) -> None:
    seats = event["seats"]
    state.final_battle = "match" if state.winners is not None else "game"
    state.takes_part = tuple(seat in seats for seat in range(state.seat_count))
    state.turn = event["first"]
    state.region = None
    state.defender = None
    state.step = STEP_SHUFFLE_FOR_FINAL_BATTLE


def game_won(state: State, event: Event) -> None:
    state.winners = tuple(event["winners"])
    state.reason = event["reason"]
    state.final_battle = None
    if not state.points_target:
        state.step = STEP_GAME_OVER
    else:  # RL-11: a stalled game of a match scores nothing
        state.step = STEP_CHECK_MATCH if state.reason == "stalled" else STEP_SCORE_GAME


def game_scored(state: State, event: Event) -> None:
    state.scores = tuple(event["scores"])
    state.step = STEP_CHECK_MATCH


def match_won(state: State, event: Event) -> None:
    state.match_winners = tuple(event["winners"])
    if event.get("reason"):  # RL-11 stalled, RL-X17 resigned
        state.reason = event["reason"]
    state.final_battle = None
    state.step = STEP_GAME_OVER


# games.condottiere.leave registers the handlers of the leaving events here.
EVENT_HANDLERS: dict[str, Callable[[State, Event], None]] = {
    "first_condottiere_chosen": first_condottiere_chosen,
    "deck_shuffled": deck_shuffled,
    "cards_dealt": cards_dealt,
    "cards_drawn": cards_drawn,
    "token_placed": token_placed,
    "token_declined": token_declined,
    "card_played": card_played,
    "card_taken_back": card_taken_back,
    "cards_discarded": cards_discarded,
    "pope_placed": pope_placed,
    "cards_revealed": cards_revealed,
    "passed": passed,
    "battle_ended": battle_ended,
    "region_won": region_won,
    "token_passed": token_passed,
    "battle_lines_discarded": battle_lines_discarded,
    "hand_discard_offered": hand_discard_offered,
    "hand_discarded": hand_discarded,
    "round_ended": round_ended,
    "cards_kept": cards_kept,
    "final_battle_started": final_battle_started,
    "game_won": game_won,
    "game_scored": game_scored,
    "match_won": match_won,
}


@overload
def evolve(state: State, event: Event) -> State: ...
@overload
def evolve(state: None, event: Event) -> State | None: ...
def evolve(state: State | None, event: Event) -> State | None:
    """The state after ``event`` (a new object; ``state`` is not changed). An event of a type
    this engine does not know leaves the state as it was."""
    kind = event["type"]
    if kind == "game_started":
        return settle(game_started(state, event))
    handler = EVENT_HANDLERS.get(kind)
    if handler is None or state is None:
        return state
    if REVISION not in state.config and state.pending is not None and event != state.pending:
        # A log recorded before revisions existed that goes on as revision 1 would (config.py).
        state = read_as_revision_1(state) or state
    after = state.copy()
    handler(after, event)
    return settle(after)
