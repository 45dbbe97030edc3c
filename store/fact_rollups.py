"""Pre-summed counts beside the analytical store's facts (``store.facts``): what the filtered
statistics and the decision explorer read instead of the millions of raw rows.

Each rollup groups a partition's games by the filters it can answer (docs/statistics.md,
"Rollups"), the month being the partition: the number of seats, the kind of table (humans, bots,
mixed) and prearranged; or (``*_by_band``) the number of seats and the rating band in steps of
:data:`BAND` (the lowest rating's step, floored; the highest's, ceiled). ``game_sums`` adds what
the general figures count (outcome, chapters, length, the first seat), ``seat_sums`` the seat,
``name_sums`` the player (the leaders), ``explorer_sums`` the situation, context and move with the
wins, the placements and the three newest example games.

Files: ``<rollup>/game=<engine>/month=<YYYY-MM>/c-<n>.parquet`` sums the games of
``games/game=<engine>/month=<YYYY-MM>/c-<n>.parquet`` (a compacted file: the rollups are written by
the compaction, after that file is in place) and nothing else. Which rollup files count is thus
decided by which ``games`` files are in use: a rollup whose games file a later compaction replaced is
skipped and deleted, one missing (a compaction killed between the two) is written by the next
compaction, and meanwhile a reader sums that file's games from their raw rows
(:func:`sums_of`, the same SQL). So a kill anywhere leaves no game counted twice or missed.
Uncompacted games (their own ``g-`` files) have no rollup file: readers sum their raw rows.
"""

from __future__ import annotations

from pathlib import Path

BAND = 5  # rating band step: bands whose ends are multiples of it are answered from the rollups

# The dimensions a rollup keeps (besides the partition's game and month), from a games row ``g``:
# two families, each rollup kept once per family (``<rollup>`` and ``<rollup>_by_band``), since
# every table kind crossed with every rating band would sum little (docs/statistics.md).
FAMILIES: dict[str, tuple[tuple[str, str], ...]] = {
    "": (
        ("player_count", "g.player_count"),
        ("kind", "CASE WHEN g.bots = 0 THEN 'humans' WHEN g.humans = 0 THEN 'bots' ELSE 'mixed' END"),
        ("prearranged", "g.prearranged"),
    ),
    "_by_band": (
        ("player_count", "g.player_count"),
        ("band_low", f"floor(g.rating_min / {BAND})::INTEGER"),
        ("band_high", f"ceil(g.rating_max / {BAND})::INTEGER"),
    ),
}

# Each rollup: what it groups by besides the dimensions, what it sums, and the raw table joined to
# the game (None: the games rows alone).
_ROLLUPS: dict[str, tuple[str | None, tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]] = {
    "game_sums": (
        None,
        (("outcome", "g.outcome"), ("chapters", "g.chapters"), ("version", "g.version")),
        (
            ("n", "count(*)"),
            ("first_games", "count(g.first_seat)"),
            ("first_wins", "count(*) FILTER (WHERE list_contains(g.winners, g.first_seat))"),
        ),
    ),
    "seat_sums": (
        "seats",
        (("seat", "r.seat"),),
        (("n", "count(*)"), ("wins", "count(*) FILTER (WHERE r.won)")),
    ),
    "name_sums": (
        "seats",
        (("name_folded", "r.name_folded"),),
        (
            ("n", "count(*)"),
            ("wins", "count(*) FILTER (WHERE r.won)"),
            ("latest", "max({'finished': g.finished, 'name': r.name})"),
        ),
    ),
    "explorer_sums": (
        "decisions",
        (("situation", "r.situation"), ("context", "r.context"), ("move", "r.move")),
        (
            ("n", "count(*)"),
            ("wins", "count(*) FILTER (WHERE r.won)"),
            ("placements", "sum(r.placement)::BIGINT"),
            (
                "examples",
                "list_slice(list_reverse_sort("
                "list(DISTINCT {'finished': r.finished, 'game_id': r.game_id})), "
                "1, 3)",
            ),
        ),
    ),
}
ROLLUPS = tuple(f"{name}{family}" for family in FAMILIES for name in _ROLLUPS)


def _split(rollup: str) -> tuple[str, str]:
    for family in FAMILIES:
        if family and rollup.endswith(family):
            return rollup[: -len(family)], family
    return rollup, ""


def raw_of(rollup: str) -> str | None:
    """The raw table a rollup sums besides ``games`` (None: the games alone)."""
    return _ROLLUPS[_split(rollup)[0]][0]


def sums_of(rollup: str, games: str, raw: str | None, partition: bool) -> str:
    """The SELECT summing ``games`` (a relation of games rows) and, for rollups over seats or
    decisions, the rows of those games in ``raw``: with the partition columns ``game`` and ``month``
    (``partition``) or without them (a file's rows: the path holds them). Rows in a fixed order,
    so the same games give the same bytes."""
    name, family = _split(rollup)
    table, keys, sums = _ROLLUPS[name]
    grouped = [*FAMILIES[family], *keys]
    if partition:
        grouped = [("game", "g.game"), ("month", "g.month"), *grouped]
    columns = ", ".join(f"{sql} AS {name}" for name, sql in (*grouped, *sums))
    source = f"{games} g" if table is None else f"{raw} r JOIN {games} g ON r.game_id = g.game_id"
    if name == "name_sums":
        source += " WHERE r.name IS NOT NULL"
    order = ", ".join(name for name, _ in grouped)
    return f"SELECT {columns} FROM {source} GROUP BY ALL ORDER BY {order}"


# How a rollup's rows of the same group merge into one (the serving copy's all-months tables): the
# counts add, the newest game's spelling is the newest of the newest, the three newest examples are
# among the rows' three newest (a game is in one month, so in one row: no example twice).
_MERGE = {
    "latest": "max(latest)",
    "examples": "list_slice(list_reverse_sort(flatten(list(examples))), 1, 3)",
}
ALL_MONTHS = "_all"  # the suffix of the serving copy's all-months tables (``all_months_of``)


def all_months_of(rollup: str, rows: str) -> str:
    """The SELECT summing ``rows`` (a relation of ``rollup``'s rows, with the partition columns) over
    the months: one row per group of the other dimensions, the same sums. What a question with no
    date reads (a few thousand rows where the monthly rows are a few hundred thousand); summing
    both kinds of row gives the same answer (sums are associative; the newest of each group is the
    newest of its parts)."""
    name, family = _split(rollup)
    _, keys, sums = _ROLLUPS[name]
    grouped = ["game", *(n for n, _ in FAMILIES[family]), *(n for n, _ in keys)]
    merged = [_MERGE.get(n, f"sum({n})::BIGINT") + f" AS {n}" for n, _ in sums]
    order = "situation, context, move, " if name == "explorer_sums" else ""
    return (
        f"SELECT {', '.join(grouped)}, {', '.join(merged)} FROM {rows} "
        f"GROUP BY ALL ORDER BY {order}{', '.join(grouped)}"
    )


def rollup_path(root: Path, rollup: str, games_file: Path) -> Path:
    """The rollup file summing ``games_file`` (a compacted ``games`` file under ``root``)."""
    return root / rollup / games_file.relative_to(root / "games")
