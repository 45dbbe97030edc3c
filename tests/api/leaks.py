"""Leak checkers for the security tests: given a message a seat received and the FULL state of the
game at that message's version (from folding the stored log), report any hidden information of
another seat it carries. Two independent checks:

* literal (toy game: every card code is unique, so another seat's hidden card code appearing
  anywhere in the message text is a leak);
* structural (Condottiere: cards are interchangeable codes, so the check follows the protocol:
  other seats' hands absent, face-down cards null, private event fields null for other seats,
  one's own hand exactly the one in the FULL state, and every strength shown computed from the
  cards the message itself shows: a derived number must not depend on a card it hides).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import orjson

# Condottiere events whose listed fields are private to the event's seat (``None``: to nobody).
PRIVATE_EVENT_FIELDS = {
    "deck_shuffled": (None, ("cards",)),
    "cards_dealt": ("seat", ("cards",)),
    "cards_drawn": ("seat", ("cards",)),
    "hand_discarded": ("seat", ("cards",)),
    "cards_kept": ("seat", ("kept", "discarded")),
    "card_taken_back": ("seat", ("card",)),
}


def text_of(message: Any) -> str:
    return message if isinstance(message, str) else orjson.dumps(message).decode()


def literal_leaks(message: Any, hidden: Iterable[str]) -> list[str]:
    text = text_of(message)
    return [card for card in hidden if re.search(rf'"{re.escape(card)}"', text)]


def event_leaks(event: dict, seat: int) -> list[str]:
    """Structural check of one Condottiere event as redacted for ``seat``."""
    problems = []
    kind = event.get("type")
    if kind in PRIVATE_EVENT_FIELDS:
        owner_field, fields = PRIVATE_EVENT_FIELDS[kind]
        owner = event.get(owner_field) if owner_field else None
        if owner != seat:
            for name in fields:
                if event.get(name) is not None:
                    problems.append(f"{kind} of seat {owner}: {name}={event.get(name)!r}")
    if (
        kind == "card_played"
        and event.get("face_down")
        and event.get("seat") != seat
        and event.get("card") is not None
    ):
        problems.append(f"face-down card of seat {event.get('seat')}: {event['card']!r}")
    if kind == "game_started" and (event.get("config") or {}).get("deck_order"):
        problems.append("deck order in game_started")
    return problems


# STR-1..STR-3 from the rules' text, kept apart from the engine's implementation on purpose.
PRINTED = {"m1": 1, "m2": 2, "m3": 3, "m4": 4, "m5": 5, "m6": 6, "m10": 10}


def strengths_of(lines: list[list[str]]) -> list[int]:
    cards = [c for line in lines for c in line]
    winter, spring = "winter" in cards, "spring" in cards
    top = max((PRINTED[c] for c in cards if c in PRINTED), default=None)
    out = []
    for line in lines:
        drum = "drummer" in line
        total = 0
        for card in line:
            if card in PRINTED:
                value = (1 if winter else PRINTED[card]) * (2 if drum else 1)
                total += value + (3 if spring and PRINTED[card] == top else 0)
            elif card == "heroine":
                total += 10
            elif card == "courtesan":
                total += 1
        out.append(total)
    return out


def derived_number_leaks(view: dict, seat: int | None) -> list[str]:
    """Every strength a view shows must follow from the cards that view shows (issue 8: a seat's
    ``true_strength`` counted another seat's face-down card through Spring's highest Mercenary,
    so the number told the card)."""
    players = view.get("players") or []
    problems = []
    face_up = [[s["card"] for s in p.get("line", []) if not s.get("face_down")] for p in players]
    if [p.get("strength") for p in players] != strengths_of(face_up):
        problems.append(f"shown strengths {[p.get('strength') for p in players]} != face-up cards {face_up}")
    if seat is not None and seat < len(players) and "true_strength" in players[seat]:
        known = [[s["card"] for s in p.get("line", []) if s.get("card") is not None] for p in players]
        expected = strengths_of(known)[seat]
        if players[seat]["true_strength"] != expected:
            shown = players[seat]["true_strength"]
            problems.append(f"true strength {shown} != {expected} from the cards seat {seat} sees")
    return problems


def view_leaks(view: dict, seat: int | None, full_view: dict) -> list[str]:
    """Structural check of a Condottiere view for ``seat`` against the FULL view at that version."""
    problems = derived_number_leaks(view, seat)
    for player in view.get("players", []):
        if player["seat"] == seat:
            continue
        if "hand" in player:
            problems.append(f"hand of seat {player['seat']} in the view")
        for slot in player.get("line", []):
            if slot.get("face_down") and slot.get("card") is not None:
                problems.append(f"face-down card of seat {player['seat']} in the view")
        if "true_strength" in player:
            problems.append(f"true strength of seat {player['seat']} in the view")
    if "deck" in view or "deck_order" in view:
        problems.append("deck order in the view")
    if seat is None:
        if "hand" in view:
            problems.append("a hand in the spectator's view")
    else:
        own = sorted(full_view["players"][seat].get("hand", []))
        if sorted(view.get("hand", [])) != own:
            problems.append(f"seat {seat}'s hand differs from the FULL state: {view.get('hand')} != {own}")
    return problems


def hand_discard_leaks(event: dict, full_view_before: dict) -> list[str]:
    """RL-12: the hand-discard step asks every seat holding cards, so the seats it names follow from
    public hand sizes only; naming only the seats with no Mercenary told everyone who had none."""
    if event.get("type") != "hand_discard_offered":
        return []
    holders = [p["seat"] for p in full_view_before["players"] if p["hand_size"] > 0]
    if event.get("seats") != holders:
        return [f"hand discard offered to {event.get('seats')}, not to every seat holding cards {holders}"]
    return []
