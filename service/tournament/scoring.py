"""Placement points, standings and tie-breaks, and duplicate rounds' comparisons.

Placement points: a table of ``k`` players gives ``2(k-1), 2(k-2), ..., 2`` to its first ``k-1``
places and ``1`` to the last (a table of 4: 6/4/2/1; the last still scores, so turning up counts),
then scales them so that every table is worth as much as a table of 4 (13 points): a table of 3
gives 4/2/1 * 13/7. Players tied at a table share the points of the places they cover.

Standings count in integer *units* (:data:`UNITS_PER_TABLE` to a table, whatever its size), not in
fractions: a unit is so small that every place of every table size from 2 to 8 is a whole number
of units, and so is every share of tied places (each place's units are a multiple of 1..8, so any
group of up to 8 tied players splits its sum exactly). Sums of integers are exact and cheap, so
standings recounted from the games equal the stored ones exactly, and a field of 10,000 is ranked
in a fraction of the time exact fractions took (bench/pairing.py). ``Standing.score`` still reads in
points (units / :data:`UNIT`), a :class:`~fractions.Fraction` so nothing is rounded.

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
from functools import cache, reduce
from math import lcm

TABLE_TOTAL = 13  # a table of 4's 6+4+2+1
SIZES = range(2, 9)  # the table sizes a tournament may have (service.tournament.service.allowed_sizes)
# one table's worth: divisible by every size's raw total (k(k-1)+1) and then by every tie's size
UNITS_PER_TABLE = reduce(lcm, (k * (k - 1) + 1 for k in SIZES)) * reduce(lcm, SIZES)
UNIT = Fraction(UNITS_PER_TABLE, TABLE_TOTAL)  # units in one point
Units = int | Fraction  # whole units but for duplicate rounds (see standings)


def _raw(size: int) -> list[int]:
    return [2 * (size - 1 - i) for i in range(size - 1)] + [1]


def points_for(size: int) -> tuple[Fraction, ...]:
    """The points of each place at a table of ``size`` (module doc)."""
    raw = _raw(size)
    scale = Fraction(TABLE_TOTAL, sum(raw))
    return tuple(r * scale for r in raw)


@cache
def units_for(size: int) -> tuple[int, ...]:
    """The units of each place at a table of ``size``: :func:`points_for` times :data:`UNIT`."""
    if size not in SIZES:
        raise ValueError(f"tables of {size}: sizes from {SIZES.start} to {SIZES.stop - 1}")
    raw = _raw(size)
    return tuple(r * (UNITS_PER_TABLE // sum(raw)) for r in raw)


@dataclass(frozen=True)
class TableResult:
    """A finished table: its players in seat order and its placing (groups of tied players,
    best first; every player in exactly one group)."""

    players: tuple[str, ...]
    placing: tuple[tuple[str, ...], ...]


def placement_units(result: TableResult) -> dict[str, int]:
    """Each player's units for one table (ties share the units of the places they cover, exactly)."""
    units = units_for(len(result.players))
    out: dict[str, int] = {}
    place = 0
    for tied in result.placing:
        share, left = divmod(sum(units[place : place + len(tied)]), len(tied))
        assert not left, "UNITS_PER_TABLE divides every tie"
        for player in tied:
            out[player] = share
        place += len(tied)
    return out


def placement_points(result: TableResult) -> dict[str, Fraction]:
    return {p: u / UNIT for p, u in placement_units(result).items()}


def _place_of(result: TableResult) -> dict[str, int]:
    return {p: i for i, tied in enumerate(result.placing) for p in tied}


@dataclass(frozen=True)
class Standing:
    """One entrant's place; ``units`` and ``opponent_units`` are the integers it is ranked by,
    ``score`` and ``opponents`` the same read in points."""

    player: str
    units: Units
    opponent_units: Units
    head_to_head: int
    rating: float
    rank: int

    @property
    def score(self) -> Fraction:
        return self.units / UNIT

    @property
    def opponents(self) -> Fraction:
        return self.opponent_units / UNIT


def standings(
    entrants: Mapping[str, float],
    rounds: Sequence[Sequence[TableResult]],
    round_points: Sequence[Mapping[str, Fraction] | None] | None = None,
) -> list[Standing]:
    """Every entrant's standing (``entrants``: player -> rating) from the finished tables of
    ``rounds``. ``round_points``: each round's scores in points when they are not plain placement
    points (a duplicate round's, :func:`duplicate_points`), None for a round that is plain (its
    placement units are summed as integers, the fast path)."""
    score: dict[str, Units] = dict.fromkeys(entrants, 0)
    opponents: dict[str, list[str]] = defaultdict(list)
    ahead: dict[tuple[str, str], int] = defaultdict(int)
    for index, tables in enumerate(rounds):
        given = round_points[index] if round_points is not None else None
        for result in tables:
            units: Mapping[str, Units] = placement_units(result)
            if given is not None:
                units = {p: _to_units(given[p]) for p in result.players}
            places = _place_of(result)
            for player in result.players:
                score[player] = score.get(player, 0) + units[player]
                mine = places[player]
                others = opponents[player]
                for other in result.players:
                    if other != player:
                        others.append(other)
                        if mine < places[other]:
                            ahead[(player, other)] += 1
    opp: dict[str, Units] = {p: sum((score[o] for o in opponents[p]), 0) for p in score}
    tied: dict[tuple[Units, Units], list[str]] = defaultdict(list)
    for p in score:
        tied[(score[p], opp[p])].append(p)
    h2h: dict[str, int] = dict.fromkeys(score, 0)
    for group in tied.values():
        if len(group) > 1:
            for p in group:
                h2h[p] = sum(ahead.get((p, q), 0) - ahead.get((q, p), 0) for q in group if q != p)
    order = sorted(score, key=lambda p: (-score[p], -opp[p], -h2h[p], -entrants.get(p, 0), p))
    return [
        Standing(p, score[p], opp[p], h2h[p], float(entrants.get(p, 0)), rank + 1)
        for rank, p in enumerate(order)
    ]


def _to_units(points: Fraction) -> Units:
    # a duplicate round's means (a sum over the tables of one deal, divided by their count) need
    # not be whole units: kept exact as a fraction, only those rounds leave the integer path
    units = Fraction(points) * UNIT
    return int(units) if units.denominator == 1 else units


def duplicate_seating(tables: Sequence[Sequence[str]], keep_first: bool = False) -> list[list[str]]:
    """A duplicate round's seat orders: among the tables of one size (one deal: they share a
    seed), the ``j``-th table's players (in the order the pairing seated them) are rotated by ``j``
    seats, so the deal's seat ``s`` is played by each table's first-, second-... placed player in
    turn; with at least ``k`` tables of ``k`` every hand is played from every place.

    ``keep_first`` (a Swiss round after the first, whose pairing gave each table's first seat to a
    player due it): seat 0 stays with that player and only the other ``k - 1`` rotate (by ``j``
    modulo ``k - 1``), so first seats stay within one as in a plain round; rotating it away hands a
    first seat to a player who has held more (four apart over six rounds of a field of 16 at 4)."""
    seen: dict[int, int] = defaultdict(int)
    out = []
    for table in tables:
        k = len(table)
        fixed = 1 if keep_first and k > 1 else 0
        head, rest = list(table[:fixed]), list(table[fixed:])
        shift = seen[k] % len(rest) if rest else 0
        seen[k] += 1
        out.append(head + (rest[-shift:] + rest[:-shift] if shift else rest))
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
