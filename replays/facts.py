"""The facts of one finished game, as the analytical store (``store.facts``) keeps them: a
``games`` row, one ``seats`` row per seat and one ``decisions`` row per decision its engine's
explorer hook groups (``games.base.ExplorerHooks``). Pure: the caller gives what the archive knows
of the game (its summary, who held each seat, their ratings at the start). docs/statistics.md
documents every column."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from games.base import Event, Game, explorer_hooks
from replays.ratings import ranks_of
from replays.stats import game_facts


@dataclass(frozen=True)
class SeatFact:
    """Who held a seat: the name it is listed under (None: a deleted account's), its account id,
    the server bot level it was (None: not a server bot) and its rating (the ordinal, mu - 3 sigma)
    when the game started (None: not rated)."""

    name: str | None
    account: str | None
    bot_level: str | None
    rating: float | None


def month_of(finished_ms: int) -> str:
    """The month partition (UTC) of a game finished at ``finished_ms``."""
    return datetime.fromtimestamp(finished_ms / 1000, UTC).strftime("%Y-%m")


def explored(game: Game[Any], events: Sequence[Event]) -> list[tuple[int, int, str, str, str]]:
    """The engine's grouped decisions of a finished log (none without the explorer hook)."""
    explorer = explorer_hooks(game)
    return list(explorer.explore(events)) if explorer is not None else []


def rows_of(
    game: Game[Any],
    events: Sequence[Event],
    summary: Mapping[str, Any],
    seats: Sequence[SeatFact],
    finished_ms: int,
    facts: Mapping[str, Any] | None = None,
) -> dict[str, list[tuple[Any, ...]]]:
    """One game's rows per table, in ``store.facts.TABLES``' column order (``facts``: its
    statistics facts, ``replays.stats.game_facts``, computed here when not given)."""
    facts = facts if facts is not None else game_facts(game, events)
    game_id = summary["id"]
    winners = [int(w) for w in summary.get("winners") or []]
    placements = ranks_of(len(seats), winners)
    ratings = [s.rating for s in seats]
    rated = [r for r in ratings if r is not None]
    bots = sum(1 for s in seats if s.bot_level is not None)
    game_row = (
        game_id,
        datetime.fromtimestamp(finished_ms / 1000, UTC).replace(tzinfo=None),
        summary.get("ruleset"),
        list(summary.get("options") or []),
        len(seats),
        [s.name for s in seats],
        winners,
        list(summary.get("winner_names") or []),
        summary.get("outcome"),
        bool(summary.get("prearranged")),
        bool(summary.get("imported")),
        bots,
        len(seats) - bots,
        min(rated) if len(rated) == len(ratings) and rated else None,
        max(rated) if len(rated) == len(ratings) and rated else None,
        int(summary.get("version") or len(events)),
        facts.get("first_seat"),
        int(facts.get("chapters") or 0),
    )
    seat_rows = [
        (
            game_id,
            seat,
            fact.name,
            fact.name.casefold() if fact.name else None,
            fact.account,
            fact.bot_level is not None,
            fact.bot_level,
            fact.rating,
            placements[seat],
            seat in winners,
        )
        for seat, fact in enumerate(seats)
    ]
    decision_rows = [
        (game_id, index, game_row[1], seat, situation, context, move, placements[seat], seat in winners)
        for index, seat, situation, context, move in explored(game, events)
        if 0 <= seat < len(seats)
    ]
    return {"games": [game_row], "seats": seat_rows, "decisions": decision_rows}
