"""The rules' data written down by hand from shared/rules/condottiere.md, independently of the
engine (so the tests can catch a wrong table in the engine's data)."""

from __future__ import annotations

from collections.abc import Iterable

# Card counts written down from the rules (CARD-1, CARD-2, CL-1), independently of the engine's data.
DECK_2006: dict[str, int] = {
    "m1": 10,
    "m2": 8,
    "m3": 8,
    "m4": 8,
    "m5": 8,
    "m6": 8,
    "m10": 8,
    "winter": 3,
    "spring": 3,
    "bishop": 6,
    "courtesan": 12,
    "drummer": 6,
    "heroine": 3,
    "scarecrow": 16,
    "surrender": 3,
}
DECK_CLASSIC: dict[str, int] = {
    "m1": 15,
    "m2": 8,
    "m3": 8,
    "m4": 8,
    "m5": 8,
    "m6": 8,
    "m10": 8,
    "winter": 3,
    "drummer": 6,
    "scarecrow": 15,
    "heroine": 3,
    "surrender": 3,
    "bishop": 3,
}
DECKS = {"2006": DECK_2006, "classic": DECK_CLASSIC}
MERCENARIES = ("m1", "m2", "m3", "m4", "m5", "m6", "m10")
PRINTED = {"m1": 1, "m2": 2, "m3": 3, "m4": 4, "m5": 5, "m6": 6, "m10": 10}

# MAP-1, copied by hand from the rules' table (not from the engine).
BORDERS: dict[str, tuple[str, ...]] = {
    "Torino": ("Genova", "Milano"),
    "Milano": ("Torino", "Genova", "Parma", "Modena", "Mantova", "Venezia"),
    "Venezia": ("Milano", "Mantova", "Ferrara"),
    "Genova": ("Torino", "Milano", "Parma"),
    "Mantova": ("Milano", "Venezia", "Modena", "Ferrara"),
    "Ferrara": ("Venezia", "Mantova", "Modena", "Bologna"),
    "Parma": ("Genova", "Milano", "Modena", "Lucca"),
    "Modena": ("Milano", "Mantova", "Ferrara", "Parma", "Bologna", "Lucca", "Firenze"),
    "Bologna": ("Ferrara", "Modena", "Firenze", "Urbino"),
    "Lucca": ("Parma", "Modena", "Firenze"),
    "Firenze": ("Modena", "Bologna", "Lucca", "Siena", "Urbino", "Spoleto", "Roma"),
    "Siena": ("Firenze", "Roma"),
    "Urbino": ("Bologna", "Firenze", "Spoleto", "Ancona"),
    "Spoleto": ("Firenze", "Urbino", "Ancona", "Roma", "Napoli"),
    "Ancona": ("Urbino", "Spoleto", "Napoli"),
    "Roma": ("Firenze", "Siena", "Spoleto", "Napoli"),
    "Napoli": ("Spoleto", "Ancona", "Roma"),
}
REGIONS = tuple(BORDERS)


def largest_connected(regions: Iterable[str]) -> int:
    """MAP-2: size of the largest border-connected group among ``regions``."""
    owned = set(regions)
    best = 0
    seen: set[str] = set()
    for start in owned:
        if start in seen:
            continue
        stack, size = [start], 0
        seen.add(start)
        while stack:
            region = stack.pop()
            size += 1
            for other in BORDERS[region]:
                if other in owned and other not in seen:
                    seen.add(other)
                    stack.append(other)
        best = max(best, size)
    return best
