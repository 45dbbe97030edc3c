"""A table's game: started with every seat bound, under an id fixed before it exists (a matched
table of seeks, a tournament's table, a ladder pairing), created only if absent
(``store.bound_games``), so the step that makes it may run again after a crash and make nothing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from service import clocks
from service.bound_start import bound_start
from service.ports import GameAccess
from service.repository import hash_token, new_token
from store import GameStore, parts


@dataclass(frozen=True)
class Started:
    made: bool  # False: the game existed (a second attempt), nothing was written
    start: dict[str, Any]  # what ``bound_start`` returned: snapshot, meta, genesis, followups


def create_table_game(
    store: GameStore,
    game_id: str,
    config: Mapping[str, Any],
    seats: Mapping[int, Mapping[str, Any]],
    meta: dict[str, Any],
    token_hashes: Mapping[int, str] | None = None,
) -> Started:
    """Write the started game unless ``game_id`` exists. Without ``token_hashes`` every seat gets
    a token nobody holds (its account plays with the account's own token; a bot needs none)."""
    start = bound_start(meta, config, seats, {})
    created = parts.bound_games(store).create_if_absent(
        game_id,
        config=config,
        token_hashes=token_hashes or {seat: hash_token(new_token()) for seat in seats},
        snapshot=start["snapshot"],
        meta=start["meta"],
        genesis=start["genesis"],
        followups=start["followups"],
    )
    return Started(created.made, start)


def start_table(
    service: GameAccess,
    game_id: str,
    config: Mapping[str, Any],
    seats: Mapping[int, Mapping[str, Any]],
    meta: dict[str, Any],
) -> bool:
    """Create the table's game unless it exists, then :func:`begin` it. False: it existed."""
    if service.store.meta(game_id) is not None:
        return False  # made before (the script checks again: this only saves the work)
    started = create_table_game(service.store, game_id, config, seats, meta)
    if started.made:
        begin(service, game_id, started.start)
    return started.made


def begin(service: GameAccess, game_id: str, start: Mapping[str, Any]) -> None:
    """What follows a made game at once (a second attempt leaves it to the outbox): its first
    follow-ups run, its clock's first deadline scheduled."""
    service.followups.run(game_id, start["followups"])
    deadline = clocks.next_deadline(start["meta"].get("clock"))
    if deadline is not None:
        service.store.clocks.schedule(game_id, deadline)
