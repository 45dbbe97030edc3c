"""The follow-up action ``accounts``: each bound account told what its game did.

The account's games and feed are follow-up work of the game's changes (``service.followups``,
action ``accounts``): the claim and append scripts record the action with the change when a seat of
the game is bound to an account, and :func:`accounts_followup` then tells each bound account what
changed (``store.accounts``: one script per account, idempotent), and turns the feed's new entries
into webhook deliveries (``service.webhook_events.fan_out``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from service import webhook_events
from store import parts, timestamps

if TYPE_CHECKING:
    from service.cache import CachedGame
    from service.ports import StoreHolder


@dataclass(frozen=True)
class GameNow:
    """What every bound account is told of its game: as the game's metadata says it (the janitor's
    runs, :func:`accounts_followup`), or as the change that recorded the action has just written it
    (``GameCommands``' moves: the same fields, so the process need not read them back)."""

    name: str
    seat_accounts: Mapping[int, str]
    status: str
    awaiting: Sequence[int]
    version: int
    result: Mapping[str, Any] | None = None
    clock: Mapping[str, Any] | None = None
    finished_ms: int = 0

    @classmethod
    def of_change(cls, game: CachedGame, meta: Mapping[str, Any]) -> GameNow:
        """As a change wrote it: ``game`` the game after it, ``meta`` the fields it wrote
        (``service.changes.meta_fields``), unencoded."""
        return cls(
            name=game.name,
            seat_accounts=game.seat_accounts,
            status=meta["status"],
            awaiting=meta["awaiting"],
            version=game.version,
            result=meta.get("result"),
            clock=game.clock,
            finished_ms=timestamps.to_ms(meta["finished"]) if meta.get("finished") else 0,
        )

    @classmethod
    def of_meta(cls, meta: Mapping[str, Any]) -> GameNow:
        count = int(meta["seat_count"])
        return cls(
            name=meta["game"],
            seat_accounts={s: meta[f"account:{s}"] for s in range(count) if meta.get(f"account:{s}")},
            status=meta["status"],
            awaiting=orjson.loads(meta.get("awaiting") or "[]"),
            version=int(meta.get("version", 0)),
            result=orjson.loads(meta["result"]) if meta.get("result") else None,
            clock=orjson.loads(meta["clock"]) if meta.get("clock") else None,
            finished_ms=timestamps.to_ms(meta["finished"]) if meta.get("finished") else 0,
        )


def accounts_followup(service: StoreHolder, game_id: str, value: str) -> bool:
    """Tell every account bound to a seat of ``game_id`` what changed (``value`` is ignored: the
    game's metadata as it is now decides, so a later change recorded meanwhile is not missed)."""
    meta = service.store.meta(game_id)
    if meta is None:
        return True
    return tell_bound_accounts(service, game_id, GameNow.of_meta(meta))


def tell_bound_accounts(service: StoreHolder, game_id: str, now: GameNow) -> bool:
    """Tell every account of ``now.seat_accounts`` what ``now`` says. Given the change's own fields
    rather than the metadata read back, an older change's run that comes late is still harmless:
    ``store.accounts``' script keeps the newest version an account was told of."""
    store = parts.accounts(service.store)
    hooks = parts.webhooks(service.store)
    status = now.status
    result = now.result
    if result is not None:  # who won and how: the game's summary has the rest
        result = {k: v for k, v in result.items() if k in ("winners", "reason", "rated")}
    deadlines = (now.clock or {}).get("deadlines") or {}
    for seat, account_id in sorted(now.seat_accounts.items()):
        deadline = deadlines.get(str(seat))
        told = {
            "seat": seat,
            "game": now.name,
            "status": status,
            "turn": status == "active" and seat in now.awaiting,
            "version": now.version,
            "deadline": timestamps.from_ms(int(deadline)) if deadline is not None else None,
            "result": result,
            "won": bool(result and seat in (result.get("winners") or [])),
            "finished_ms": now.finished_ms,
        }
        _, fed = store.record_game(account_id, game_id, told, hooks.fan_out_keys(account_id))
        if fed:  # The feed's new entries become deliveries (none without a subscription: no trip)
            webhook_events.fan_out(hooks, account_id)
        if status == "finished" and (result or {}).get("rated") is not False:
            # as the archive: aborted games stay out
            store.index_archived(account_id, game_id, now.finished_ms)
    return True
