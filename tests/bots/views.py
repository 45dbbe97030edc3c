"""Constructed seat views (docs/condottiere-protocol.md) for testing bots and the display without
an engine in the loop: each test states exactly what the bot may see."""

from __future__ import annotations

from typing import Any

REGION_NAMES = [
    "Torino",
    "Milano",
    "Venezia",
    "Genova",
    "Mantova",
    "Ferrara",
    "Parma",
    "Modena",
    "Bologna",
    "Lucca",
    "Firenze",
    "Siena",
    "Urbino",
    "Spoleto",
    "Ancona",
    "Roma",
    "Napoli",
]


def slot(card: str | None, face_down: bool = False) -> dict[str, Any]:
    return {"card": card, "face_down": face_down}


def make_view(
    *,
    seat: int = 0,
    players: int = 4,
    ruleset: str = "2006",
    options: dict | None = None,
    phase: str = "battle",
    hand: list[str] | None = None,
    owners: dict[str, int] | None = None,
    lines: dict[int, list] | None = None,
    passed: set[int] | None = None,
    hand_sizes: dict[int, int] | None = None,
    region: str | None = "Torino",
    defender: int | None = None,
    final: bool = False,
    legal_moves: list[dict] | None = None,
    condottiere: int = 0,
    pope: str | None = None,
    turn: int | None = None,
) -> dict[str, Any]:
    owners = owners or {}
    lines = lines or {}
    passed = passed or set()
    hand = list(hand or [])
    hand_sizes = dict(hand_sizes or {})
    regions = {name: owners.get(name) for name in REGION_NAMES}
    view_players = []
    for s in range(players):
        line = [x if isinstance(x, dict) else slot(x) for x in lines.get(s, [])]
        view_players.append(
            {
                "seat": s,
                "hand_size": len(hand) if s == seat else hand_sizes.get(s, 5),
                "passed": s in passed,
                "regions": sorted(r for r, o in owners.items() if o == s),
                "line": line,
                "strength": 0,
            }
        )
    if legal_moves is None:
        if phase == "battle":
            legal_moves = [{"type": "play", "card": c} for c in sorted(set(hand))] + [{"type": "pass"}]
        elif phase == "place_token":
            legal_moves = [
                {"type": "place_token", "region": r} for r in REGION_NAMES if regions[r] is None and r != pope
            ]
        else:
            legal_moves = []
    in_battle = phase == "battle"
    return {
        "game": "condottiere",
        "config": {"ruleset": ruleset, "players": players, "options": options or {}},
        "phase": phase,
        "awaiting": [seat],
        "turn": seat if in_battle else turn,
        "condottiere": condottiere,
        "pope": pope,
        "battle": {"region": None if final else region, "defender": defender, "final": final}
        if in_battle
        else None,
        "regions": regions,
        "players": view_players,
        "deck_size": 40,
        "discard_size": 10,
        "winners": None,
        "result": None,
        "match": None,
        "seat": seat,
        "hand": hand,
        "legal_moves": legal_moves,
    }
