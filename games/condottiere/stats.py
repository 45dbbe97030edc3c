"""Condottiere's archive hooks: chapters (battle by battle) and statistics facts.

Both work directly on a complete event log in one pass, without folding states: the events of
``docs/condottiere-protocol.md`` carry everything needed (``token_placed`` opens a battle,
``card_played`` fills it, ``battle_ended`` has the strengths and the winner, ``region_won`` the
conquest, ``game_won``/``match_won`` the outcome). That keeps statistics over a large archive
about as cheap as reading the logs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# Events that belong to the conclusion of a battle (END-1..END-4): a chapter ends after the last of
# them, so its end state shows the new owner and who holds the token.
_CONCLUSION = frozenset({"region_won", "token_passed", "game_won", "game_scored", "match_won"})

# Every way a game (or a points match) ends, as its result's reason and the archive's outcome, in a
# player's words (games.base.OutcomeHooks).
OUTCOMES = {
    "adjacent": "won with adjacent regions",
    "total": "won with regions in total",
    "most_regions": "most regions, no region left to fight for",
    "final_battle": "decided by a final battle",
    "no_winner": "no winner",
    "stalled": "stalled: battles without a card played",
    "resigned": "a player resigned",
    "points": "a points match, won on points",
}


def _strength_list(strengths: Any, seats: int) -> list[int]:
    if isinstance(strengths, Mapping):
        return [int(strengths.get(str(s), strengths.get(s, 0)) or 0) for s in range(seats)]
    return [int(x or 0) for x in (strengths or [])]


def _battle_title(number: int, region: str | None, defender: Any, game_number: int, multi: bool) -> str:
    if region is None:
        title = f"Final battle (battle {number})"
    else:
        title = f"Battle {number}: {region}"
        if defender is not None:
            title += f" (defended by seat {defender})"
    return f"Game {game_number}, {title[0].lower()}{title[1:]}" if multi else title


def chapters(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One chapter per battle: ``start`` is the version just before the token is placed (or the
    final battle starts), ``end`` the version after the battle's conclusion (END-1..END-4).
    Each chapter also carries the battle's region, winner, strengths, cause and the cards each
    seat played (as the given log shows them: a redacted log gives null for a face-down card until
    it is revealed, OPT-HID-2/OPT-HID-3, and every card of a finished battle has been revealed)."""
    multi = any(e["type"] == "game_started" and (e.get("game_number") or 1) > 1 for e in events)
    found: list[dict[str, Any]] = []
    game_number = 1
    number = 0
    open_battle: dict[str, Any] | None = None
    index = 0
    total = len(events)
    cards: dict[str, list[Any]] = {}
    while index < total:
        event = events[index]
        kind = event["type"]
        if kind == "card_played" and open_battle is not None:
            # ``card`` is null for a face-down card in a redacted log: shown as an unknown card.
            cards.setdefault(str(event["seat"]), []).append(event.get("card"))
        elif kind == "cards_revealed" and open_battle is not None:
            # Public in every log: the seat's face-down cards, now face up (exports of a
            # running game kept them unknown after the battle had revealed them).
            played = cards.setdefault(str(event["seat"]), [])
            for card in event.get("cards") or []:
                unknown = next((i for i, c in enumerate(played) if c is None), None)
                if unknown is not None:
                    played[unknown] = card
        elif kind == "game_started":
            game_number = event.get("game_number") or 1
            number = 0
        elif kind == "token_placed" or kind == "final_battle_started":
            number += 1
            final = kind == "final_battle_started"
            open_battle = {
                "title": _battle_title(
                    number, None if final else event.get("region"), event.get("defender"), game_number, multi
                ),
                "start": index,
                "region": None if final else event.get("region"),
                "game_number": game_number,
                "battle": number,
                "final": final,
            }
            cards = {}
        elif kind == "battle_ended" and open_battle is not None:
            end = index + 1
            while end < total and events[end]["type"] in _CONCLUSION:
                end += 1
            open_battle["end"] = end
            open_battle["winner"] = event.get("winner")
            open_battle["strengths"] = event.get("strengths")
            open_battle["cause"] = event.get("cause")
            open_battle["cards"] = cards
            found.append(open_battle)
            open_battle = None
            index = end
            continue
        index += 1
    return found


def game_facts(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Statistics facts of a complete (FULL) log, in one pass: see ``games.base.ArchiveHooks``."""
    seats = 0
    first_seat = None
    game_number = 1
    seat_counters: list[dict[str, dict[str, int]]] = []
    seat_totals: list[dict[str, int]] = []
    contested: dict[str, int] = {}
    captured: dict[str, int] = {}
    causes: dict[str, int] = {}
    game_endings: dict[str, int] = {}
    cards_total: dict[str, int] = {}
    card_battles: dict[str, int] = {}
    card_battles_won: dict[str, int] = {}
    card_outcomes: dict[str, dict[str, int]] = {}
    battles: list[dict[str, Any]] = []
    winners: list[int] = []
    outcome = "unfinished"
    match_winners = None
    match_reason = "points"
    games_played = 0
    battle: dict[str, Any] | None = None
    played: list[list[str]] = []

    for event in events:
        kind = event["type"]
        if kind == "card_played":
            card = event.get("card")
            if battle is not None and card is not None:
                played[event["seat"]].append(card)
        elif kind == "token_placed":
            region = event.get("region")
            battle = {
                "number": len(battles) + 1,
                "game_number": game_number,
                "region": region,
                "defender": event.get("defender"),
                "chooser": event.get("seat"),
                "final": False,
                "participants": list(range(seats)),
            }
            played = [[] for _ in range(seats)]
            contested[region] = contested.get(region, 0) + 1
        elif kind == "final_battle_started":
            battle = {
                "number": len(battles) + 1,
                "game_number": game_number,
                "region": None,
                "defender": None,
                "chooser": event.get("first"),
                "final": True,
                "participants": list(event.get("seats") or range(seats)),
            }
            played = [[] for _ in range(seats)]
        elif kind == "battle_ended" and battle is not None:
            winner = event.get("winner")
            cause = event.get("cause") or "all_passed"
            strengths = _strength_list(event.get("strengths"), seats)
            causes[cause] = causes.get(cause, 0) + 1
            battle["strengths"] = strengths
            battle["winner"] = winner
            battle["winning_strength"] = (
                strengths[winner] if winner is not None and winner < len(strengths) else None
            )
            battle["cause"] = cause
            battle["cards"] = {str(s): cards for s, cards in enumerate(played) if cards}
            for seat in battle["participants"]:
                totals = seat_totals[seat]
                totals["battles"] += 1
                if winner == seat:
                    totals["battles_won"] += 1
            for seat, cards in enumerate(played):
                counters = seat_counters[seat]["cards_played"]
                for card in cards:
                    counters[card] = counters.get(card, 0) + 1
                    cards_total[card] = cards_total.get(card, 0) + 1
                seat_totals[seat]["cards_played"] += len(cards)
                ending = "no_winner" if winner is None else ("won" if winner == seat else "lost")
                for card in set(cards):
                    row = card_outcomes.setdefault(
                        card, {"played": 0, "battles": 0, "won": 0, "lost": 0, "no_winner": 0}
                    )
                    row["battles"] += 1
                    row[ending] += 1
                    card_battles[card] = card_battles.get(card, 0) + 1
                    if ending == "won":
                        card_battles_won[card] = card_battles_won.get(card, 0) + 1
                for card in cards:
                    card_outcomes[card]["played"] += 1
            battle["region_won_by"] = None
            battles.append(battle)
            battle = None
        elif kind == "region_won":
            seat = event["seat"]
            region = event["region"]
            taken = seat_counters[seat]["regions_taken"]
            taken[region] = taken.get(region, 0) + 1
            seat_totals[seat]["regions_taken"] += 1
            previous = event.get("from")
            if previous is not None:
                seat_totals[previous]["regions_lost"] += 1
                captured[region] = captured.get(region, 0) + 1
            if battles and battles[-1]["region"] == region:
                battles[-1]["region_won_by"] = seat
                battles[-1]["taken_from"] = previous
        elif kind == "game_started":
            config = event.get("config") or {}
            game_number = event.get("game_number") or 1
            if not seats:
                seats = int(config.get("players") or 0)
                seat_counters = [{"regions_taken": {}, "cards_played": {}} for _ in range(seats)]
                seat_totals = [
                    {
                        "battles": 0,
                        "battles_won": 0,
                        "regions_taken": 0,
                        "regions_lost": 0,
                        "cards_played": 0,
                        "regions_held_at_end": 0,
                    }
                    for _ in range(seats)
                ]
        elif kind == "first_condottiere_chosen":
            if first_seat is None:
                first_seat = event.get("seat")
        elif kind == "game_won":
            games_played += 1
            winners = list(event.get("winners") or [])
            outcome = event.get("reason") or "unknown"
            game_endings[outcome] = game_endings.get(outcome, 0) + 1
            regions = event.get("regions")
            if regions is not None:
                held = _held(regions, seats)
                for seat in range(seats):
                    seat_totals[seat]["regions_held_at_end"] = held[seat]
        elif kind == "match_won":
            match_winners = list(event.get("winners") or [])
            match_reason = event.get("reason") or "points"

    if match_winners is not None:
        # A points match (OPT-POINTS) is decided by the scores; each game's ending is counted in
        # game_endings.
        winners = match_winners
        outcome = match_reason
    return {
        "seats": seats,
        "first_seat": first_seat,
        "winners": winners,
        "outcome": outcome,
        "chapters": len(battles),
        "events": len(events),
        "seat_counters": seat_counters,
        "seat_totals": seat_totals,
        "counters": {
            "contested_regions": contested,
            "captured_regions": captured,
            "battle_endings": causes,
            "game_endings": game_endings,
            "cards_played": cards_total,
            "battles_with_card": card_battles,
            "battles_won_with_card": card_battles_won,
        },
        "detail": {
            "games": games_played,
            "battles": battles,
            "cards": dict(sorted(card_outcomes.items())),
        },
    }


def _held(regions: Any, seats: int) -> list[int]:
    """``game_won.regions`` per seat: a list (or dict) of region lists or of counts."""
    values = (
        [regions.get(str(s), regions.get(s)) for s in range(seats)]
        if isinstance(regions, Mapping)
        else list(regions)
    )
    held = []
    for value in values[:seats]:
        held.append(len(value) if isinstance(value, (list, tuple)) else int(value or 0))
    return held + [0] * (seats - len(held))
