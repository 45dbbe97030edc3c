"""The map (MAP-1) and the decks (CARD-1, CARD-2, CL-1), loaded from the JSON files in ``data/``
so that a correction is a data change. Everything here is immutable and precomputed at import."""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib import resources


def _load(name: str) -> dict:
    return json.loads(resources.files(__package__).joinpath("data", name).read_text("utf-8"))


_MAP = _load("map.json")
REGIONS: tuple[str, ...] = tuple(_MAP["regions"])  # in the order of the file
REGION_INDEX: dict[str, int] = {name: i for i, name in enumerate(REGIONS)}

# ADJACENT[i] is the bitmask of the regions bordering region i (bit j = region j).
_adjacent = []
for _name in REGIONS:
    _mask = 0
    for _other in _MAP["regions"][_name]:
        _mask |= 1 << REGION_INDEX[_other]
    _adjacent.append(_mask)
ADJACENT: tuple[int, ...] = tuple(_adjacent)
for _i, _m in enumerate(ADJACENT):  # borders are symmetric; a data error must not load silently
    for _j in range(len(REGIONS)):
        if (_m >> _j) & 1 and not (ADJACENT[_j] >> _i) & 1:
            raise ValueError(f"map.json: border {REGIONS[_i]}-{REGIONS[_j]} is not symmetric")
_ADJ_BY_BIT = {1 << i: m for i, m in enumerate(ADJACENT)}

_CARDS = _load("cards.json")
CARD_NAMES: dict[str, str] = {code: c["name"] for code, c in _CARDS["cards"].items()}
# Printed strength of each mercenary (CARD-3: only these are mercenaries).
MERCENARY: dict[str, int] = {code: c["strength"] for code, c in _CARDS["cards"].items() if c["mercenary"]}
HIDEABLE = frozenset(_CARDS["hideable"])  # OPT-HID-1
DECKS: dict[str, tuple[str, ...]] = {
    ruleset: tuple(sorted(code for code, count in counts.items() for _ in range(count)))
    for ruleset, counts in _CARDS["decks"].items()
}
DECK_COUNTS: dict[str, dict[str, int]] = {r: dict(c) for r, c in _CARDS["decks"].items()}
ALL_CARDS = frozenset(CARD_NAMES)
# How a player sorts a hand: Mercenaries by strength (m1 ... m10), then the special cards in the
# order cards.json lists them. States keep hands sorted by code (their JSON must not change); views
# show them in this order, so a client never sees m10 between m1 and m2.
_SPECIAL_RANK = {code: i for i, code in enumerate(c for c in CARD_NAMES if c not in MERCENARY)}


def card_order(code: str) -> tuple[int, int]:
    return (0, MERCENARY[code]) if code in MERCENARY else (1, _SPECIAL_RANK.get(code, len(_SPECIAL_RANK)))


class _SortKeys(dict[str, tuple[int, int]]):
    """Every card's ``card_order``, looked up rather than computed (a move sorts every seat's hand
    for its view); a code outside the card list gets its key computed."""

    def __missing__(self, code: str) -> tuple[int, int]:
        return card_order(code)


_SORT_KEYS = _SortKeys({code: card_order(code) for code in CARD_NAMES})


def in_card_order(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=_SORT_KEYS.__getitem__)


def largest_group(mask: int) -> int:
    """Size of the largest connected group of the regions in ``mask`` (MAP-2)."""
    best = 0
    while mask:
        frontier = mask & -mask
        group = 0
        while frontier:
            group |= frontier
            reach = 0
            f = frontier
            while f:
                bit = f & -f
                f ^= bit
                reach |= _ADJ_BY_BIT[bit]
            frontier = reach & mask & ~group
        mask &= ~group
        size = group.bit_count()
        if size > best:
            best = size
    return best
