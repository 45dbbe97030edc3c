"""The rules: ``evolve`` (apply one event), the automatic-step machine and ``decide``.

Design. After every event, ``evolve`` *settles* the new state: it runs the step function of the
current step, which either emits the next automatic event (an automatic pass, a battle's
conclusion, a deal...), or names the seats whose decision is awaited, or moves on to the next step
when it has nothing to do. The result is cached in ``state.pending`` / ``state.awaiting``, so
``next_automatic_event`` is a lookup and ``decide`` is: the command's own events, then every pending
automatic event until a player must decide. Random outcomes are ``Chance`` markers, drawn only when
asked for, from ``Random(f"{seed}/{counter}")`` (RL-10), so everything here is a pure function.

The order of one battle's conclusion follows END-1..END-7 (2006) and section 9 (classic):
battle_ended, region_won, token_passed, (victory check: game_won), (OPT-DRAW: draws), choose the
next region (END-5, or VIC-3), battle_lines_discarded (END-6), hand discards (END-7, RL-3), round
end (RND-1..RND-3, CL-6), then the next battle starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random
from typing import Any

from games.base import CommandError
from games.condottiere.board import (
    ALL_CARDS,
    DECKS,
    HIDEABLE,
    MERCENARY,
    REGION_INDEX,
    REGIONS,
    largest_group,
)
from games.condottiere.state import State

Event = dict[str, Any]
NREG = len(REGIONS)
# RL-11: this many battles in a row ending with no card played end the game with no winner.
STALL_LIMIT = 10

# ---------------------------------------------------------------------------------------------
# Steps of the automatic machine
(
    ST_FIRST,
    ST_SHUFFLE_START,
    ST_DEAL,
    ST_CHOOSE,
    ST_LINES,
    ST_OFFER,
    ST_HAND,
    ST_ROUND,
    ST_KEEP,
    ST_ROUND_SHUFFLE,
    ST_START,
    ST_BATTLE,
    ST_REGION,
    ST_TOKEN,
    ST_VICTORY,
    ST_DRAW,
    ST_SCORE,
    ST_MATCH,
    ST_FB_SHUFFLE,
    ST_OVER,
) = range(20)


@dataclass(frozen=True, slots=True)
class Chance:
    """A random event to draw: ``kind`` is ``first`` or ``shuffle`` (with ``reason``)."""

    kind: str
    reason: str | None = None


def ev(type_: str, **fields: Any) -> Event:
    event = {"type": type_, "v": 1}
    event.update(fields)
    return event


# ---------------------------------------------------------------------------------------------
# Small helpers over tuples


def _set(t: tuple, i: int, value: Any) -> tuple:
    items = list(t)
    items[i] = value
    return tuple(items)


def _remove_one(t: tuple, card: str) -> tuple:
    """Remove one copy of ``card`` (the last one: cards of one kind are interchangeable)."""
    for i in range(len(t) - 1, -1, -1):
        if t[i] == card:
            return t[:i] + t[i + 1 :]
    return t


def _hand_add(hand: tuple, cards) -> tuple:
    return tuple(sorted(hand + tuple(cards)))


def region_mask(s: State, seat: int) -> int:
    mask = 0
    for i, owner in enumerate(s.owners):
        if owner == seat:
            mask |= 1 << i
    return mask


def region_count(s: State, seat: int) -> int:
    return sum(1 for owner in s.owners if owner == seat)


def regions_by_seat(s: State) -> list[list[str]]:
    out: list[list[str]] = [[] for _ in range(s.n)]
    for i, owner in enumerate(s.owners):
        if owner is not None:
            out[owner].append(REGIONS[i])
    return out


def strengths(lines) -> list[int]:
    """STR-1, STR-2, STR-3 over the given battle lines (every card in them counts)."""
    winter = spring = False
    top = 0
    for line in lines:
        for card in line:
            if card == "winter":
                winter = True
            elif card == "spring":
                spring = True
            else:
                value = MERCENARY.get(card)
                if value is not None and value > top:
                    top = value
    out = []
    for line in lines:
        total = 0
        drummer = "drummer" in line
        for card in line:
            value = MERCENARY.get(card)
            if value is not None:
                x = 1 if winter else value
                if drummer:
                    x *= 2
                if spring and value == top:
                    x += 3
                total += x
            elif card == "heroine":
                total += 10
            elif card == "courtesan":
                total += 1
        out.append(total)
    return out


def true_lines(s: State) -> list[tuple]:
    return [line + down for line, down in zip(s.lines, s.down, strict=True)]


def allowed_regions(s: State, seat: int) -> list[int]:
    """BAT-1 (free, not the Pope's), OPT-CAP-1 (also another player's), CL-5."""
    out = []
    pope = s.pope
    cap = s.cap
    for i, owner in enumerate(s.owners):
        if i == pope:
            continue
        if owner is None or (cap and owner != seat):
            out.append(i)
    return out


def pope_regions(s: State) -> list[int]:
    """BIS-2: a region without a control marker; OPT-CAP-4: any region."""
    if s.cap:
        return list(range(NREG))
    return [i for i, owner in enumerate(s.owners) if owner is None]


def victory_reason(s: State, seat: int) -> str | None:
    """VIC-1, VIC-2, OPT-BIG-1, CL-2. Adjacency is reported first: it is worth the OPT-POINTS-1
    bonus (ruling RL-X3)."""
    small = s.n <= 3
    adjacent_needed = (4 if small else 3) + (1 if s.big else 0)
    mask = region_mask(s, seat)
    if largest_group(mask) >= adjacent_needed:
        return "adjacent"
    if not s.classic and mask.bit_count() >= (6 if small else 5):
        return "total"
    return None


def first_from(holder: int, seats, n: int) -> int:
    """VIC-4: the token holder if among ``seats``, else the nearest of them to his left."""
    for k in range(n):
        seat = (holder + k) % n
        if seat in seats:
            return seat
    return seats[0]


def next_turn(s: State, seat: int) -> int | None:
    passed = s.passed
    n = s.n
    for k in range(1, n + 1):
        j = (seat + k) % n
        if not passed[j]:
            return j
    return None


def is_final_pass(s: State, seat: int) -> bool:
    """OPT-CAP-2: a defender who has played nothing passes freely; RL-4: unless everyone else
    has passed."""
    if s.defender == seat and s.cap and not s.defender_played:
        passed = s.passed
        return all(passed[j] for j in range(s.n) if j != seat)
    return True


def hand_limit(s: State, seat: int) -> int:
    return 10 + region_count(s, seat)  # OPT-DRAW-2


# ---------------------------------------------------------------------------------------------
# Step functions: return an event / a Chance (to emit), a tuple of seats (awaited), or None after
# moving ``s.step`` on (``s`` is a fresh copy that settle may change).


def st_first(s: State):
    if s.game_number > 1:  # RL-8
        return ev("first_condottiere_chosen", seat=(s.prev_first + 1) % s.n, drawn=False)
    chosen = s.config["first_condottiere"]
    if chosen is not None:
        return ev("first_condottiere_chosen", seat=chosen, drawn=False)
    return Chance("first")  # SET-2


def st_shuffle_start(s: State):
    order = s.config["deck_order"]
    if s.game_number == 1 and order is not None:
        return ev("deck_shuffled", cards=list(order), reason="start", count=len(order))
    return Chance("shuffle", "start")  # SET-3


def st_deal(s: State):
    queue = s.queue
    while queue and queue[0][1] <= 0:
        queue = queue[1:]
    if queue and s.deck:
        s.queue = queue
        seat, count = queue[0]
        cards = s.deck[:count]
        return ev("cards_dealt", seat=seat, cards=list(cards), count=len(cards))
    s.queue = ()
    s.step = s.deal_next
    return None


def st_choose(s: State):
    holder = s.holder
    if allowed_regions(s, holder):
        return (holder,)
    # END-5 -> VIC-3 / CL-2: nothing can be chosen; most regions wins, a tie is fought out (VIC-4)
    counts = [0] * s.n
    for owner in s.owners:
        if owner is not None:
            counts[owner] += 1
    best = max(counts)
    tied = [i for i in range(s.n) if counts[i] == best]
    if len(tied) == 1:
        return ev("game_won", winners=tied, reason="most_regions", regions=regions_by_seat(s))
    return ev("final_battle_started", seats=tied, first=first_from(holder, tied, s.n))


def st_lines(s: State):
    if any(s.lines) or any(s.down):  # END-6
        cards = [{"seat": i, "card": c} for i in range(s.n) for c in s.lines[i] + s.down[i]]
        return ev("battle_lines_discarded", cards=cards)
    s.step = ST_START if s.draw else ST_OFFER
    return None


def st_offer(s: State):
    # RL-12: eligibility (no Mercenary in hand) is hidden, so every seat holding cards is asked;
    # the event and the awaited seats depend only on public hand sizes.
    holders = [i for i, hand in enumerate(s.hands) if hand]
    if holders:  # END-7
        return ev("hand_discard_offered", seats=holders)
    s.step = ST_ROUND
    return None


def may_discard_hand(s: State, seat: int) -> bool:
    """END-7: a seat holding cards but no Mercenary may discard its whole hand."""
    hand = s.hands[seat]
    return bool(hand) and not any(c in MERCENARY for c in hand)


def st_hand(s: State):
    if s.hand_pending:
        return s.hand_pending
    s.step = ST_ROUND
    return None


def st_round(s: State):
    holders = [i for i, hand in enumerate(s.hands) if hand]
    if len(holders) <= 1:  # RND-1, CL-6
        return ev("round_ended", holder=holders[0] if holders else None)
    s.step = ST_START
    return None


def st_keep(s: State):
    seat = s.round_holder
    if seat is not None and s.hands[seat]:
        if s.classic:  # CL-6: that player's cards are discarded
            hand = s.hands[seat]
            return ev("hand_discarded", seat=seat, discard=True, cards=list(hand), count=len(hand), auto=True)
        return (seat,)  # RND-2
    s.step = ST_ROUND_SHUFFLE
    return None


def st_round_shuffle(s: State):
    return Chance("shuffle", "round")  # RND-3, CL-6


def st_start(s: State):
    n = s.n
    if s.fb:
        part = s.part
        turn = s.turn  # set by final_battle_started (VIC-4)
    else:
        part = (True,) * n
        turn = s.holder  # BAT-2
    s.part = part
    s.passed = tuple(not p for p in part)
    s.defender_played = False
    s.turn = turn
    s.end_cause = None
    s.concluding = False
    s.card_played = False
    s.step = ST_BATTLE
    return None


def st_battle(s: State):
    if s.end_cause is not None:
        for i, down in enumerate(s.down):
            if down:  # OPT-HID-3
                return ev("cards_revealed", seat=i, cards=list(down), cause="battle_end")
        return battle_ended_event(s)
    turn = s.turn
    if not s.hands[turn]:  # BAT-5
        return ev("passed", seat=turn, auto=True, final=is_final_pass(s, turn))
    return (turn,)


def battle_ended_event(s: State) -> Event:
    values = strengths(s.lines)
    winner = None
    if not (s.classic and s.end_cause == "bishop"):  # CL-3: no victor
        best = max(values[i] for i in range(s.n) if s.part[i])
        top = [i for i in range(s.n) if s.part[i] and values[i] == best]
        if len(top) == 1:  # END-1, END-2
            winner = top[0]
    region = None if s.region is None else REGIONS[s.region]
    return ev("battle_ended", region=region, strengths=values, winner=winner, cause=s.end_cause)


def st_region(s: State):
    if s.idle_battles >= STALL_LIMIT:  # RL-11: the game ends at once, nobody wins
        if s.fb == "match":
            return ev("match_won", winners=[], scores=list(s.scores), reason="stalled")
        return ev("game_won", winners=[], reason="stalled", regions=regions_by_seat(s))
    winner = s.last_winner
    if s.fb:
        if winner is not None:
            winners = [winner]
        elif s.classic:  # CL-2: a final battle without winner ends the game without winner
            winners = []
        else:  # VIC-4: the players tied for the highest strength share the victory
            values = s.last_strengths
            best = max(values[i] for i in range(s.n) if s.part[i])
            winners = [i for i in range(s.n) if s.part[i] and values[i] == best]
        if s.fb == "match":
            return ev("match_won", winners=winners, scores=list(s.scores))
        return ev(
            "game_won",
            winners=winners,
            reason="final_battle" if winners else "no_winner",
            regions=regions_by_seat(s),
        )
    if winner is not None and s.owners[s.region] != winner:
        return ev("region_won", seat=winner, region=REGIONS[s.region], **{"from": s.owners[s.region]})
    s.step = ST_TOKEN
    return None


def st_token(s: State):
    winner = s.last_winner
    seat = None
    if not s.classic:  # END-3, RL-5: the Courtesans come first
        counts = [sum(1 for c in line if c == "courtesan") for line in s.lines]
        best = max(counts)
        if best > 0 and counts.count(best) == 1:
            seat, cause = counts.index(best), "courtesans"
    if seat is None:
        if winner is not None:
            seat, cause = winner, "winner"  # END-3, CL-4
        elif s.defender is not None:
            seat, cause = s.defender, "defender"  # OPT-CAP-3, CL-7
        else:
            seat, cause = (s.holder + 1) % s.n, "left_neighbour"  # END-3, CL-4
    return ev("token_passed", seat=seat, cause=cause)


def st_victory(s: State):
    winner = s.last_winner
    if winner is not None:  # END-4: only the battle's winner gained a region
        reason = victory_reason(s, winner)
        if reason:
            return ev("game_won", winners=[winner], reason=reason, regions=regions_by_seat(s))
    if s.draw:  # OPT-DRAW-1..3, RL-7
        n = s.n
        amount = 3 if any(s.hands) else 10
        queue = []
        for k in range(n):
            seat = (s.holder + k) % n
            count = min(amount, hand_limit(s, seat) - len(s.hands[seat]))
            if count > 0:
                queue.append((seat, count))
        s.queue = tuple(queue)
        s.step = ST_DRAW
    else:
        s.step = ST_CHOOSE
    return None


def st_draw(s: State):
    queue = s.queue
    if queue:
        seat, count = queue[0]
        if s.deck:
            cards = s.deck[:count]
            return ev("cards_drawn", seat=seat, cards=list(cards), count=len(cards))
        if s.discard:  # RL-7
            return Chance("shuffle", "reshuffle")
        s.queue = ()  # ruling RL-X1: nothing left to draw
    s.step = ST_CHOOSE
    return None


def st_score(s: State):
    gained = [region_count(s, i) for i in range(s.n)]  # OPT-POINTS-1
    if s.reason == "adjacent" and len(s.winners) == 1:
        gained[s.winners[0]] += 5
    scores = [a + b for a, b in zip(s.scores, gained, strict=True)]
    return ev("game_scored", scores=scores, gained=gained)


def st_match(s: State):
    scores = s.scores
    if s.reason == "stalled":  # RL-11: the stalled game scores nothing and the match ends with it
        return ev("match_won", winners=[], scores=list(scores), reason="stalled")
    best = max(scores)
    if best >= s.target:  # OPT-POINTS-2, CL-7
        top = [i for i in range(s.n) if scores[i] == best]
        if len(top) == 1:
            return ev("match_won", winners=top, scores=list(scores))
        return ev("final_battle_started", seats=top, first=first_from(s.holder, top, s.n))
    return ev(
        "game_started", config=_config_copy(s.config), game_number=s.game_number + 1, scores=list(scores)
    )


def st_fb_shuffle(s: State):
    return Chance("shuffle", "final_battle")  # VIC-4


def st_over(s: State):
    return ()


STEPS = (
    st_first,
    st_shuffle_start,
    st_deal,
    st_choose,
    st_lines,
    st_offer,
    st_hand,
    st_round,
    st_keep,
    st_round_shuffle,
    st_start,
    st_battle,
    st_region,
    st_token,
    st_victory,
    st_draw,
    st_score,
    st_match,
    st_fb_shuffle,
    st_over,
)


def settle(s: State) -> State:
    if s.midmove is not None:  # the rest of a move's own events must come first
        s.pending = None
        s.awaiting = ()
        return s
    steps = STEPS
    while True:
        r = steps[s.step](s)
        if r is None:
            continue
        if type(r) is tuple:
            s.pending = None
            s.awaiting = r
        else:
            s.pending = r
            s.awaiting = ()
        return s


# ---------------------------------------------------------------------------------------------
# evolve


def _config_copy(config: dict) -> dict:
    """A copy that shares nothing mutable with ``config`` (events and states must not alias)."""
    copy = dict(config)
    copy["options"] = dict(config["options"])
    if config.get("deck_order") is not None:
        copy["deck_order"] = list(config["deck_order"])
    return copy


def new_state(config: dict, game_number: int = 1, scores=None, prev: State | None = None) -> State:
    s = object.__new__(State)
    config = _config_copy(config)
    n = config["players"]
    options = config["options"]
    s.config = config
    s.n = n
    s.classic = config["ruleset"] == "classic"
    s.draw = options["draw_after_battle"]
    s.target = options["points_target"]
    s.big = options["bigger_kingdoms"]
    s.cap = options["capturing"]
    s.hid = options["hidden_cards"]
    s.seed = config["seed"]
    s.rng = prev.rng if prev is not None else 0
    s.game_number = game_number
    s.scores = tuple(scores) if scores is not None else (0,) * n
    s.first = None
    s.prev_first = prev.first if prev is not None else None
    s.holder = None
    s.declines = 0
    s.pope = None
    s.owners = (None,) * NREG
    s.deck = ()
    s.discard = ()
    empty = ((),) * n
    s.hands = empty
    s.lines = empty
    s.down = empty
    s.step = ST_FIRST
    s.pending = None
    s.awaiting = ()
    s.queue = ()
    s.deal_next = ST_CHOOSE
    s.midmove = None
    s.region = None
    s.defender = None
    s.fb = None
    s.part = (True,) * n
    s.passed = (False,) * n
    s.defender_played = False
    s.turn = None
    s.end_cause = None
    s.concluding = False
    s.card_played = False
    s.idle_battles = 0
    s.last_region = None
    s.last_winner = None
    s.last_cause = None
    s.last_strengths = None
    s.hand_pending = ()
    s.round_holder = None
    s.winners = None
    s.reason = None
    s.match_winners = None
    return s


def _game_started(s: State | None, e: Event) -> State:
    return new_state(e["config"], e.get("game_number", 1), e.get("scores"), s)


def _first_chosen(s: State, e: Event) -> None:
    s.holder = s.first = e["seat"]
    if e.get("drawn"):
        s.rng += 1
    s.step = ST_SHUFFLE_START


def _deck_shuffled(s: State, e: Event) -> None:
    s.rng += 1
    cards = tuple(e["cards"])
    reason = e["reason"]
    n = s.n
    s.deck = cards
    if reason == "reshuffle":  # RL-7: the discard pile becomes the deck
        s.discard = ()
        return
    s.discard = ()
    empty = ((),) * n
    s.lines = empty
    s.down = empty
    if reason == "start":
        count = 7 if s.draw else 10  # SET-3, OPT-DRAW-1
        s.queue = tuple((i, count) for i in range(n))
        s.deal_next = ST_CHOOSE
    elif reason == "round":  # RND-3, CL-6
        per_region = 2 if s.classic else 1
        s.queue = tuple((i, max(0, 10 - len(s.hands[i])) + per_region * region_count(s, i)) for i in range(n))
        s.deal_next = ST_START
    else:  # final_battle: every card was gathered (VIC-4, CL-2)
        per_region = 2 if s.classic else 1
        s.hands = empty
        s.queue = tuple((i, 10 + per_region * region_count(s, i)) for i in range(n) if s.part[i])
        s.deal_next = ST_START
    s.step = ST_DEAL


def _cards_dealt(s: State, e: Event) -> None:
    seat = e["seat"]
    cards = e["cards"]
    s.hands = _set(s.hands, seat, _hand_add(s.hands[seat], cards))
    s.deck = s.deck[len(cards) :]
    s.queue = s.queue[1:]


def _cards_drawn(s: State, e: Event) -> None:
    seat = e["seat"]
    cards = e["cards"]
    s.hands = _set(s.hands, seat, _hand_add(s.hands[seat], cards))
    s.deck = s.deck[len(cards) :]
    queue = s.queue
    if queue:
        left = queue[0][1] - len(cards)
        s.queue = (((seat, left),) if left > 0 else ()) + queue[1:]


def _token_placed(s: State, e: Event) -> None:
    region = REGION_INDEX[e["region"]]
    s.holder = e["seat"]
    s.region = region
    owner = s.owners[region]
    s.defender = owner if owner is not None and owner != e["seat"] else None
    s.declines = 0
    s.fb = None
    s.step = ST_LINES if s.concluding else ST_START


def _token_declined(s: State, e: Event) -> None:
    s.holder = e["to"]
    s.declines += 1


def _card_played(s: State, e: Event) -> None:
    seat = e["seat"]
    card = e["card"]
    # Which of the move's own events completes it (see _play): until then nobody is awaited.
    if s.down[seat]:
        s.midmove = "cards_revealed"
    elif card == "bishop" and not s.classic:
        s.midmove = "pope_placed"
    elif card == "scarecrow":
        s.midmove = "cards_discarded"
    elif card in ("winter", "spring"):
        opposite = "spring" if card == "winter" else "winter"
        if any(opposite in line for line in s.lines):
            s.midmove = "cards_discarded"
    s.hands = _set(s.hands, seat, _remove_one(s.hands[seat], card))
    if e.get("face_down"):
        s.down = _set(s.down, seat, s.down[seat] + (card,))
    else:
        s.lines = _set(s.lines, seat, s.lines[seat] + (card,))
    s.card_played = True
    if seat == s.defender:
        s.defender_played = True
    if card == "surrender" or (card == "bishop" and s.classic):  # SUR-1, BAT-7, CL-3
        s.end_cause = card
    else:
        s.turn = next_turn(s, seat)


def _card_taken_back(s: State, e: Event) -> None:
    seat = e["seat"]
    card = e["card"]
    s.lines = _set(s.lines, seat, _remove_one(s.lines[seat], card))
    s.hands = _set(s.hands, seat, _hand_add(s.hands[seat], (card,)))


def _cards_discarded(s: State, e: Event) -> None:
    lines = list(s.lines)
    gone = []
    for item in e["cards"]:
        seat = item["seat"]
        lines[seat] = _remove_one(lines[seat], item["card"])
        gone.append(item["card"])
    s.lines = tuple(lines)
    s.discard = s.discard + tuple(gone)
    if s.midmove == "cards_discarded":
        s.midmove = None


def _pope_placed(s: State, e: Event) -> None:
    region = e["region"]
    s.pope = None if region is None else REGION_INDEX[region]
    if s.midmove == "pope_placed":
        s.midmove = None


def _cards_revealed(s: State, e: Event) -> None:
    seat = e["seat"]
    down = s.down[seat]
    for card in e["cards"]:
        down = _remove_one(down, card)
    s.down = _set(s.down, seat, down)
    s.lines = _set(s.lines, seat, s.lines[seat] + tuple(e["cards"]))
    cause = e.get("cause")
    if cause == "pass":
        s.midmove = "passed"
    elif cause == "next_card" and s.midmove == "cards_revealed":
        s.midmove = None


def _passed(s: State, e: Event) -> None:
    seat = e["seat"]
    if s.midmove == "passed":
        s.midmove = None
    if e.get("final", True):
        s.passed = _set(s.passed, seat, True)
    turn = next_turn(s, seat)
    if turn is None:
        s.end_cause = "all_passed"  # BAT-7
    else:
        s.turn = turn


def _battle_ended(s: State, e: Event) -> None:
    s.last_region = s.region
    s.last_winner = e["winner"]
    s.last_cause = e["cause"]
    s.last_strengths = tuple(e["strengths"])
    s.idle_battles = 0 if s.card_played else s.idle_battles + 1
    s.concluding = True
    s.turn = None
    s.step = ST_REGION


def _region_won(s: State, e: Event) -> None:
    s.owners = _set(s.owners, REGION_INDEX[e["region"]], e["seat"])
    s.step = ST_TOKEN


def _token_passed(s: State, e: Event) -> None:
    s.holder = e["seat"]
    s.declines = 0
    s.region = None
    s.defender = None
    s.step = ST_VICTORY


def _battle_lines_discarded(s: State, e: Event) -> None:
    s.discard = s.discard + tuple(item["card"] for item in e["cards"])
    empty = ((),) * s.n
    s.lines = empty
    s.down = empty
    s.step = ST_START if s.draw else ST_OFFER


def _hand_discard_offered(s: State, e: Event) -> None:
    s.hand_pending = tuple(e["seats"])
    s.step = ST_HAND


def _hand_discarded(s: State, e: Event) -> None:
    seat = e["seat"]
    if e["discard"]:
        s.discard = s.discard + s.hands[seat]
        s.hands = _set(s.hands, seat, ())
    s.hand_pending = tuple(x for x in s.hand_pending if x != seat)


def _round_ended(s: State, e: Event) -> None:
    s.round_holder = e["holder"]
    s.step = ST_KEEP


def _cards_kept(s: State, e: Event) -> None:
    seat = e["seat"]
    s.discard = s.discard + tuple(e["discarded"])
    s.hands = _set(s.hands, seat, tuple(sorted(e["kept"])))
    s.step = ST_ROUND_SHUFFLE


def _final_battle_started(s: State, e: Event) -> None:
    seats = e["seats"]
    s.fb = "match" if s.winners is not None else "game"
    s.part = tuple(i in seats for i in range(s.n))
    s.turn = e["first"]
    s.region = None
    s.defender = None
    s.step = ST_FB_SHUFFLE


def _game_won(s: State, e: Event) -> None:
    s.winners = tuple(e["winners"])
    s.reason = e["reason"]
    s.fb = None
    if not s.target:
        s.step = ST_OVER
    else:  # RL-11: a stalled game of a match scores nothing
        s.step = ST_MATCH if s.reason == "stalled" else ST_SCORE


def _game_scored(s: State, e: Event) -> None:
    s.scores = tuple(e["scores"])
    s.step = ST_MATCH


def _match_won(s: State, e: Event) -> None:
    s.match_winners = tuple(e["winners"])
    if e.get("reason"):  # RL-11 stalled, RL-X17 resigned
        s.reason = e["reason"]
    s.fb = None
    s.step = ST_OVER


HANDLERS = {
    "first_condottiere_chosen": _first_chosen,
    "deck_shuffled": _deck_shuffled,
    "cards_dealt": _cards_dealt,
    "cards_drawn": _cards_drawn,
    "token_placed": _token_placed,
    "token_declined": _token_declined,
    "card_played": _card_played,
    "card_taken_back": _card_taken_back,
    "cards_discarded": _cards_discarded,
    "pope_placed": _pope_placed,
    "cards_revealed": _cards_revealed,
    "passed": _passed,
    "battle_ended": _battle_ended,
    "region_won": _region_won,
    "token_passed": _token_passed,
    "battle_lines_discarded": _battle_lines_discarded,
    "hand_discard_offered": _hand_discard_offered,
    "hand_discarded": _hand_discarded,
    "round_ended": _round_ended,
    "cards_kept": _cards_kept,
    "final_battle_started": _final_battle_started,
    "game_won": _game_won,
    "game_scored": _game_scored,
    "match_won": _match_won,
}


def evolve(s: State | None, e: Event) -> State:
    kind = e["type"]
    if kind == "game_started":
        return settle(_game_started(s, e))
    handler = HANDLERS.get(kind)
    if handler is None or s is None:
        return s
    o = s.copy()
    handler(o, e)
    return settle(o)


# ---------------------------------------------------------------------------------------------
# Chance and automatic events


def shuffle_source(s: State, reason: str) -> list[str]:
    """The cards a shuffle for ``reason`` gathers, in a canonical (sorted) order."""
    if reason in ("start", "final_battle"):
        return list(DECKS[s.config["ruleset"]])
    if reason == "reshuffle":
        return sorted(s.discard)
    cards = list(s.deck) + list(s.discard)
    for line, down in zip(s.lines, s.down, strict=True):
        cards.extend(line)
        cards.extend(down)
    cards.sort()
    return cards


def next_automatic_event(s: State) -> Event | None:
    """The automatic event the rules produce now, or None when a player must decide (or the game
    is over)."""
    p = s.pending
    if p is None:
        return None
    if type(p) is Chance:
        rng = Random(f"{s.seed}/{s.rng}")
        if p.kind == "first":
            return ev("first_condottiere_chosen", seat=rng.randrange(s.n), drawn=True)
        cards = shuffle_source(s, p.reason)
        rng.shuffle(cards)
        return ev("deck_shuffled", cards=cards, reason=p.reason, count=len(cards))
    return dict(p)


def run_automatic(s: State, out: list[Event]) -> State:
    """Append every automatic event to ``out`` until a player must decide; return the state."""
    guard = 0
    while s.pending is not None:
        e = next_automatic_event(s)
        out.append(e)
        s = evolve(s, e)
        guard += 1
        if guard > 100_000:  # a bug, never a rule: every automatic chain is short
            raise RuntimeError("automatic events do not stop")
    return s


# ---------------------------------------------------------------------------------------------
# Commands


def _require(condition: bool, code: str, message: str, rule: str | None = None) -> None:
    if not condition:
        raise CommandError(code, message, rule)


def _fields(command: dict, allowed: tuple[str, ...]) -> None:
    extra = set(command) - set(allowed) - {"type"}
    if extra:
        raise CommandError("INVALID_COMMAND", f"Unexpected field(s): {', '.join(sorted(extra))}.")


def command_events(s: State, seat: Any, command: Any) -> list[Event]:
    """Validate ``command`` by ``seat`` and return the events it causes directly (without the
    automatic events that follow)."""
    if not isinstance(command, dict) or not isinstance(command.get("type"), str):
        raise CommandError("INVALID_COMMAND", 'A command is an object with a string "type".')
    if s is None:
        raise CommandError("GAME_NOT_STARTED", "The game has not started.")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < s.n:
        raise CommandError("INVALID_SEAT", "No such seat in this game.")
    if s.step == ST_OVER:
        raise CommandError("GAME_OVER", "The game is over.")
    kind = command["type"]
    handler = COMMANDS.get(kind)
    if handler is None:
        raise CommandError("UNKNOWN_COMMAND", f"Unknown command type {kind!r}.")
    return handler(s, seat, command)


def _not_your_turn(s: State, seat: int) -> CommandError:
    if s.step == ST_BATTLE and s.passed[seat] and s.part[seat]:
        return CommandError("ALREADY_PASSED", "You have passed in this battle.", "BAT-4")
    return CommandError("NOT_YOUR_TURN", "It is not your turn to do that.")


def _place_token(s: State, seat: int, command: dict) -> list[Event]:
    _fields(command, ("region",))
    if s.step != ST_CHOOSE or s.awaiting != (seat,):
        raise _not_your_turn(s, seat)
    name = command.get("region")
    _require(isinstance(name, str), "INVALID_COMMAND", "region must be a region name.")
    _require(name in REGION_INDEX, "UNKNOWN_REGION", f"There is no region {name!r}.", "MAP-1")
    region = REGION_INDEX[name]
    if region not in allowed_regions(s, seat):
        if region == s.pope:
            raise CommandError("REGION_NOT_ALLOWED", f"The Pope is in {name}.", "BAT-1")
        owner = s.owners[region]
        if owner == seat:
            raise CommandError("REGION_NOT_ALLOWED", f"You control {name} already.", "OPT-CAP-1")
        raise CommandError("REGION_NOT_ALLOWED", f"{name} is controlled by seat {owner}.", "BAT-1")
    owner = s.owners[region]
    defender = owner if owner is not None and owner != seat else None
    return [ev("token_placed", seat=seat, region=name, defender=defender)]


def _decline_token(s: State, seat: int, command: dict) -> list[Event]:
    _fields(command, ())
    if s.step != ST_CHOOSE or s.awaiting != (seat,):
        raise _not_your_turn(s, seat)
    _require(s.classic, "CANNOT_DECLINE", "Only the classic edition lets the token holder decline.", "CL-5")
    _require(
        s.declines < s.n,
        "CANNOT_DECLINE",
        "Every player has declined since the last battle: you must choose.",
        "RL-9",
    )
    return [ev("token_declined", seat=seat, to=(seat + 1) % s.n)]


def _play(s: State, seat: int, command: dict) -> list[Event]:
    card = command.get("card")
    _fields(command, ("card", "take_back", "pope"))
    # A null choice that does not apply is harmless; a real one is a client's mistake.
    if card != "scarecrow" and command.get("take_back") is not None:
        raise CommandError("INVALID_TAKE_BACK", "Only a Scarecrow takes a card back.", "SCA-1")
    if (card != "bishop" or s.classic) and command.get("pope") is not None:
        raise CommandError(
            "INVALID_POPE_REGION", "Only a Bishop of the 2006 edition moves the Pope.", "BIS-2"
        )
    if s.step != ST_BATTLE or s.awaiting != (seat,):
        raise _not_your_turn(s, seat)
    _require(isinstance(card, str) and card in ALL_CARDS, "INVALID_COMMAND", "card must be a card code.")
    hand = s.hands[seat]
    _require(card in hand, "CARD_NOT_IN_HAND", "You do not hold that card.", "BAT-3")
    face_down = s.hid and card in HIDEABLE  # OPT-HID-1
    events = [ev("card_played", seat=seat, card=card, face_down=face_down)]
    lines = s.lines
    if card == "winter":  # WIN-1
        springs = [{"seat": i, "card": c} for i in range(s.n) for c in lines[i] if c == "spring"]
        if springs:
            events.append(ev("cards_discarded", cause="winter", cards=springs))
    elif card == "spring":  # SPR-1
        winters = [{"seat": i, "card": c} for i in range(s.n) for c in lines[i] if c == "winter"]
        if winters:
            events.append(ev("cards_discarded", cause="spring", cards=winters))
    elif card == "scarecrow":  # SCA-1, OPT-HID-5
        take = command.get("take_back")
        if take is not None:
            _require(
                isinstance(take, str) and take in MERCENARY and take in lines[seat],
                "INVALID_TAKE_BACK",
                "The Scarecrow takes back only a face-up Mercenary from your own line.",
                "SCA-1",
            )
            events.append(ev("card_taken_back", seat=seat, card=take))
        events.append(ev("cards_discarded", cause="scarecrow", cards=[{"seat": seat, "card": "scarecrow"}]))
    elif card == "bishop" and not s.classic:  # BIS-1, BIS-2, OPT-HID-5, OPT-CAP-4, RL-2
        pope = command.get("pope")
        if pope is not None:
            _require(
                isinstance(pope, str) and pope in REGION_INDEX,
                "INVALID_POPE_REGION",
                "pope must be a region name or null.",
                "BIS-2",
            )
            _require(
                REGION_INDEX[pope] in pope_regions(s),
                "INVALID_POPE_REGION",
                f"The Pope cannot go to {pope}: a player controls it.",
                "BIS-2",
            )
        top = 0
        for line in lines:
            for c in line:
                value = MERCENARY.get(c)
                if value is not None and value > top:
                    top = value
        gone = [
            {"seat": i, "card": c} for i in range(s.n) for c in lines[i] if top and MERCENARY.get(c) == top
        ]
        gone.append({"seat": seat, "card": "bishop"})
        events.append(ev("cards_discarded", cause="bishop", cards=gone))
        events.append(ev("pope_placed", seat=seat, region=pope))
    if s.down[seat]:  # OPT-HID-2, RL-6: the earlier face-down card turns up after the effect
        events.append(ev("cards_revealed", seat=seat, cards=list(s.down[seat]), cause="next_card"))
    return events


def _pass(s: State, seat: int, command: dict) -> list[Event]:
    _fields(command, ("reveal",))
    if s.step != ST_BATTLE or s.awaiting != (seat,):
        raise _not_your_turn(s, seat)
    reveal = command.get("reveal", False)
    _require(isinstance(reveal, bool) or reveal is None, "INVALID_COMMAND", "reveal must be true or false.")
    events = []
    if reveal:  # OPT-HID-2
        _require(bool(s.down[seat]), "INVALID_COMMAND", "You have no face-down card to reveal.", "OPT-HID-2")
        events.append(ev("cards_revealed", seat=seat, cards=list(s.down[seat]), cause="pass"))
    events.append(ev("passed", seat=seat, auto=False, final=is_final_pass(s, seat)))
    return events


def _discard_hand(s: State, seat: int, command: dict) -> list[Event]:
    _fields(command, ("discard",))
    if s.step != ST_HAND or seat not in s.hand_pending:
        raise _not_your_turn(s, seat)
    discard = command.get("discard")
    _require(isinstance(discard, bool), "INVALID_COMMAND", "discard must be true or false.")
    if discard:  # only the asking seat ever sees this refusal (RL-12)
        _require(
            may_discard_hand(s, seat),
            "NOT_ELIGIBLE",
            "You hold a Mercenary: you may only keep your hand.",
            "END-7",
        )
    cards = list(s.hands[seat]) if discard else []
    return [ev("hand_discarded", seat=seat, discard=discard, cards=cards, count=len(cards))]


def _keep_cards(s: State, seat: int, command: dict) -> list[Event]:
    _fields(command, ("cards",))
    if s.step != ST_KEEP or s.awaiting != (seat,):
        raise _not_your_turn(s, seat)
    cards = command.get("cards")
    _require(
        isinstance(cards, list) and all(isinstance(c, str) for c in cards),
        "INVALID_COMMAND",
        "cards must be a list of card codes.",
    )
    _require(len(cards) <= 2, "TOO_MANY_CARDS", "You may keep at most two cards.", "RND-2")
    rest = list(s.hands[seat])
    for c in cards:
        _require(c in rest, "CARD_NOT_IN_HAND", "You do not hold those cards.", "RND-2")
        rest.remove(c)
    kept = sorted(cards)
    return [
        ev(
            "cards_kept",
            seat=seat,
            kept=kept,
            discarded=rest,
            kept_count=len(kept),
            discarded_count=len(rest),
        )
    ]


COMMANDS = {
    "place_token": _place_token,
    "decline_token": _decline_token,
    "play": _play,
    "pass": _pass,
    "discard_hand": _discard_hand,
    "keep_cards": _keep_cards,
}


def decide(s: State, seat: Any, command: Any) -> list[Event]:
    events = command_events(s, seat, command)
    for e in events:
        s = evolve(s, e)
    out = list(events)
    run_automatic(s, out)
    return out


def start(config: dict) -> list[Event]:
    first = ev("game_started", config=config, game_number=1, scores=[0] * config["players"])
    out = [first]
    run_automatic(evolve(None, first), out)
    return out
