"""A table's game: started with every seat bound, under an id fixed before it exists (a matched
table of seeks, a tournament's table, a ladder pairing), created only if absent
(``store.bound_games``), so the step that makes it may run again after a crash and make nothing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.base import Game, public_config
from replays import fairness
from service import clocks
from service.bound_start import bound_start
from service.games import hidden_config
from service.ports import GameAccess
from service.repository import hash_token, new_token, now_iso
from store import GameStore, parts


def json_seed(seed: int | str) -> int | str:
    """A drawn seed as a configuration carries it: as a string past JSON's exact integers."""
    return str(seed) if int(seed) > 2**53 - 1 else seed


def table_meta(
    game: Game[Any],
    config: Mapping[str, Any],
    game_id: str,
    seat_count: int,
    *,
    rated: bool,
    clock: Mapping[str, Any] | None,
    more: Mapping[str, Any],
) -> dict[str, Any]:
    """The metadata a table's game is created with, before its seats (``bound_start`` adds them):
    the public configuration, the rest of it hidden until the end, the seed's commitment, the
    clock's first state. ``more`` names what the table is for (its seek pool, tournament, ...)."""
    public = public_config(game, config)
    meta: dict[str, Any] = {
        "game": game.name,
        "title": game.title,
        "seat_count": seat_count,
        "config": public,
        "prearranged": False,
        "created": now_iso(),
        "rated": rated,
        **more,
        "commitment": fairness.commitment(config["seed"], game_id, False),
    }
    hidden = hidden_config(config, public)
    if hidden:
        meta["hidden_config"] = hidden
    if clock is not None:
        meta["clock"] = clocks.new_state(clock, seat_count)
    return meta


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
    """Create the table's game unless it exists, then run its first follow-ups and schedule its
    clock (when it was made here; a second attempt leaves them to the outbox). False: it existed."""
    if service.store.meta(game_id) is not None:
        return False  # made before (the script checks again: this only saves the work)
    started = create_table_game(service.store, game_id, config, seats, meta)
    if started.made:
        service.followups.run(game_id, started.start["followups"])
        deadline = clocks.next_deadline(started.start["meta"].get("clock"))
        if deadline is not None:
            service.store.clocks.schedule(game_id, deadline)
    return started.made
