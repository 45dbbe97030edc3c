"""``decide``: validate a seat's command and return the events it causes, followed by every
automatic event until a player must decide again; ``start`` opens a game the same way.

A refused command raises ``CommandError`` with a stable code and, where one applies, the rule ID."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.base import CommandError
from games.condottiere.automatic import run_automatic
from games.condottiere.board import ALL_CARDS, HIDEABLE, MERCENARY, REGION_INDEX
from games.condottiere.events import Event, make_event
from games.condottiere.evolve import evolve
from games.condottiere.queries import allowed_regions, is_final_pass, may_discard_hand, pope_regions
from games.condottiere.state import State
from games.condottiere.steps import (
    STEP_BATTLE,
    STEP_GAME_OVER,
    STEP_HAND_DISCARD,
    STEP_KEEP_CARDS,
    STEP_PLACE_TOKEN,
)


def _require(condition: bool, code: str, message: str, rule: str | None = None) -> None:
    if not condition:
        raise CommandError(code, message, rule)


def _only_fields(command: dict, allowed: tuple[str, ...]) -> None:
    extra = set(command) - set(allowed) - {"type"}
    if extra:
        raise CommandError("INVALID_COMMAND", f"Unexpected field(s): {', '.join(sorted(extra))}.")


def check_seat(state: State | None, seat: Any) -> State:
    """Refuse a command to a game not started yet or already over, or from a seat it does not have;
    the started game's state otherwise."""
    if state is None:
        raise CommandError("GAME_NOT_STARTED", "The game has not started.")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.seat_count:
        raise CommandError("INVALID_SEAT", "No such seat in this game.")
    if state.step == STEP_GAME_OVER:
        raise CommandError("GAME_OVER", "The game is over.")
    return state


def command_events(state: State | None, seat: Any, command: Any) -> list[Event]:
    """Validate ``command`` by ``seat`` and return the events it causes directly (without the
    automatic events that follow)."""
    if not isinstance(command, dict) or not isinstance(command.get("type"), str):
        raise CommandError("INVALID_COMMAND", 'A command is an object with a string "type".')
    state = check_seat(state, seat)
    kind = command["type"]
    if kind == "undo":  # RL-X20 (docs/rulings.md): every decision shows something or passes the turn
        raise CommandError("NOTHING_TO_UNDO", "No Condottiere decision can be taken back.", "RL-X20")
    handler = COMMANDS.get(kind)
    if handler is None:
        raise CommandError("UNKNOWN_COMMAND", f"Unknown command type {kind!r}.")
    return handler(state, seat, command)


def _not_your_turn(state: State, seat: int) -> CommandError:
    if state.step == STEP_BATTLE and state.passed[seat] and state.takes_part[seat]:
        return CommandError("ALREADY_PASSED", "You have passed in this battle.", "BAT-4")
    return CommandError("NOT_YOUR_TURN", "It is not your turn to do that.")


def place_token(state: State, seat: int, command: dict) -> list[Event]:
    _only_fields(command, ("region",))
    if state.step != STEP_PLACE_TOKEN or state.awaiting != (seat,):
        raise _not_your_turn(state, seat)
    name = command.get("region")
    if not isinstance(name, str):
        raise CommandError("INVALID_COMMAND", "region must be a region name.")
    _require(name in REGION_INDEX, "UNKNOWN_REGION", f"There is no region {name!r}.", "MAP-1")
    region = REGION_INDEX[name]
    if region not in allowed_regions(state, seat):
        if region == state.pope:
            raise CommandError("REGION_NOT_ALLOWED", f"The Pope is in {name}.", "BAT-1")
        owner = state.owners[region]
        if owner == seat:
            raise CommandError("REGION_NOT_ALLOWED", f"You control {name} already.", "OPT-CAP-1")
        raise CommandError("REGION_NOT_ALLOWED", f"{name} is controlled by seat {owner}.", "BAT-1")
    owner = state.owners[region]
    defender = owner if owner is not None and owner != seat else None
    return [make_event("token_placed", seat=seat, region=name, defender=defender)]


def decline_token(state: State, seat: int, command: dict) -> list[Event]:
    _only_fields(command, ())
    if state.step != STEP_PLACE_TOKEN or state.awaiting != (seat,):
        raise _not_your_turn(state, seat)
    _require(
        state.classic, "CANNOT_DECLINE", "Only the classic edition lets the token holder decline.", "CL-5"
    )
    _require(
        state.declines < state.seat_count,
        "CANNOT_DECLINE",
        "Every player has declined since the last battle: you must choose.",
        "RL-9",
    )
    return [make_event("token_declined", seat=seat, to=(seat + 1) % state.seat_count)]


def play(state: State, seat: int, command: dict) -> list[Event]:
    card = command.get("card")
    _only_fields(command, ("card", "take_back", "pope"))
    # A null choice that does not apply is harmless; a real one is a client's mistake.
    if card != "scarecrow" and command.get("take_back") is not None:
        raise CommandError("INVALID_TAKE_BACK", "Only a Scarecrow takes a card back.", "SCA-1")
    if (card != "bishop" or state.classic) and command.get("pope") is not None:
        raise CommandError(
            "INVALID_POPE_REGION", "Only a Bishop of the 2006 edition moves the Pope.", "BIS-2"
        )
    if state.step != STEP_BATTLE or state.awaiting != (seat,):
        raise _not_your_turn(state, seat)
    _require(isinstance(card, str) and card in ALL_CARDS, "INVALID_COMMAND", "card must be a card code.")
    hand = state.hands[seat]
    _require(card in hand, "CARD_NOT_IN_HAND", "You do not hold that card.", "BAT-3")
    face_down = state.hidden_cards and card in HIDEABLE  # OPT-HID-1
    events = [make_event("card_played", seat=seat, card=card, face_down=face_down)]
    lines = state.lines
    seats = range(state.seat_count)
    if card == "winter":  # WIN-1
        springs = [{"seat": other, "card": c} for other in seats for c in lines[other] if c == "spring"]
        if springs:
            events.append(make_event("cards_discarded", cause="winter", cards=springs))
    elif card == "spring":  # SPR-1
        winters = [{"seat": other, "card": c} for other in seats for c in lines[other] if c == "winter"]
        if winters:
            events.append(make_event("cards_discarded", cause="spring", cards=winters))
    elif card == "scarecrow":  # SCA-1, OPT-HID-5
        take = command.get("take_back")
        if take is not None:
            _require(
                isinstance(take, str) and take in MERCENARY and take in lines[seat],
                "INVALID_TAKE_BACK",
                "The Scarecrow takes back only a face-up Mercenary from your own line.",
                "SCA-1",
            )
            events.append(make_event("card_taken_back", seat=seat, card=take))
        scarecrow = [{"seat": seat, "card": "scarecrow"}]
        events.append(make_event("cards_discarded", cause="scarecrow", cards=scarecrow))
    elif card == "bishop" and not state.classic:  # BIS-1, BIS-2, OPT-HID-5, OPT-CAP-4, RL-2
        pope = command.get("pope")
        if pope is not None:
            _require(
                isinstance(pope, str) and pope in REGION_INDEX,
                "INVALID_POPE_REGION",
                "pope must be a region name or null.",
                "BIS-2",
            )
            _require(
                REGION_INDEX[pope] in pope_regions(state),
                "INVALID_POPE_REGION",
                f"The Pope cannot go to {pope}: a player controls it.",
                "BIS-2",
            )
        highest_mercenary = 0
        for line in lines:
            for c in line:
                value = MERCENARY.get(c)
                if value is not None and value > highest_mercenary:
                    highest_mercenary = value
        gone = [
            {"seat": other, "card": c}
            for other in seats
            for c in lines[other]
            if highest_mercenary and MERCENARY.get(c) == highest_mercenary
        ]
        gone.append({"seat": seat, "card": "bishop"})
        events.append(make_event("cards_discarded", cause="bishop", cards=gone))
        events.append(make_event("pope_placed", seat=seat, region=pope))
    if state.down[seat]:  # OPT-HID-2, RL-6: the earlier face-down card turns up after the effect
        events.append(
            make_event("cards_revealed", seat=seat, cards=list(state.down[seat]), cause="next_card")
        )
    return events


def pass_(state: State, seat: int, command: dict) -> list[Event]:
    _only_fields(command, ("reveal",))
    if state.step != STEP_BATTLE or state.awaiting != (seat,):
        raise _not_your_turn(state, seat)
    reveal = command.get("reveal", False)
    _require(isinstance(reveal, bool) or reveal is None, "INVALID_COMMAND", "reveal must be true or false.")
    events = []
    if reveal:  # OPT-HID-2
        _require(
            bool(state.down[seat]), "INVALID_COMMAND", "You have no face-down card to reveal.", "OPT-HID-2"
        )
        events.append(make_event("cards_revealed", seat=seat, cards=list(state.down[seat]), cause="pass"))
    events.append(make_event("passed", seat=seat, auto=False, final=is_final_pass(state, seat)))
    return events


def discard_hand(state: State, seat: int, command: dict) -> list[Event]:
    _only_fields(command, ("discard",))
    if state.step != STEP_HAND_DISCARD or seat not in state.hand_discard_awaited:
        raise _not_your_turn(state, seat)
    discard = command.get("discard")
    _require(isinstance(discard, bool), "INVALID_COMMAND", "discard must be true or false.")
    if discard:  # only the asking seat ever sees this refusal (RL-12)
        _require(
            may_discard_hand(state, seat),
            "NOT_ELIGIBLE",
            "You hold a Mercenary: you may only keep your hand.",
            "END-7",
        )
    cards = list(state.hands[seat]) if discard else []
    return [make_event("hand_discarded", seat=seat, discard=discard, cards=cards, count=len(cards))]


def keep_cards(state: State, seat: int, command: dict) -> list[Event]:
    _only_fields(command, ("cards",))
    if state.step != STEP_KEEP_CARDS or state.awaiting != (seat,):
        raise _not_your_turn(state, seat)
    cards = command.get("cards")
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise CommandError("INVALID_COMMAND", "cards must be a list of card codes.")
    _require(len(cards) <= 2, "TOO_MANY_CARDS", "You may keep at most two cards.", "RND-2")
    rest = list(state.hands[seat])
    for card in cards:
        _require(card in rest, "CARD_NOT_IN_HAND", "You do not hold those cards.", "RND-2")
        rest.remove(card)
    kept = sorted(cards)
    return [
        make_event(
            "cards_kept",
            seat=seat,
            kept=kept,
            discarded=rest,
            kept_count=len(kept),
            discarded_count=len(rest),
        )
    ]


COMMANDS: dict[str, Callable[[State, int, dict], list[Event]]] = {
    "place_token": place_token,
    "decline_token": decline_token,
    "play": play,
    "pass": pass_,
    "discard_hand": discard_hand,
    "keep_cards": keep_cards,
}


def decide(state: State, seat: Any, command: Any) -> list[Event]:
    """The events ``command`` by ``seat`` causes, then every automatic event that follows until a
    player must decide; raises ``CommandError`` if the command is refused."""
    return decide_and_evolve(state, seat, command)[0]


def decide_and_evolve(state: State, seat: Any, command: Any) -> tuple[list[Event], State]:
    """``decide``'s events and the state after them (each event evolved once)."""
    events = command_events(state, seat, command)
    for event in events:
        state = evolve(state, event)
    out = list(events)
    return out, run_automatic(state, out)


def start(config: dict[str, Any]) -> list[Event]:
    """The opening events of a game with a configured ``config``: ``game_started``, then the
    automatic events up to the first decision."""
    first = make_event("game_started", config=config, game_number=1, scores=[0] * config["players"])
    out = [first]
    started = evolve(None, first)
    assert started is not None, "game_started makes a state"
    run_automatic(started, out)
    return out
