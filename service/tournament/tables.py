"""How n entrants split into tables when the size asked does not divide them.

The rule: ``t = ceil(n / k)`` tables (as few as the size asked allows), sizes differing by at most
one, the larger tables first (13 at 4: 4+3+3+3; 7 at 4: 4+3; 10 at 4: 4+3+3). A split whose
smaller tables would fall under the game's smallest table is refused (:class:`TableSizeError`), never
quietly changed: the organiser picks another size. The larger tables come first because the top of a
Swiss field sits at the first tables, so the leaders play the full-size game.
"""

from __future__ import annotations


class TableSizeError(ValueError):
    """The entrants cannot be seated at tables the game allows."""

    code = "TABLE_SIZE_NOT_ALLOWED"


def table_sizes(n: int, size: int, min_size: int, max_size: int | None = None) -> list[int]:
    """The table sizes for ``n`` entrants at tables of ``size`` (see the module's rule)."""
    if max_size is not None and not min_size <= size <= max_size:
        raise TableSizeError(f"tables of {size} are not allowed (from {min_size} to {max_size})")
    if size < min_size:
        raise TableSizeError(f"tables of {size} are smaller than the game allows ({min_size})")
    if n < min_size:
        raise TableSizeError(f"{n} entrants cannot fill a table of at least {min_size}")
    count = -(-n // size)
    base, extra = divmod(n, count)
    if base < min_size:
        raise TableSizeError(
            f"{n} entrants at tables of {size} would leave tables of {base} (the game needs {min_size})"
        )
    return [base + 1] * extra + [base] * (count - extra)
