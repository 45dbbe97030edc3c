"""Archive summaries (the store stores, the domain's shaping is the service's): what a
search or an entry shows of a finished game, built from its metadata when read (``store.archive``
keeps no copy, see its docstring), and what the archive indexes it by (:func:`index_entry`, which
``store.archive.Archive.enter`` stores as it is given).

The ruleset and options are the game's own words for its public configuration (its
``games.base.ArchiveHooks.archive_labels`` hook): a game whose engine is not installed is still
listed, by its generic fields.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games import get_game
from games.base import OPTION, RULESET, archive_labels
from store import archive as stored
from store.archive import Indexed, finished_ms, iso
from store.game_logs import GameLog


def labels_of(log: GameLog) -> dict[str, list[str]]:
    """The archive labels the game's engine gives its public configuration (none for a game whose
    engine is not installed)."""
    try:
        game = get_game(log.name)
    except KeyError:
        return {}
    return archive_labels(game, log.public_config)


def build_summary(
    *,
    game_id: str,
    game: str,
    labels: Mapping[str, Sequence[str]],
    players: Sequence[str | None],
    result: Mapping[str, Any] | None,
    version: int,
    finished: int,
    imported: bool = False,
    prearranged: bool = False,
) -> dict[str, Any]:
    """A finished game's archive entry; ``labels`` are the game's (``games.base.archive_labels``),
    listed and indexed as they are given; ``finished`` in ms since the epoch."""
    winners = list((result or {}).get("winners") or [])
    return {
        "id": game_id,
        "game": game,
        "ruleset": next(iter(labels.get(RULESET) or ()), None),
        "player_count": len(players),
        "players": list(players),
        "options": sorted(labels.get(OPTION) or ()),
        "winners": winners,
        "winner_names": [players[s] for s in winners if s < len(players) and players[s]],
        "outcome": (result or {}).get("reason"),
        "version": version,
        "finished": iso(finished),
        "imported": imported,
        "prearranged": prearranged,
    }


def summary_of(log: GameLog, *, imported: bool = False) -> dict[str, Any]:
    """The archive entry of a stored game (its metadata are enough: ``log.events`` may be empty)."""
    return build_summary(
        game_id=log.game_id,
        game=log.name,
        labels=labels_of(log),
        players=log.players,
        result=log.result,
        version=int(log.meta.get("version") or log.version),
        finished=finished_ms(log.meta.get("finished")),
        imported=imported or log.meta.get("imported") == "1",
        prearranged=log.meta.get("prearranged") == "true",
    )


def index_entry(summary: Mapping[str, Any]) -> Indexed:
    """What the archive indexes a game's ``summary`` by: each search field's values
    (``store.archive.FILTER_FIELDS``), its engine and its finish time."""
    labels: dict[str, list[Any]] = {
        "players": [summary["player_count"]],
        RULESET: [summary["ruleset"]] if summary.get("ruleset") else [],
        "outcome": [summary["outcome"]] if summary.get("outcome") else [],
        OPTION: list(summary["options"]),
        "player": [name for name in summary["players"] if name],
        "winner": list(summary["winner_names"]),
        "prearranged": [bool(summary.get("prearranged"))],
    }
    return Indexed(
        game_id=summary["id"], game=summary["game"], finished=finished_ms(summary["finished"]), labels=labels
    )


@dataclass(frozen=True)
class Page:
    """A page of a search: the games' summaries, newest first, and the next page's cursor."""

    items: list[dict[str, Any]]
    next_cursor: str | None


def page_of(found: stored.Page) -> Page:
    """The summaries of a page of the archive's records."""
    return Page(items=[summary_of(record) for record in found.items], next_cursor=found.next_cursor)
