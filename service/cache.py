"""A small per-process LRU of recently used games, so an accepted move costs one Redis round trip."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CachedGame:
    game_id: str
    name: str
    version: int
    status: str  # "active" or "finished": open games are never cached (their seats change)
    state: Any  # engine state at ``version``; engines never mutate states, so sharing is safe
    seat_hashes: dict[int, str]  # changed only by a token rotation, which moves the version on
    seat_kinds: dict[int, str]
    bots: dict[int, str]
    # The clock state at ``version`` (service.clocks), None for a game without clock. Read with the
    # snapshot in one consistent load, so it always belongs to this version.
    clock: dict[str, Any] | None = None
    prearranged: bool = False  # the creator fixed the shuffles (a seed or a deck order)
    # Seats bound to an account: seat -> account id, as the claim script recorded it.
    seat_accounts: Mapping[int, str] = field(default_factory=dict)
    # The tournament whose table this game is ('' for none): its end records the ``tournament``
    # follow-up (service.tournament.runner), which writes the table's result.
    tournament: str = ""


class GameCache:
    def __init__(self, size: int = 1024):
        self.size = size
        self._items: OrderedDict[str, CachedGame] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> CachedGame | None:
        # No lock: the reads outnumber the writes (every stream message reads), and each step here
        # is one C-level OrderedDict operation, atomic under the GIL. ``put`` keeps the lock for its
        # check-then-set.
        item = self._items.get(game_id)
        if item is not None:
            try:
                self._items.move_to_end(game_id)
            except KeyError:  # dropped (or evicted) by another thread in between
                pass
        return item

    def put(self, item: CachedGame) -> None:
        """Keep ``item`` unless a newer version of the game is already cached (threads race)."""
        if self.size <= 0:
            return
        with self._lock:
            current = self._items.get(item.game_id)
            if current is not None and current.version > item.version:
                return
            self._items[item.game_id] = item
            self._items.move_to_end(item.game_id)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def drop(self, game_id: str) -> None:
        with self._lock:
            self._items.pop(game_id, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
