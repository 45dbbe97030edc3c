"""What a change writes beside its events: the game's metadata after it, its snapshot, the
clock after it, and the answer to a move. Pure functions of the game and its state, shared by the
command path (``service.commands``) and the claim that starts a game (``service.seats``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.base import ABORTED, SEAT_HANDED_TO_BOT, Game, GameError, encode_state
from service import clocks
from service.cache import CachedGame
from service.repository import now_ms


@dataclass(frozen=True)
class MoveOutcome:
    """The answer to a move. ``body`` holds ``game_id`` and ``version``, and the redacted ``events``
    and the seat's ``view`` unless the caller asked for a minimal answer (and sent no idempotency
    key: a key's stored answer is always the whole one). ``view_json`` is ``body["view"]`` already
    encoded, when this process encoded it (the API sends those bytes rather than encoding again)."""

    status_code: int
    body: dict[str, Any]
    replayed: bool = False
    seat: int | None = None
    view_json: bytes | None = None


def meta_fields(game: Game[Any], state: Any, stamp: str, started: bool = False) -> dict[str, Any]:
    over = game.is_over(state)
    fields: dict[str, Any] = {
        "status": "finished" if over else "active",
        "updated": stamp,
        "awaiting": game.awaiting(state),
    }
    if started:
        fields["started"] = stamp
    if over:
        fields["finished"] = stamp
        result = game.result(state)
        if result is not None and result.get("reason") == ABORTED:
            result = {**result, "rated": False}  # no rating or statistic may count it
        fields["result"] = result
    return fields


def next_clock(
    game: Game[Any], cached: CachedGame, state: Any, seat: int, timed_out: bool, leaving: bool = False
) -> tuple[dict[int, str], dict[int, str], dict[str, Any] | None, dict[str, Any] | None]:
    """The seat kinds, bots and clock after a change by ``seat`` (a move, its timeout, or its
    leaving: the account behind it deleted), and the record of its handover to the bot when this
    timeout is one too many or the seat leaves. An untimed game's clock stays None."""
    kinds, bots = cached.seat_kinds, cached.bots
    if cached.clock is None and not leaving:
        return kinds, bots, None, None  # every move of an untimed game: nothing to ask the engine
    over = game.is_over(state)
    if cached.clock is None:
        if over:
            return kinds, bots, None, None
        kinds, bots = handed_to_bot(kinds, bots, seat)
        return kinds, bots, None, handover_event(seat)
    now = now_ms()
    awaiting = [] if over else game.awaiting(state)
    humans = [s for s, kind in kinds.items() if kind == "human"]
    acted, late = (None, seat) if timed_out else (None, None) if leaving else (seat, None)
    clock = clocks.advance(cached.clock, now, awaiting, humans, acted=acted, timed_out=late)
    limit = int(cached.clock["control"]["timeouts_to_bot"])
    if over or not (leaving or (timed_out and clock["timeouts"][seat] >= limit)):
        return kinds, bots, clock, None
    # A control recorded before the level could be chosen names none: the random bot.
    level = str(cached.clock["control"].get("timeout_bot", clocks.TIMEOUT_BOT_LEVEL))
    kinds, bots = handed_to_bot(kinds, bots, seat, level)
    humans = [s for s in humans if s != seat]
    clock = clocks.advance(cached.clock, now, awaiting, humans, timed_out=late)
    return kinds, bots, clock, handover_event(seat, level)


def refuse_handed_over(cached: CachedGame, seat: int, token_hash: str) -> None:
    """Refuse, as the rules refuse (``GameError``: a stale copy is read again, a key's retry still
    replays), a move sent with a token for a seat handed to the bot for good (a no-show's timeouts,
    a tournament withdrawal, a deleted account): the bot plays it to the end, and the seat's token
    (or its account's) moves it no more. Trusted callers (bot turns, timeouts, a handover) send no
    token hash."""
    if token_hash and cached.status == "active" and cached.seat_kinds.get(seat) == "bot":
        raise GameError("SEAT_HANDED_TO_BOT", "That seat was handed to the bot for good.")


def handed_to_bot(
    kinds: dict[int, str], bots: dict[int, str], seat: int, level: str = clocks.TIMEOUT_BOT_LEVEL
) -> tuple[dict[int, str], dict[int, str]]:
    return {**kinds, seat: "bot"}, {**bots, seat: level}


def handover_event(seat: int, level: str = clocks.TIMEOUT_BOT_LEVEL) -> dict[str, Any]:
    return {"type": SEAT_HANDED_TO_BOT, "v": 1, "seat": seat, "level": level}


def turn_moved(cached: CachedGame, game: Game[Any], meta: Mapping[str, Any]) -> bool:
    """Whether a seat bound to an account became awaited, or stopped being (``meta``: the change's)."""
    before = game.awaiting(cached.state)
    return any((seat in meta["awaiting"]) != (seat in before) for seat in cached.seat_accounts)


def snapshot_of(game: Game[Any], version: int, state: Any) -> bytes:
    """The stored snapshot, ``orjson.dumps({"version": version, "state": game.state_to_json(state)})``
    byte for byte, with the state encoded by the engine where it can (games.base.SnapshotHooks)."""
    return b'{"version":%d,"state":%s}' % (version, encode_state(game, state))
