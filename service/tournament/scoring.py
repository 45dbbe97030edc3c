"""Placement points, standings and tie-breaks, and duplicate rounds' comparisons.

Placement points: a table of ``k`` players gives ``2(k-1), 2(k-2), ..., 2`` to its first ``k-1``
places and ``1`` to the last (a table of 4: 6/4/2/1; the last still scores, so turning up counts),
then scales them so that every table is worth as much as a table of 4 (13 points): a table of 3
gives 4/2/1 * 13/7. Players tied at a table share the points of the places they cover. Points are
exact fractions, so standings recounted from the games equal the stored ones exactly.

Standings order: score, then opponents' scores (the sum of the current scores of every opponent at
every table, a meeting twice counting twice: a Buchholz for tables), then head-to-head among the
players still tied (how often each finished ahead of the others of the tie, minus behind), then
rating, then the account id (so the order is total and the same everywhere).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

TABLE_TOTAL = 13  # a table of 4's 6+4+2+1


def points_for(size: int) -> tuple[Fraction, ...]:
    """The points of each place at a table of ``size`` (module doc)."""
    raw = [2 * (size - 1 - i) for i in range(size - 1)] + [1]
    scale = Fraction(TABLE_TOTAL, sum(raw))
    return tuple(r * scale for r in raw)


@dataclass(frozen=True)
class TableResult:
    """A finished table: its players in seat order and its placing (groups of tied players,
    best first; every player in exactly one group)."""

    players: tuple[str, ...]
    placing: tuple[tuple[str, ...], ...]


def placement_points(result: TableResult) -> dict[str, Fraction]:
    points = points_for(len(result.players))
    out: dict[str, Fraction] = {}
    place = 0
    for tied in result.placing:
        share = sum(points[place : place + len(tied)], Fraction(0)) / len(tied)
        for player in tied:
            out[player] = share
        place += len(tied)
    return out


def _place_of(result: TableResult) -> dict[str, int]:
    return {p: i for i, tied in enumerate(result.placing) for p in tied}


@dataclass(frozen=True)
class Standing:
    player: str
    score: Fraction
    opponents: Fraction
    head_to_head: int
    rating: float
    rank: int


def standings(
    entrants: Mapping[str, float],
    rounds: Sequence[Sequence[TableResult]],
    round_points: Sequence[Mapping[str, Fraction]] | None = None,
) -> list[Standing]:
    """Every entrant's standing (``entrants``: player -> rating) from the finished tables of
    ``rounds``. ``round_points``: each round's scores when they are not plain placement points (a
    duplicate round's, :func:`duplicate_points`)."""
    score: dict[str, Fraction] = {p: Fraction(0) for p in entrants}
    opponents: dict[str, list[str]] = defaultdict(list)
    ahead: dict[tuple[str, str], int] = defaultdict(int)
    for index, tables in enumerate(rounds):
        given = round_points[index] if round_points is not None else None
        for result in tables:
            points = placement_points(result)
            places = _place_of(result)
            for player in result.players:
                score[player] = score.get(player, Fraction(0)) + (
                    given[player] if given is not None else points[player]
                )
                for other in result.players:
                    if other != player:
                        opponents[player].append(other)
                        if places[player] < places[other]:
                            ahead[(player, other)] += 1
    opp = {p: sum((score[o] for o in opponents[p]), Fraction(0)) for p in score}
    tied: dict[tuple[Fraction, Fraction], list[str]] = defaultdict(list)
    for p in score:
        tied[(score[p], opp[p])].append(p)
    h2h: dict[str, int] = {}
    for group in tied.values():
        for p in group:
            h2h[p] = sum(ahead[(p, q)] - ahead[(q, p)] for q in group if q != p)
    order = sorted(score, key=lambda p: (-score[p], -opp[p], -h2h[p], -entrants.get(p, 0), p))
    return [
        Standing(p, score[p], opp[p], h2h[p], float(entrants.get(p, 0)), rank + 1)
        for rank, p in enumerate(order)
    ]


def duplicate_seating(tables: Sequence[Sequence[str]]) -> list[list[str]]:
    """A duplicate round's seat orders: among the tables of one size (one deal: they share a
    seed), the ``j``-th table's players (in the order the pairing ranked them) are rotated by ``j``
    seats, so the deal's seat ``s`` is played by each table's first-ranked, second-ranked ...
    player in turn; with at least ``k`` tables of ``k`` every hand is played from every rank."""
    seen: dict[int, int] = defaultdict(int)
    out = []
    for table in tables:
        k = len(table)
        shift = seen[k] % k
        seen[k] += 1
        out.append(list(table[-shift:]) + list(table[:-shift]) if shift else list(table))
    return out


def duplicate_points(tables: Sequence[TableResult]) -> dict[str, Fraction]:
    """A duplicate round's scores: a player's placement points, less the mean of everyone who
    held the same seat of the same deal (tables of the same size), plus that mean over all seats
    (``13 / k``), so a round still hands out 13 per table and a player who did as well as the
    others with the same cards scores a table's average."""
    held: dict[tuple[int, int], list[Fraction]] = defaultdict(list)
    points: dict[str, Fraction] = {}
    for result in tables:
        own = placement_points(result)
        points.update(own)
        for s, player in enumerate(result.players):
            held[(len(result.players), s)].append(own[player])
    out = {}
    for result in tables:
        k = len(result.players)
        for s, player in enumerate(result.players):
            same = held[(k, s)]
            out[player] = points[player] - sum(same, Fraction(0)) / len(same) + Fraction(TABLE_TOTAL, k)
    return out
