"""Elimination: tables of N, the best K of each table advance, until one table is left (the final).

The field is seeded (by rating, or by the standings of a Swiss before it) and dealt to the tables in
a serpentine (1..t, then t..1, ...), the way elimination brackets spread their seeds, so the top
seeds do not meet before the later rounds. Ties at the cut are broken by the seeding."""

from __future__ import annotations

from collections.abc import Sequence

from service.tournament.tables import TableSizeError, table_sizes


def is_final(n: int, size: int) -> bool:
    return n <= size


def elimination_tables(
    seeded: Sequence[str], size: int, min_size: int, advance: int, max_size: int | None = None
) -> list[list[str]]:
    """The tables of an elimination round (players in seeding order at each table)."""
    if is_final(len(seeded), size):
        if len(seeded) < min_size:
            raise TableSizeError(f"a final of {len(seeded)} is smaller than the game allows")
        return [list(seeded)]
    sizes = table_sizes(len(seeded), size, min_size, max_size)
    if not 1 <= advance < min(sizes):
        raise TableSizeError(f"{advance} cannot advance from tables of {min(sizes)}")
    tables: list[list[str]] = [[] for _ in sizes]
    order = list(range(len(sizes)))
    i = 0
    for player in seeded:
        while True:
            lap, step = divmod(i, len(sizes))
            t = order[step] if lap % 2 == 0 else order[-1 - step]
            i += 1
            if len(tables[t]) < sizes[t]:
                break
        tables[t].append(player)
    return tables


def advancing(placings: Sequence[Sequence[Sequence[str]]], seeding: Sequence[str], advance: int) -> list[str]:
    """Who advances: the best ``advance`` of every table (``placings``: each table's groups of tied
    players, best first), in the next round's seeding order (every table's winner, by seed, then
    every second ...)."""
    seed = {p: i for i, p in enumerate(seeding)}
    by_place: list[list[str]] = [[] for _ in range(advance)]
    for placing in placings:
        flat = [p for tied in placing for p in sorted(tied, key=seed.__getitem__)]
        for place, player in enumerate(flat[:advance]):
            by_place[place].append(player)
    return [p for row in by_place for p in sorted(row, key=seed.__getitem__)]
