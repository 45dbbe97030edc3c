"""Forming tables from seeks: a sort-and-sweep over ratings, with ranges that widen as seekers wait.

Pure (no I/O): the matcher (``service.seeks``) hands it the live seeks of one pool (the same game,
configuration, clock and rated flag, so the same number of seats ``size``) and the time, and
creates the games of the tables it returns.

Compatibility: a table of ``size`` seekers is compatible when the spread of its ratings (highest
minus lowest) is within every member's tolerance, and bots are welcome to every human at it when a
bot account sits there. A seeker's tolerance is its own range plus :data:`WIDEN_PER_SECOND` for
each second it has waited, and unbounded once it has waited :data:`ANY_AFTER_SECONDS`.

Pass 1 (close ratings first): sort by rating (n log n), then sweep: the ``size`` seekers from
position ``i`` form a table when compatible (and the sweep jumps past them), else the sweep moves
one seeker on. Each step checks one window of ``size`` seekers, so the sweep is O(n * size) and
the pass O(n log n); neighbours in rating order are the closest tables there are, which is what
"prefer close ratings" asks.

Pass 2 (nobody waits forever): the seekers left whose tolerance is unbounded are grouped oldest
first, whatever their ratings: humans with humans, then bot accounts with the humans who allow
bots. The bound this gives (docs/api.md, "Quick pairing"): once a seeker has waited
``ANY_AFTER_SECONDS``, it is paired at the first pass after ``size - 1`` other seekers of its pool
have waited as long and were not paired with closer ones, that is within ``ANY_AFTER_SECONDS``
plus one matcher interval of the arrival of the last of them.

Why not the literature's optimal matchings (Lichess's pool pairs two-player waves with maximum
weight matching, the blossom algorithm, O(n^3)): tables here have up to six seats (a matching of
hypergraphs, NP-hard beyond two), and a pass over 10,000 seeks must take milliseconds; the sorted
sweep is the standard greedy for one-dimensional grouping and is what bench/matcher.py measures.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

WIDEN_PER_SECOND = 0.1
ANY_AFTER_SECONDS = 60.0


@dataclass(frozen=True)
class Seeker:
    id: str
    rating: float
    range: float  # the rating distance the seeker accepts at once
    since_ms: int
    bots_ok: bool = True  # a human's: bot accounts may sit at its table
    is_bot: bool = False  # a bot account


@dataclass(frozen=True)
class Widening:
    per_second: float = WIDEN_PER_SECOND
    any_after_seconds: float = ANY_AFTER_SECONDS

    def tolerance(self, seeker: Seeker, now_ms: int) -> float:
        waited = max(0.0, (now_ms - seeker.since_ms) / 1000)
        if waited >= self.any_after_seconds:
            return math.inf
        return seeker.range + self.per_second * waited


def _bots_fit(group: Sequence[Seeker]) -> bool:
    return not any(s.is_bot for s in group) or all(s.bots_ok or s.is_bot for s in group)


def compatible(group: Sequence[Seeker], now_ms: int, widening: Widening) -> bool:
    spread = group[-1].rating - group[0].rating  # the group is in rating order
    return _bots_fit(group) and all(widening.tolerance(s, now_ms) >= spread for s in group)


def form_tables(
    seekers: Iterable[Seeker], size: int, now_ms: int, widening: Widening | None = None
) -> list[list[Seeker]]:
    """Tables of ``size`` seekers each (every seeker in at most one)."""
    widening = widening or Widening()
    order = sorted(seekers, key=lambda s: (s.rating, s.since_ms, s.id))
    tables: list[list[Seeker]] = []
    left: list[Seeker] = []
    i = 0
    while i + size <= len(order):
        group = order[i : i + size]
        if compatible(group, now_ms, widening):
            tables.append(group)
            i += size
        else:
            left.append(order[i])
            i += 1
    left.extend(order[i:])
    patient = sorted(
        (s for s in left if math.isinf(widening.tolerance(s, now_ms))), key=lambda s: (s.since_ms, s.id)
    )
    humans = [s for s in patient if not s.is_bot]
    whole = len(humans) - len(humans) % size
    tables.extend(sorted(humans[k : k + size], key=lambda s: s.rating) for k in range(0, whole, size))
    bots = [s for s in patient if s.is_bot]
    mixed = sorted([s for s in humans[whole:] if s.bots_ok] + bots, key=lambda s: (s.since_ms, s.id))
    whole = len(mixed) - len(mixed) % size
    tables.extend(sorted(mixed[k : k + size], key=lambda s: s.rating) for k in range(0, whole, size))
    return tables
