"""Statistics kept as aggregates: updated once per archived game, read without touching the archive.

A game entering the archive (``archive`` follow-up action, verify job, import) adds its increments
(``replays.stats.game_counts`` of its facts) to its engine's aggregates in the same script that
enters it (``store.archive.Archive.enter``): its ZADD NX into its engine's set is the marker, so
a game entering twice (the follow-up and the verify job both try) is counted once, and a process
killed before the script leaves nothing half-counted. Reading global or player statistics then costs
one HGETALL (and the leader board's two ZRANGEs), whatever the size of the archive.

By account: a seat bound to an account (``account:<seat>`` in the game's metadata) also
counts for that account (``stats_account_key``), whatever name it played under; the statistics by
name are unchanged. A deleted account's seats (``deleted:<seat>``, see ``store.accounts``) count for
no name and no account: :func:`forget_seat` takes a game counted before the deletion out of its old
name's figures, so the figures are what a recount gives.

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
from dataclasses import dataclass
from typing import Any

from games import get_game
from replays import stats
from service.ratings import enter_rated
from service.summaries import summary_of
from store.archive import Archive, finished_ms
from store.archive_counts import Counts
from store.archive_keys import stats_account_key, stats_leaders_key, stats_overall_key, stats_player_key
from store.game_logs import GameLog


@dataclass(frozen=True)
class Seats:
    """Who held a game's seats, for the statistics: the name each counts under (None: none, as for
    a deleted account's seat) and the account each is bound to (None: anonymous)."""

    names: list[str | None]
    accounts: list[str | None]


def seats_of(meta: Mapping[str, str]) -> Seats:
    """A game's :class:`Seats` from its metadata."""
    count = int(meta.get("seat_count") or 0)
    names = [None if meta.get(f"deleted:{s}") else meta.get(f"name:{s}") for s in range(count)]
    return Seats(names, [meta.get(f"account:{s}") or None for s in range(count)])


def counts_for(
    summary: Mapping[str, Any], facts: Mapping[str, Any], seats: Seats | None = None
) -> list[Counts]:
    """The aggregate increments of one archived game (its archive summary and statistics facts;
    ``seats``: the names and accounts it counts for, by default the summary's names)."""
    game = summary["game"]
    names = seats.names if seats is not None else list(summary.get("players") or [])
    counts = stats.game_counts(facts, names)
    at = f"{finished_ms(summary['finished']):015d}:{summary['id']}"
    groups = [Counts(stats_overall_key(game), "h", counts.overall)]
    for folded, increments in sorted(counts.players.items()):
        latest = (at, counts.spellings[folded])
        groups.append(Counts(stats_player_key(game, folded), "h", increments, latest))
    if counts.leaders:
        groups.append(Counts(stats_leaders_key(game), "z", counts.leaders))
    by_account: dict[str, list[int]] = {}
    for seat, account_id in enumerate(seats.accounts if seats is not None else []):
        if account_id and seat < facts["seats"]:
            by_account.setdefault(account_id, []).append(seat)
    for account_id, held in sorted(by_account.items()):
        groups.append(Counts(stats_account_key(game, account_id), "h", stats.player_increments(facts, held)))
    return groups


def counter_for_import(
    events: Sequence[dict[str, Any]], name: str
) -> Callable[[dict[str, Any]], list[Counts]]:
    """What ``service.archive.import_finished_game`` counts for an imported log of engine ``name``."""
    facts = stats.game_facts(get_game(name), events)
    return lambda summary: counts_for(summary, facts)


def enter_archive(archive: Archive, log: GameLog) -> tuple[bool, int]:
    """Enter a finished, rated game into the archive with its statistics and its ratings, in one
    atomic step (idempotent: ``service.ratings.enter_rated``)."""
    summary = summary_of(log)
    facts = stats.game_facts(get_game(log.name), log.events)
    return enter_rated(archive, log, counts_for(summary, facts, seats_of(log.meta)))


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


def account_stats(archive: Archive, game: str, account_id: str, handle: str) -> dict[str, Any]:
    """One account's statistics: every archived game of ``game`` whose seat was bound to it, under
    whatever name (an account with none: zero games)."""
    row = stats.player_result(archive.account_counts(game, account_id)) or stats.no_games_result()
    return dict(row, handle=handle, game=game)


def forget_seat(archive: Archive, log: GameLog, seat: int, account_id: str) -> bool:
    """Take ``seat`` of an archived game out of the statistics of the name it had (a deletion of
    ``account_id`` is about to rename it): its player counters and its leader score, once (a
    marker in the archive's slot). The account's own figures go with the account's keys. True
    when subtracted now; False for a game not (yet) counted or already done."""
    name = log.meta.get(f"name:{seat}")
    if not name or log.meta.get(f"deleted:{seat}") or not log.finished:
        return False
    names = seats_of(log.meta).names
    alone: list[str | None] = [name if s == seat else None for s in range(len(names))]
    facts = stats.game_facts(get_game(log.name), log.events)
    counts = stats.game_counts(facts, alone)
    folded = name.casefold()
    # Another seat of the game under the same name keeps its own share: only this seat's goes. A
    # counter every game lists (games, wins, totals, a counter's name) stays at zero, as in a
    # recount; one a game's seat or size or keys made (by_seat, by_player_count, a counter's key)
    # goes at zero, as a recount would not list it.
    minus = {k: -v for k, v in counts.players[folded].items()}
    kept = {k: v for k, v in minus.items() if not _made_by_the_game(k)}
    pruned = {k: v for k, v in minus.items() if _made_by_the_game(k)}
    key = stats_player_key(log.name, folded)
    at = f"{finished_ms(summary_of(log)['finished']):015d}:{log.game_id}"  # as counts_for wrote it
    groups = [
        Counts(key, "h", kept, (at, "")),
        Counts(key, "p", pruned),
        Counts(stats_leaders_key(log.name), "z", {k: -v for k, v in counts.leaders.items()}),
    ]
    return archive.forget_counts(log.name, log.game_id, account_id, groups)


def _made_by_the_game(field: str) -> bool:
    return stats.field_head(field) in ("by_seat", "by_player_count", "counter")


def recount(archive: Archive, game: str) -> int:
    """Recompute ``game``'s aggregates from every archived log (see the module docstring). Returns
    how many games were counted."""
    engine = get_game(game)
    archive.reset_counts(game)
    ids = archive.ids(newest_first=False)
    summaries = {game_id: summary_of(record) for game_id, record in archive.records(ids).items()}
    mine = [game_id for game_id in ids if summaries.get(game_id, {}).get("game") == game]
    metas = archive.metas(mine)
    for game_id, events in archive.logs(mine):
        seats = seats_of(metas.get(game_id, {}))
        archive.recount(counts_for(summaries[game_id], stats.game_facts(engine, events), seats))
    return len(mine)
