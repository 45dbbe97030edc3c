"""Elimination: tables of N, the best K of each table advance, until one table is left (the final).

The field is seeded (by rating, or by the standings of a Swiss before it) and dealt to the tables in
a serpentine (1..t, then t..1, ...), the way elimination brackets spread their seeds, so the top
seeds do not meet before the later rounds. Ties at the cut are broken by the seeding.

Standings rank by the round reached, not by points (:func:`by_round_reached`): the final table's
places, then those out in the round before it by their place at their table, and so on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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


Table = tuple[Sequence[str], Sequence[Sequence[str]] | None]  # players, placing (None: playing)


def reached(rounds: Sequence[Sequence[Table]]) -> dict[str, tuple[int, int | None]]:
    """Each player's round reached (1-based: the last round it sat at a table) and its place at that
    table (1 for the winners, players tied sharing the best place they cover, as "2nd=" reads;
    None while that table still plays). ``rounds``: every round's tables as (players, placing or
    None), in order."""
    out: dict[str, tuple[int, int | None]] = {}
    for number, tables in enumerate(rounds, start=1):
        for players, placing in tables:
            places: dict[str, int | None] = dict.fromkeys(players)
            place = 1
            for tied in placing or ():
                for player in tied:
                    places[player] = place
                place += len(tied)
            for player in players:
                out[player] = (number, places[player])
    return out


def by_round_reached(order: Sequence[str], reach: Mapping[str, tuple[int, int | None]]) -> list[str]:
    """The elimination standings: the later the round a player reached, the better (the final
    table's places first, then those out in the round before it, by their place at their table,
    and so on); players of one round and one place (from different tables, or tied at one) in
    ``order``, the points standings (placement points over all their tables, then opponents'
    points, head-to-head, rating, account id: ``scoring.standings``). The players of a table still
    playing share its first place until it ends; an entrant who never sat at a table comes last."""
    position = {p: i for i, p in enumerate(order)}

    def key(player: str) -> tuple[int, int, int]:
        number, place = reach.get(player, (0, None))
        return (-number, place or 0, position[player])

    return sorted(order, key=key)
