"""Statistics kept as aggregates: updated once per archived game, read without touching the archive.

A game entering the archive (``archive`` follow-up action, verify job, import) adds its increments
(``replays.stats.game_counts`` of its facts) to its engine's aggregates in the same script that
enters it (``store.archive.Archive.enter``): its ZADD NX into its engine's set is the marker, so
a game entering twice (the follow-up and the verify job both try) is counted once, and a process
killed before the script leaves nothing half-counted. Reading global or player statistics then costs
one HGETALL (and the leader board's two ZRANGEs), whatever the size of the archive.

Cluster: the aggregates share the archive's hash tag (``{archive}``), one slot with the archive's
indexes, which every archived game already writes once; one more script step per finished game is
nothing at archive rates (a busy server finishes a few games a second), so they are not sharded.

:func:`recount` recomputes an engine's aggregates from scratch (every archived log read again): the
same figures (tests/archive/test_stats_aggregates.py), for an operator who changed a ``game_facts``
hook. Entering games must be paused meanwhile (a game entering during the recount could be counted
twice or not at all).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from games import get_game
from replays import stats
from service.ratings import enter_rated
from store.archive import (
    Archive,
    Counts,
    GameLog,
    finished_ms,
    stats_leaders_key,
    stats_overall_key,
    stats_player_key,
    summary_of,
)


def counts_for(summary: Mapping[str, Any], facts: Mapping[str, Any]) -> list[Counts]:
    """The aggregate increments of one archived game (its archive summary and statistics facts)."""
    game = summary["game"]
    counts = stats.game_counts(facts, summary.get("players") or [])
    at = f"{finished_ms(summary['finished']):015d}:{summary['id']}"
    groups = [Counts(stats_overall_key(game), "h", counts.overall)]
    for folded, increments in sorted(counts.players.items()):
        latest = (at, counts.spellings[folded])
        groups.append(Counts(stats_player_key(game, folded), "h", increments, latest))
    if counts.leaders:
        groups.append(Counts(stats_leaders_key(game), "z", counts.leaders))
    return groups


def counter_for_import(
    events: Sequence[dict[str, Any]], name: str
) -> Callable[[dict[str, Any]], list[Counts]]:
    """What ``store.archive.import_finished_game`` counts for an imported log of engine ``name``."""
    facts = stats.game_facts(get_game(name), events)
    return lambda summary: counts_for(summary, facts)


def enter_archive(archive: Archive, log: GameLog) -> tuple[bool, int]:
    """Enter a finished, rated game into the archive with its statistics and its ratings, in one
    atomic step (idempotent: ``service.ratings.enter_rated``)."""
    summary = summary_of(log)
    facts = stats.game_facts(get_game(log.name), log.events)
    return enter_rated(archive, log, counts_for(summary, facts))


def global_stats(archive: Archive, game: str) -> dict[str, Any]:
    """An engine's statistics across its archive, from its aggregates."""
    leaders = stats.best_leaders(archive.leader_scores(game, stats.LEADERS))
    body = stats.overall_result(archive.overall_counts(game), leaders)
    body["game"] = game
    return body


def player_stats(archive: Archive, game: str, name: str) -> dict[str, Any] | None:
    """One player's statistics (``name`` matched case-insensitively), or None without a game."""
    counters, spelling = archive.player_counts(game, name.casefold())
    row = stats.player_result(counters)
    if row is None:
        return None
    return dict(row, name=spelling or name, game=game)


def recount(archive: Archive, game: str) -> int:
    """Recompute ``game``'s aggregates from every archived log (see the module docstring). Returns
    how many games were counted."""
    engine = get_game(game)
    archive.reset_counts(game)
    ids = archive.ids(newest_first=False)
    summaries = archive.summaries(ids)
    mine = [game_id for game_id in ids if summaries.get(game_id, {}).get("game") == game]
    for game_id, events in archive.logs(mine):
        archive.recount(counts_for(summaries[game_id], stats.game_facts(engine, events)))
    return len(mine)
