"""Replaying a log through the rules (``verify_log``): the first event the rules do not accept."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from games.base import COMMITMENT, CommandError, ConfigError, LogError, is_recorded_form
from games.condottiere.automatic import next_automatic_event
from games.condottiere.config import configure
from games.condottiere.decide import command_events
from games.condottiere.events import Chance
from games.condottiere.evolve import evolve
from games.condottiere.leave import LEAVE_EVENTS, events_for
from games.condottiere.queries import shuffle_source
from games.condottiere.steps import STEP_GAME_OVER, read_as_revision_1

PLAYER_EVENTS = {
    "token_placed",
    "token_declined",
    "card_played",
    "cards_revealed",
    "passed",
    "hand_discarded",
    "cards_kept",
}


def command_of(events: Sequence[dict], i: int) -> dict | None:
    """The command that the player event ``events[i]`` (and those right after it) expresses."""
    e = events[i]
    kind = e.get("type")
    if kind == "token_placed":
        return {"type": "place_token", "region": e.get("region")}
    if kind == "token_declined":
        return {"type": "decline_token"}
    if kind == "card_played":
        command = {"type": "play", "card": e.get("card")}
        following = events[i + 1 : i + 4]
        if e.get("card") == "scarecrow":
            command["take_back"] = None
            if following and following[0].get("type") == "card_taken_back":
                command["take_back"] = following[0].get("card")
        elif e.get("card") == "bishop":
            for later in following:
                if later.get("type") == "pope_placed":
                    command["pope"] = later.get("region")
                    break
        return command
    if kind == "cards_revealed" and e.get("cause") == "pass":
        return {"type": "pass", "reveal": True}
    if kind == "passed" and not e.get("auto"):
        return {"type": "pass", "reveal": False}
    if kind == "hand_discarded" and not e.get("auto"):
        return {"type": "discard_hand", "discard": e.get("discard")}
    if kind == "cards_kept":
        return {"type": "keep_cards", "cards": e.get("kept")}
    return None


def _chance_ok(state: Any, expected: Chance, e: dict) -> str | None:
    """None when ``e`` is a valid outcome of the random draw ``expected``, else why not."""
    if expected.kind == "first":
        if e.get("type") != "first_condottiere_chosen" or not e.get("drawn"):
            return "expected the drawn first Condottiere (first_condottiere_chosen)"
        seat = e.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.seat_count:
            return "the drawn first Condottiere is not a seat of this game"
        if set(e) != {"type", "v", "seat", "drawn"}:
            return "unexpected fields in first_condottiere_chosen"
        return None
    if e.get("type") != "deck_shuffled" or e.get("reason") != expected.reason:
        return f"expected deck_shuffled with reason {expected.reason!r}"
    cards = e.get("cards")
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        return "deck_shuffled must list the cards (a redacted log cannot be verified)"
    if expected.reason is None or Counter(cards) != Counter(shuffle_source(state, expected.reason)):
        return "the shuffled cards are not the cards this shuffle gathers"
    if e.get("count") != len(cards) or set(e) != {"type", "v", "cards", "reason", "count"}:
        return "deck_shuffled fields do not match"
    return None


def verify_log(events: Sequence[dict]) -> LogError | None:
    state = None
    read_as: int | None = None  # the revision a log naming none turns out to follow (config.py)
    total = len(events)
    i = 0
    while i < total:
        e = events[i]
        if not isinstance(e, dict) or not isinstance(e.get("type"), str):
            return LogError(
                i,
                "MALFORMED_EVENT",
                "An event is an object with a string type.",
                None,
                e if isinstance(e, dict) else None,
            )
        if e.get("v") != 1:
            return LogError(i, "UNSUPPORTED_VERSION", "Only version 1 events are known.", None, e)
        if state is None:
            if e["type"] != "game_started":
                return LogError(i, "NOT_A_GAME_START", "A log starts with game_started.", None, e)
            try:
                config = configure(e.get("config"), recorded=True)  # type: ignore[arg-type]  # refuses a non-mapping
            except ConfigError as error:
                return LogError(i, "INVALID_CONFIG", error.message, error.rule, e)
            if not is_recorded_form(config, e["config"]):
                return LogError(i, "INVALID_CONFIG", "The configuration is not normalised.", None, e)
            n = config["players"]
            if (
                e.get("game_number") != 1
                or e.get("scores") != [0] * n
                or set(e) - {COMMITMENT} != {"type", "v", "config", "game_number", "scores"}
            ):
                return LogError(
                    i, "EVENT_MISMATCH", "The first game starts as game 1 with no points.", None, e
                )
            state = evolve(None, e)
            i += 1
            continue
        if state.step == STEP_GAME_OVER:
            return LogError(i, "GAME_OVER", "The log goes on after the end of the game.", None, e)
        pending = state.pending
        alternative = read_as_revision_1(state) if pending is not None and read_as != 2 else None
        if alternative is not None:
            # A log recorded before revisions existed (config.py): it must follow one revision
            # throughout, the first place where they differ telling which.
            revision_1_next = alternative.pending
            if read_as == 1 or (e != pending and (revision_1_next is None or e == revision_1_next)):
                read_as, state = 1, alternative
                continue  # the same event again, against the revision-1 state
            read_as = 2
        if pending is not None:
            if isinstance(pending, Chance):
                why = _chance_ok(state, pending, e)
                if why:
                    return LogError(i, "INVALID_CHANCE_EVENT", why, "RL-10", e)
            else:
                expected = next_automatic_event(state)
                assert expected is not None  # a pending step always makes its event
                if e != expected:
                    return LogError(
                        i,
                        "EVENT_MISMATCH",
                        f"The rules produce {expected['type']} here, not {e['type']}.",
                        None,
                        e,
                    )
            state = evolve(state, e)
            i += 1
            continue
        if e["type"] in LEAVE_EVENTS:
            try:
                produced = events_for(state, e)
            except CommandError as error:
                return LogError(i, error.code, error.message, error.rule, e)
            for k, expected in enumerate(produced):
                if i + k >= total:
                    return LogError(total, "INCOMPLETE_LOG", "The log stops in the middle of a move.")
                if events[i + k] != expected:
                    return LogError(
                        i + k,
                        "EVENT_MISMATCH",
                        f"The rules produce {expected['type']} here.",
                        None,
                        events[i + k],
                    )
                state = evolve(state, expected)
            i += len(produced)
            continue
        command = command_of(events, i) if e["type"] in PLAYER_EVENTS else None
        if command is None:
            return LogError(
                i, "UNEXPECTED_EVENT", f"A player decision is awaited here, not {e['type']}.", None, e
            )
        try:
            produced = command_events(state, e.get("seat"), command)
        except CommandError as error:
            return LogError(i, error.code, error.message, error.rule, e)
        for k, expected in enumerate(produced):
            if i + k >= total:
                return LogError(total, "INCOMPLETE_LOG", "The log stops in the middle of a move.")
            actual = events[i + k]
            if actual != expected:
                return LogError(
                    i + k, "EVENT_MISMATCH", f"The move produces {expected['type']} here.", None, actual
                )
            state = evolve(state, expected)
        i += len(produced)
    if state is None:
        return LogError(0, "EMPTY_LOG", "The log is empty.")
    if state.move_ends_with is not None:
        return LogError(total, "INCOMPLETE_LOG", "The log stops in the middle of a move.")
    if state.pending is not None:
        return LogError(
            total,
            "INCOMPLETE_LOG",
            "The log stops before the automatic events that must follow its last move.",
        )
    return None
