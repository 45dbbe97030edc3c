"""A seat's device links are bounded (``store.passes``): a new link beyond the bound voids the
oldest ones, by the order they were put, even when several are put in the same millisecond."""

from __future__ import annotations

import time

from service.ids import new_game_id
from store.passes import MOST_DEVICE_LINKS, SeatPasses


def test_links_put_in_one_millisecond_void_the_oldest_never_a_newer_one(redis_client, monkeypatch):
    passes = SeatPasses(redis_client)
    game_id = new_game_id()
    frozen = time.time()
    monkeypatch.setattr("store.passes.time.time", lambda: frozen)  # every link in one millisecond
    # Codes whose letters sort against the order they are put, so a tie broken by the codes would
    # void the newest links and keep the oldest.
    codes = [f"{chr(ord('z') - i)}{i:02d}" for i in range(MOST_DEVICE_LINKS + 3)]
    for code in codes:
        passes.put_device_link(game_id, code, 0, "token-hash", 600)
    monkeypatch.undo()
    kept = [code for code in codes if passes.take_device_link(game_id, code) is not None]
    assert kept == codes[-MOST_DEVICE_LINKS:]
