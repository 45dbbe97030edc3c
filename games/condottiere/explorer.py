"""Condottiere's decision explorer (``games.base.ExplorerHooks``): the situations grouped across
games and the names of the moves chosen there. Every name is public: the region a condottiere chose
(TOKEN-1), the card a seat opened a battle with, face up once played (PLAY-1; a face-down card is
named only in a finished game's log, which is public in full), and whether a seat took the hand
discard (DISCARD-1)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from games.condottiere.chance import decisions

SITUATIONS: dict[str, str] = {
    "first_battle_region": "The region the condottiere chooses for the game's first battle, by seat.",
    "opening_card": "The card a battle is opened with (the first card played in it), by battle number.",
    "hand_discard": "Whether a seat discards its hand when offered, by the number of battles fought so far.",
}


def explorer_situations() -> Mapping[str, str]:
    return SITUATIONS


def explore(events: Sequence[Mapping[str, Any]]) -> Iterator[tuple[int, int, str, str, str]]:
    ended_before = _battles_ended_before(events)
    first_region_seen = False
    opened: set[int] = set()
    for index, (version, seat, command) in enumerate(decisions([dict(e) for e in events])):
        kind = command.get("type")
        battle = ended_before[version] + 1
        if kind == "place_token" and not first_region_seen:
            first_region_seen = True
            yield index, seat, "first_battle_region", f"seat {seat}", str(command.get("region"))
        elif kind == "play" and battle not in opened:
            opened.add(battle)
            yield index, seat, "opening_card", f"battle {battle}", str(command.get("card"))
        elif kind == "discard_hand":
            move = "discard" if command.get("discard") else "keep"
            yield index, seat, "hand_discard", f"after battle {battle - 1}", move


def _battles_ended_before(events: Sequence[Mapping[str, Any]]) -> list[int]:
    """For each version v (0..len), how many battles ended among the first v events."""
    counts = [0]
    for event in events:
        counts.append(counts[-1] + (event.get("type") == "battle_ended"))
    return counts
