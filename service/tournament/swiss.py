"""Swiss pairing for tables of N players.

Who sits with whom. The active entrants (withdrawn ones are dropped first, whatever the caller
passes) are ranked by the standings and cut into consecutive slices of the table sizes
(:func:`service.tournament.tables.table_sizes`): the *score groups*, leaders at the first tables.
A slice may seat players who have met before; the cost of a table is the pair
``(repeats, spread)``, compared in that order, where ``repeats`` counts every previous meeting of
every pair at the table (a pair that met twice weighs two) and ``spread`` is the sum of the score
differences of its pairs. So a repeat is avoided whenever moving players can avoid it, and among
equally repeat-free tables the closest scores win.

The search follows the FIDE Dutch system's handling of a bracket that cannot be paired as it stands
(C.04.3: transpositions inside a bracket, then exchanges with the neighbouring bracket) for tables
instead of pairs: for each two neighbouring tables one of which holds a repeat, every way to
re-split their players between them is tried and the cheapest kept, if it is strictly cheaper. A
player never sits more than one table away from the slice the ranking gave them (so score groups
hold: the leaders are never scattered down the field to dodge a repeat), and the passes over the
field are bounded (:data:`MAX_PASSES`), so a round costs ``O(tables * C(2k, k))`` at worst and in
practice only the tables with a repeat are looked at. A global optimum (a weighted k-dimensional
matching) is NP-hard for k >= 3; this bounded local search is why 10,000 entrants pair in well under
a second (bench/pairing.py).

Seats within a table balance the positions: each player's history counts how often they held each
position (0 = first player); the table's seating minimises, in order, the largest count any player
would reach and then the sum of the counts they would reach (every ordering of a table of at most
six is tried: 720 at most). Before that, tables whose players' histories collide (no seating keeps
all of them within one: the table's *deficit*, its size less a maximum matching of players to the
positions each may take, is above 0) swap players with equal-scored players of tables of the same
size up to :data:`FLOAT` away whenever that lowers the two tables' summed deficit, or passes it on
unchanged to a later table (so a chain of swaps reaches a table no single swap can), and adds no
repeat (:func:`balance_seats`, a few passes): equal scores, so the score groups and the spread stay
as they were. Round k at tables of k is the hard one: every player then has one position left, and
the players of one score cannot always be dealt so that each table holds k different ones;
bench/pairing.py counts the players left out of "within one" round by round (about 9-11% in that
round, none in the others).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import cache
from itertools import combinations, permutations

from service.tournament.tables import table_sizes

MAX_PASSES = 4
FLOAT = 2  # how many tables away from its slice a player may be moved

Met = Mapping[str, Mapping[str, int]]
SeatCounts = Mapping[str, Sequence[int]]


def history(
    rounds: Iterable[Sequence[Sequence[str]]],
) -> tuple[dict[str, dict[str, int]], dict[str, list[int]]]:
    """From past rounds (each a list of tables, each a list of players in seat order): how often
    each two players met, and how often each player held each position."""
    met: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    seats: dict[str, list[int]] = defaultdict(lambda: [0] * 6)
    for tables in rounds:
        for table in tables:
            for position, player in enumerate(table):
                seats[player][position] += 1
            for a, b in combinations(table, 2):
                met[a][b] += 1
                met[b][a] += 1
    return {p: dict(o) for p, o in met.items()}, dict(seats)


def _cost(table: Sequence[str], scores: Mapping[str, float], met: Met) -> tuple[float, float]:
    repeats = 0
    spread = 0.0
    for a, b in combinations(table, 2):
        repeats += met.get(a, {}).get(b, 0)
        spread += abs(scores.get(a, 0) - scores.get(b, 0))
    return repeats, spread


def _repeats(table: Sequence[str], met: Met) -> int:
    return sum(met.get(a, {}).get(b, 0) for a, b in combinations(table, 2))


def group(
    ranked: Sequence[str],
    sizes: Sequence[int],
    scores: Mapping[str, float],
    met: Met,
    passes: int = MAX_PASSES,
) -> list[list[str]]:
    """The tables (players unordered) for ``ranked`` players at tables of ``sizes``."""
    tables: list[list[str]] = []
    home: dict[str, int] = {}
    start = 0
    for index, size in enumerate(sizes):
        tables.append(list(ranked[start : start + size]))
        for player in tables[-1]:
            home[player] = index
        start += size
    if not met:
        return tables
    dirty = [_repeats(t, met) > 0 for t in tables]
    for _ in range(passes):
        improved = False
        for i in range(len(tables)):
            for j in range(i + 1, min(i + 1 + FLOAT, len(tables))):
                if not (dirty[i] or dirty[j]):
                    continue
                better = _resplit(tables[i], tables[j], i, j, home, scores, met)
                if better is not None:
                    tables[i], tables[j] = better
                    dirty[i] = _repeats(tables[i], met) > 0
                    dirty[j] = _repeats(tables[j], met) > 0
                    improved = True
        if not improved:
            break
    return tables


def _resplit(
    upper: list[str],
    lower: list[str],
    i: int,
    j: int,
    home: Mapping[str, int],
    scores: Mapping[str, float],
    met: Met,
) -> tuple[list[str], list[str]] | None:
    """The cheapest re-split of two neighbouring tables (``i`` and ``i + 1``) that keeps every
    player within one table of their slice, if strictly cheaper than the current one."""
    both = upper + lower
    c1, c2 = _cost(upper, scores, met), _cost(lower, scores, met)
    best = (c1[0] + c2[0], c1[1] + c2[1])
    found = None
    for chosen in combinations(range(len(both)), len(upper)):
        top = [both[x] for x in chosen]
        if any(home[p] > i + FLOAT for p in top):
            continue
        taken = set(chosen)
        bottom = [both[x] for x in range(len(both)) if x not in taken]
        if any(home[p] < j - FLOAT for p in bottom):
            continue
        a, b = _cost(top, scores, met), _cost(bottom, scores, met)
        cost = (a[0] + b[0], a[1] + b[1])
        if cost < best:
            best, found = cost, (top, bottom)
    return found


def _allowed(player: str, size: int, seat_counts: SeatCounts) -> int:
    """The positions (a bit mask) where ``player`` may sit and stay within one between their
    most- and least-held position."""
    counts = (list(seat_counts.get(player) or ()) + [0] * size)[:size]
    floor = min(counts)
    return sum(1 << pos for pos, c in enumerate(counts) if c == floor)


@cache
def _deficit(masks: tuple[int, ...]) -> int:
    """How many of a table's players cannot be given a position within one (the table's size
    less a maximum matching of players to their allowed positions; 0: Hall's condition holds)."""
    holder: dict[int, int] = {}

    def place(j: int, tried: int) -> tuple[bool, int]:
        free = masks[j] & ~tried
        while free:
            bit = free & -free
            free ^= bit
            tried |= bit
            other = holder.get(bit)
            if other is None:
                holder[bit] = j
                return True, tried
            moved, tried = place(other, tried)
            if moved:
                holder[bit] = j
                return True, tried
        return False, tried

    return sum(1 for j in range(len(masks)) if not place(j, 0)[0])


def collisions(table: Sequence[str], seat_counts: SeatCounts) -> int:
    """How many of ``table``'s players no seating keeps within one (:func:`_deficit`)."""
    return _deficit(tuple(sorted(_allowed(p, len(table), seat_counts) for p in table)))


def balance_seats(
    tables: list[list[str]],
    scores: Mapping[str, float],
    met: Met,
    seat_counts: SeatCounts,
    home: Mapping[str, int],
    passes: int = MAX_PASSES,
) -> None:
    """Swap players of equal score between tables of one size up to :data:`FLOAT` apart when that
    lowers the number of players whose seat histories collide (:func:`_deficit`) summed over the
    two tables, adds no repeat and keeps everyone within :data:`FLOAT` of their slice (in place;
    at most ``passes`` passes over the tables that still collide). Equal scores, so the score groups
    and the spread stay as they were; fewer collisions, so more players stay within one."""
    if not seat_counts:
        return
    masks = [[_allowed(p, len(t), seat_counts) for p in t] for t in tables]
    deficit = [_deficit(tuple(sorted(m))) for m in masks]
    # a pair of tables that found no swap is not tried again until one of them changes
    version = [0] * len(tables)
    failed: dict[tuple[int, int], tuple[int, int]] = {}
    for _ in range(passes):
        improved = False
        for i in range(len(tables)):
            if not deficit[i]:
                continue
            for j in range(max(0, i - FLOAT), min(len(tables), i + FLOAT + 1)):
                if j == i or len(tables[j]) != len(tables[i]) or not deficit[i]:
                    continue
                if failed.get((i, j)) == (version[i], version[j]):
                    continue
                if _swap_one(tables, masks, deficit, i, j, scores, met, home):
                    version[i] += 1
                    version[j] += 1
                    improved = True
                else:
                    failed[(i, j)] = (version[i], version[j])
        if not improved:
            break


def _swap_one(
    tables: list[list[str]],
    masks: list[list[int]],
    deficit: list[int],
    i: int,
    j: int,
    scores: Mapping[str, float],
    met: Met,
    home: Mapping[str, int],
) -> bool:
    """The first swap between tables ``i`` and ``j`` (same size) that lowers their summed deficit
    under :func:`balance_seats`' conditions, made in place (``masks``: each table's players'
    allowed positions, in the table's order)."""
    ti, tj, mi, mj = tables[i], tables[j], masks[i], masks[j]
    before = deficit[i] + deficit[j]
    score_j = [scores.get(b, 0) for b in tj]
    for x, a in enumerate(ti):
        if abs(home[a] - j) > FLOAT:
            continue
        score_a = scores.get(a, 0)
        for y, b in enumerate(tj):
            # the same allowed positions: the swap changes no deficit
            if mi[x] == mj[y] or score_j[y] != score_a or abs(home[b] - i) > FLOAT:
                continue
            ni = [*mi[:x], mj[y], *mi[x + 1 :]]
            nj = [*mj[:y], mi[x], *mj[y + 1 :]]
            di, dj = _deficit(tuple(sorted(ni))), _deficit(tuple(sorted(nj)))
            # lower in sum, or the same sum moved one way (to a later table, which may then pass
            # it on or resolve it: a chain of swaps no single swap finds, and never a cycle)
            if di + dj > before or (di + dj == before and (j < i or di >= deficit[i])):
                continue
            ma, mb = met.get(a, {}), met.get(b, {})
            stay_i = [p for p in ti if p != a]
            stay_j = [p for p in tj if p != b]
            added = sum(mb.get(p, 0) for p in stay_i) + sum(ma.get(p, 0) for p in stay_j)
            if added > sum(ma.get(p, 0) for p in stay_i) + sum(mb.get(p, 0) for p in stay_j):
                continue
            tables[i] = [*ti[:x], b, *ti[x + 1 :]]
            tables[j] = [*tj[:y], a, *tj[y + 1 :]]
            masks[i], masks[j] = ni, nj  # equal sizes: a player's allowed positions travel with them
            deficit[i], deficit[j] = di, dj
            return True
    return False


def seat(table: Sequence[str], seat_counts: SeatCounts) -> list[str]:
    """``table``'s players in seat order, balancing the positions each has held (module doc)."""
    k = len(table)
    counts = [list(seat_counts.get(p) or ())[:k] + [0] * (k - len(seat_counts.get(p) or ())) for p in table]
    if not any(any(c) for c in counts):
        return list(table)
    floors = [min(c) for c in counts]
    best: tuple[int, int, int] | None = None
    order: Sequence[int] = range(k)
    for positions in permutations(range(k)):
        # positions[j]: the seat of table[j]; excess: how far above its least-held position the
        # player's count there would rise (0 or 1 keeps the player within one)
        excess = [counts[j][positions[j]] + 1 - floors[j] for j in range(k)]
        cost = (max(excess), sum(e * e for e in excess), counts[0][positions[0]])
        if best is None or cost < best:
            best, order = cost, positions
    seated = [""] * len(table)
    for j, position in enumerate(order):
        seated[position] = table[j]
    return seated


def swiss_round(
    ranked: Sequence[str],
    scores: Mapping[str, float],
    size: int,
    min_size: int,
    met: Met | None = None,
    seat_counts: SeatCounts | None = None,
    withdrawn: Collection[str] = (),
    max_size: int | None = None,
    passes: int = MAX_PASSES,
) -> list[list[str]]:
    """One Swiss round: ``ranked`` (the standings' order, best first) seated at tables of ``size``
    (mixed as :func:`table_sizes` says), each table's players in seat order."""
    gone = set(withdrawn)
    active = [p for p in ranked if p not in gone]
    sizes = table_sizes(len(active), size, min_size, max_size)
    tables = group(active, sizes, scores, met or {}, passes)
    home = {}
    start = 0
    for index, n in enumerate(sizes):
        for p in active[start : start + n]:
            home[p] = index
        start += n
    balance_seats(tables, scores, met or {}, seat_counts or {}, home)
    return [seat(t, seat_counts or {}) for t in tables]
