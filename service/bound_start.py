"""The start of a game whose every seat is known before it exists (a challenge's, a pairing's):
its metadata with each seat bound, its genesis events and snapshot, and the start's follow-ups,
which one store script writes together with the game itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games import get_game
from games.base import COMMITMENT, fold
from service import clocks
from service.changes import meta_fields, snapshot_of
from service.followups import actions_for
from service.repository import now_iso, now_ms


def bound_start(
    meta: dict[str, Any],
    config: Mapping[str, Any],
    seats: Mapping[int, Mapping[str, Any]],
    more_actions: Mapping[str, Any],
) -> dict[str, Any]:
    """``meta``: the game's metadata as a creation writes it; ``seats``: seat -> ``{name, level
    (a server bot's), account}``. Returns the store's arguments: snapshot, meta, genesis,
    followups."""
    game = get_game(meta["game"])
    genesis = game.start(dict(config))
    state = fold(game, genesis)
    stamp = now_iso()
    if meta.get("commitment") is not None and genesis:
        # The commitment published before the start opens the log (games.base.COMMITMENT).
        genesis[0] = {**genesis[0], COMMITMENT: meta["commitment"]}
    meta["updated"] = stamp
    humans = []
    for seat, entry in sorted(seats.items()):
        bot = entry.get("level")
        meta[f"name:{seat}"] = entry.get("name") or f"seat {seat}"
        meta[f"kind:{seat}"] = "bot" if bot else "human"
        meta[f"bot:{seat}"] = bot or ""
        if entry.get("account"):
            meta[f"account:{seat}"] = entry["account"]
        if not bot:
            humans.append(seat)
    meta.update(meta_fields(game, state, stamp, started=True))
    if meta.get("clock") is not None:
        meta["clock"] = clocks.advance(meta["clock"], now_ms(), game.awaiting(state), humans)
    actions = actions_for(game, state, len(genesis), True, ())
    if not game.is_over(state):
        actions["bot"] = len(genesis)  # its handler finds the bot seats (done at once when none awaits)
    actions["accounts"] = len(genesis)
    actions.update(more_actions)
    return {
        "snapshot": snapshot_of(game, len(genesis), state),
        "meta": meta,
        "genesis": genesis,
        "followups": actions,
    }
