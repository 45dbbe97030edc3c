"""Replaying a log through the rules (``verify_log``): the first event the rules do not accept.

Every player event must be the event of a command that is legal at that point; every automatic
event, dice included, must be exactly the one the rules produce from the recorded seed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.base import SEAT_HANDED_TO_BOT, CommandError, ConfigError, LogError, is_recorded_form
from games.rio_de_la_plata.battle import BATTLE_EVENT_OF
from games.rio_de_la_plata.config import configure
from games.rio_de_la_plata.decide import EVENT_OF, command_events
from games.rio_de_la_plata.evolve import SERVER_RECORDS, evolve
from games.rio_de_la_plata.steps import next_automatic
from games.rio_de_la_plata.trade import TRADE_EVENT_OF
from games.rio_de_la_plata.undo import UNDO, UNDONE

COMMAND_OF = {event: command for command, event in {**EVENT_OF, **BATTLE_EVENT_OF, **TRADE_EVENT_OF}.items()}


def command_of(event: dict[str, Any]) -> tuple[Any, dict[str, Any]] | None:
    if event.get("type") == UNDONE:
        return event.get("seat"), {"type": UNDO}
    kind = COMMAND_OF.get(event.get("type", ""))
    if kind is None:
        return None
    command = {k: v for k, v in event.items() if k not in ("type", "v", "seat", "price")}
    command["type"] = kind
    return event.get("seat"), command


def verify_log(events: Sequence[dict[str, Any]]) -> LogError | None:
    if not events or not isinstance(events[0], dict) or events[0].get("type") != "game_started":
        return LogError(0, "BAD_GENESIS", "A log starts with game_started.")
    try:
        config = configure(events[0].get("config") or {}, recorded=True)
    except ConfigError as err:
        return LogError(0, err.code, err.message, err.rule, events[0])
    if not is_recorded_form(config, events[0]["config"]):
        return LogError(0, "BAD_CONFIG", "The configuration is not in its normalised form.", None, events[0])
    state = evolve(None, events[0])
    for i in range(1, len(events)):
        event = events[i]
        if not isinstance(event, dict):
            return LogError(i, "BAD_EVENT", "An event is an object.")
        expected = next_automatic(state)
        if expected is not None:
            if event != expected:
                return LogError(
                    i, "UNEXPECTED_EVENT", f"The rules produce {expected.get('type')} here.", None, event
                )
        elif event.get("type") in SERVER_RECORDS:
            problem = _server_record_problem(state, event)
            if problem is not None:
                return LogError(i, "MALFORMED_EVENT", problem, None, event)
        else:
            parsed = command_of(event)
            if parsed is None:
                return LogError(i, "UNEXPECTED_EVENT", "A player decision is awaited here.", None, event)
            seat, command = parsed
            try:
                produced = command_events(state, seat, command)
            except CommandError as err:
                return LogError(i, err.code, err.message, err.rule, event)
            if produced != [event]:
                return LogError(
                    i, "EVENT_MISMATCH", "The event differs from what its command produces.", None, event
                )
        state = evolve(state, event)
    return None


def _server_record_problem(state: dict[str, Any], event: dict[str, Any]) -> str | None:
    """What is wrong with a server record (games/base.py) found where a decision is awaited."""
    seat = event.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(state["p"]):
        return f"{event['type']} names a seat of the game."
    if event["type"] == SEAT_HANDED_TO_BOT and not isinstance(event.get("level"), str):
        return "seat_handed_to_bot names the bot level."
    return None
