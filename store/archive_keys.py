"""The archive's keys (split out of ``store.archive``, whose indexes and statistics they name).

Layout. Every archive key carries the hash tag ``{archive}``, so on Redis Cluster the indexes live
in one slot and one script may update them all (and ZINTERSTORE may combine them); they are kept
apart from the per-game keys (``{g:<id>}``) as docs/architecture.md asks:

``archive:{archive}:by:<field>:<value>`` (zset)
    game id, score = finished time (ms since the epoch), per game (engine), player name
    (case-folded), ruleset, option, player count, winner name, outcome, prearranged. A game is in
    exactly one ``by:game:<engine>`` set: the whole archive is their union (merged when read), not a
    set of its own (one more entry of ~120 B per game kept for good).
``archive:{archive}:games`` (set)
    the engines that have games in the archive
A game's summary (what a search returns) is built from its own metadata when read
(``service.summaries.summary_of``: a search here returns the metadata, :class:`GameLog` without
events), not kept beside it: a copy cost about 0.5 KiB per finished game for good, as much as a
quarter of what a compacted game keeps (bench/memory.py). The store indexes the values it is given
(:class:`Indexed`) and reads no configuration key, result or engine hook.
``archive:{archive}:version`` (string)
    a counter bumped whenever a game enters: the data version that global statistics depend on
``archive:{archive}:stats:overall:<game>`` (hash)
    an engine's statistics counters (``service.aggregates``)
``archive:{archive}:stats:player:<game>:<name>`` (hash)
    one player's counters (name case-folded), and ``@name``: the spelling of their latest game
``archive:{archive}:stats:leaders:<game>`` (zset)
    seat name -> wins * 10^7 + games
``archive:{archive}:stats:account:<game>:<account id>`` (hash)
    one account's counters: the seats bound to it, whatever names they played under
``archive:{archive}:stats:forgotten:<account id>`` (set)
    the games whose seats of a deleted account were taken out of the name statistics: the marker
    that makes that step once-only (deleted with the account's last keys)
``archive:{archive}:q:<hash>`` (zset)
    a short-lived intersection for a multi-filter search
"""

from __future__ import annotations

from typing import Any

TAG = "{archive}"
PREFIX = f"archive:{TAG}"
ENGINES = f"{PREFIX}:games"
VERSION = f"{PREFIX}:version"


def index_key(field: str, value: Any) -> str:
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if field in ("player", "winner"):
        text = text.casefold()
    return f"{PREFIX}:by:{field}:{text}"


STATS_PREFIX = f"{PREFIX}:stats"


def stats_overall_key(game: str) -> str:
    """Hash: an engine's global statistics counters (``replays.stats.overall_increments``)."""
    return f"{STATS_PREFIX}:overall:{game}"


def stats_player_key(game: str, folded_name: str) -> str:
    """Hash: one player's counters for one engine (``replays.stats.player_increments``), with the
    spelling of their most recent game (``@name``, ordered by ``@at``)."""
    return f"{STATS_PREFIX}:player:{game}:{folded_name}"


def stats_leaders_key(game: str) -> str:
    """Sorted set: seat name -> wins * LEADER_SCALE + games (``replays.stats.game_counts``)."""
    return f"{STATS_PREFIX}:leaders:{game}"


def stats_account_key(game: str, account_id: str) -> str:
    """Hash: one account's counters for one engine (``replays.stats.player_increments`` of the
    seats bound to it), whatever names those seats had."""
    return f"{STATS_PREFIX}:account:{game}:{account_id}"


def stats_forgotten_key(account_id: str) -> str:
    """Set: games whose seats of (deleted) ``account_id`` left the name statistics (the marker)."""
    return f"{STATS_PREFIX}:forgotten:{account_id}"
