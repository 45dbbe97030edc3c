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

First seats come first. A round hands out one first seat per table; "within one" means that over
the players still in the event, the most first seats any has held less the fewest is at most one
after every round. Which player of a table sits first is free once its players are fixed, so the
constraint is on the composition: each table must hold a player due the first seat
(:func:`first_seat_claims`: MUST, the players below the ``tables``-th lowest count; DUE, those at
it), and no table two MUST players. Before the grouping, :func:`arrange_claims` reorders the
standings so that the plain cut meets this: an order-preserving merge of the three classes (MUST,
DUE, neither), each table taking its quota of each class, the quota following the class's own
density in the standings and clamped to what the table needs and the later tables can still take.
This is the transport problem on a line (units of "claim" to tables, one class at a time), whose
order-preserving assignment moves players least; a player changes places only with players of
another class, never passes one of their own, and is not moved at all when the plain cut already
holds a first-seater at every table. Always achievable whatever the mix of table sizes (13 at 4:
4+3+3+3 is still one first seat per table) and after withdrawals; not after a late entry (a newcomer
at 0 when the others have 2), where the newcomers are MUST every round until they catch up. The
cost is the score: when a class's players are not spread evenly over the standings, a claimant sits
at a table whose slice had another score (the *weighting*: first seats within one are a hard
constraint, taken before repeats and spread; bench/pairing.py counts the players seated on a slot of
another score, round by round). The grouping's re-splits and the seat swaps below keep every table
meeting it, so repeats are avoided among the compositions that keep first seats within one (at two
tables, exactly the fewest).

The other positions balance per player: each player's history counts how often they held each
position (0 = first player); the table's seating gives the first seat to its MUST player, or one of
its DUE players, and otherwise minimises, in order, the largest count any player would reach and
then the sum of the counts they would reach (every ordering of a table of at most six is tried: 720
at most). Before that, tables whose players' histories collide (no seating keeps all of them within
one between their most- and least-held position: the table's *deficit*, its size less a maximum
matching of players to the positions each may take, is above 0) swap players with equal-scored
players of tables of the same size up to :data:`FLOAT` away whenever that lowers the two tables'
summed deficit, or passes it on unchanged to a later table (so a chain of swaps reaches a table no
single swap can), adds no repeat and leaves both tables a first-seater (:func:`balance_seats`, a few
passes): equal scores, so the score groups and the spread stay as they were. This per-player balance
is not always achievable (round k at tables of k: every player has one position left, and the
players of one score cannot always be dealt so that each table holds k different ones);
bench/pairing.py counts the players left two apart round by round.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import cache
from itertools import combinations, permutations

from service.tournament.tables import table_sizes

MAX_PASSES = 4
FLOAT = 2  # how many tables away from its slice a player may be moved
NEITHER, DUE, MUST = 0, 1, 2  # a player's claim on this round's first seats (first_seat_claims)

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
    claims: Mapping[str, int] | None = None,
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
                better = _resplit(tables[i], tables[j], i, j, home, scores, met, claims or {})
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
    claims: Mapping[str, int],
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
        if claims and not (_seatable_first(top, claims) and _seatable_first(bottom, claims)):
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
    claims: Mapping[str, int] | None = None,
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
                if _swap_one(tables, masks, deficit, i, j, scores, met, home, claims or {}):
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
    claims: Mapping[str, int],
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
            keeps = _seatable_first([*stay_i, b], claims) and _seatable_first([*stay_j, a], claims)
            if claims and not keeps:
                continue
            tables[i] = [*ti[:x], b, *ti[x + 1 :]]
            tables[j] = [*tj[:y], a, *tj[y + 1 :]]
            masks[i], masks[j] = ni, nj  # equal sizes: a player's allowed positions travel with them
            deficit[i], deficit[j] = di, dj
            return True
    return False


def _seatable_first(table: Iterable[str], claims: Mapping[str, int]) -> bool:
    """At most one MUST player and at least one MUST or DUE player (:func:`first_seat_claims`)."""
    held = [claims.get(p, NEITHER) for p in table]
    return held.count(MUST) <= 1 and any(held)


def _first_candidates(table: Sequence[str], claims: Mapping[str, int]) -> set[str]:
    """Who may take ``table``'s first seat: its MUST player, else its DUE players (else anyone:
    only when the composition could not be made, which the property tests rule out)."""
    for level in (MUST, DUE):
        chosen = {p for p in table if claims.get(p, NEITHER) == level}
        if chosen:
            return chosen
    return set(table)


def seat(table: Sequence[str], seat_counts: SeatCounts, first: Collection[str] | None = None) -> list[str]:
    """``table``'s players in seat order, balancing the positions each has held (module doc); the
    first seat goes to one of ``first`` when given."""
    k = len(table)
    counts = [list(seat_counts.get(p) or ())[:k] + [0] * (k - len(seat_counts.get(p) or ())) for p in table]
    if not any(any(c) for c in counts) and (first is None or table[0] in first):
        return list(table)
    floors = [min(c) for c in counts]
    best: tuple[int, int, int] | None = None
    order: Sequence[int] = range(k)
    for positions in permutations(range(k)):
        if first is not None and table[positions.index(0)] not in first:
            continue
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
    claims = first_seat_claims(active, len(sizes), seat_counts) if seat_counts else {}
    active = arrange_claims(active, sizes, claims)
    tables = group(active, sizes, scores, met or {}, passes, claims)
    home = {}
    start = 0
    for index, n in enumerate(sizes):
        for p in active[start : start + n]:
            home[p] = index
        start += n
    if not seat_counts:
        return [seat(t, {}) for t in tables]
    balance_seats(tables, scores, met or {}, seat_counts, home, claims=claims)
    return [seat(t, seat_counts, _first_candidates(t, claims)) for t in tables]


def first_seat_claims(players: Iterable[str], tables: int, seat_counts: SeatCounts) -> dict[str, int]:
    """Who this round's ``tables`` first seats (one a table, whatever its size) go to: the players
    who held the first seat least. With ``v`` the ``tables``-th lowest first-seat count, a player
    below ``v`` MUST sit first, a player at ``v`` is DUE (any of them may), a player above may not.
    When the counts are within one before the round, they are within one after it exactly when each
    table holds at most one MUST player and at least one MUST or DUE player (a MUST player left out,
    or a first seat given above ``v``, leaves two players two apart); after a late entry the lowest
    counts still get the seats, so the gap closes by one a round.
    """
    first = {p: (seat_counts.get(p) or (0,))[0] for p in players}
    if not first or not tables:
        return {}
    v = sorted(first.values())[min(tables, len(first)) - 1]
    return {p: MUST if f < v else DUE if f == v else NEITHER for p, f in first.items()}


def arrange_claims(ranked: Sequence[str], sizes: Sequence[int], claims: Mapping[str, int]) -> list[str]:
    """``ranked`` reordered so that the plain cut into ``sizes`` gives every table at most one
    MUST player and at least one MUST or DUE player: a three-way merge that keeps each claim
    class in the standings' order (the k-th MUST player by standing takes the k-th MUST place), so
    a player only ever changes places with players of another class. Each table's quota of a class
    follows the class's own density in the standings (its count in the table's slice, less what
    earlier tables already took beyond theirs), clamped to what the table needs (MUST 0-1, MUST or
    DUE at least 1) and to what the tables after it can still take, so players move no further
    than the running surplus or shortage of their class (:func:`first_seat_claims`)."""
    if not claims or all(claims.get(p, NEITHER) == DUE for p in ranked):
        return list(ranked)
    ends, start = [], 0
    for size in sizes:
        start += size
        ends.append(start)
    by_class: dict[int, list[str]] = {MUST: [], DUE: [], NEITHER: []}
    for p in ranked:
        by_class[claims.get(p, NEITHER)].append(p)
    must = _quotas(ranked, ends, claims, MUST, [0] * len(sizes), [1] * len(sizes))
    room = [s - m for s, m in zip(sizes, must, strict=True)]
    due = _quotas(ranked, ends, claims, DUE, [1 - m for m in must], room)
    rank = {p: i for i, p in enumerate(ranked)}
    out: list[str] = []
    taken = {MUST: 0, DUE: 0, NEITHER: 0}
    for size, m, d in zip(sizes, must, due, strict=True):
        table: list[str] = []
        for cls, q in ((MUST, m), (DUE, d), (NEITHER, size - m - d)):
            table.extend(by_class[cls][taken[cls] : taken[cls] + q])
            taken[cls] += q
        out.extend(sorted(table, key=rank.__getitem__))
    return out


def _quotas(
    ranked: Sequence[str],
    ends: Sequence[int],
    claims: Mapping[str, int],
    cls: int,
    lo: list[int],
    hi: list[int],
) -> list[int]:
    """How many players of ``cls`` each table takes (:func:`arrange_claims`)."""
    natural, seen, at = [], 0, 0
    for end in ends:
        seen += sum(1 for p in ranked[at:end] if claims.get(p, NEITHER) == cls)
        natural.append(seen)
        at = end
    left = seen
    suffix_lo, suffix_hi = [0] * (len(ends) + 1), [0] * (len(ends) + 1)
    for t in range(len(ends) - 1, -1, -1):
        suffix_lo[t] = suffix_lo[t + 1] + lo[t]
        suffix_hi[t] = suffix_hi[t + 1] + hi[t]
    quotas, assigned = [], 0
    for t in range(len(ends)):
        want = natural[t] - assigned
        q = max(lo[t], left - suffix_hi[t + 1], min(hi[t], left - suffix_lo[t + 1], want))
        q = min(q, hi[t], left - suffix_lo[t + 1])
        quotas.append(q)
        assigned += q
        left -= q
    return quotas
