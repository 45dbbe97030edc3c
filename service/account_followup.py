"""The follow-up action ``accounts``: each bound account told what its game did.

The account's games and feed are follow-up work of the game's changes (``service.followups``,
action ``accounts``): the claim and append scripts record the action with the change when a seat of
the game is bound to an account, and :func:`accounts_followup` then tells each bound account what
changed (``store.accounts``: one script per account, idempotent), and turns the feed's new entries
into webhook deliveries (``service.webhook_events.fan_out``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from service import webhook_events
from store import parts, timestamps

if TYPE_CHECKING:
    from service.ports import StoreHolder


def accounts_followup(service: StoreHolder, game_id: str, value: str) -> bool:
    """Tell every account bound to a seat of ``game_id`` what changed (``value`` is ignored: the
    game's metadata as it is now decides, so a later change recorded meanwhile is not missed)."""
    meta = service.store.meta(game_id)
    if meta is None:
        return True
    store = parts.accounts(service.store)
    hooks = parts.webhooks(service.store)
    count = int(meta["seat_count"])
    status = meta["status"]
    awaiting = orjson.loads(meta.get("awaiting") or "[]")
    result = orjson.loads(meta["result"]) if meta.get("result") else None
    if result is not None:  # who won and how: the game's summary has the rest
        result = {k: v for k, v in result.items() if k in ("winners", "reason", "rated")}
    clock = orjson.loads(meta["clock"]) if meta.get("clock") else None
    deadlines = (clock or {}).get("deadlines") or {}
    finished_ms = timestamps.to_ms(meta["finished"]) if meta.get("finished") else 0
    for seat in range(count):
        account_id = meta.get(f"account:{seat}")
        if not account_id:
            continue
        deadline = deadlines.get(str(seat))
        now = {
            "seat": seat,
            "game": meta["game"],
            "status": status,
            "turn": status == "active" and seat in awaiting,
            "version": int(meta.get("version", 0)),
            "deadline": timestamps.from_ms(int(deadline)) if deadline is not None else None,
            "result": result,
            "won": bool(result and seat in (result.get("winners") or [])),
            "finished_ms": finished_ms,
        }
        store.record_game(account_id, game_id, now)
        webhook_events.fan_out(hooks, account_id)  # The feed's new entries become deliveries
        if status == "finished" and (result or {}).get("rated") is not False:
            store.index_archived(account_id, game_id, finished_ms)  # as the archive: aborted games stay out
    return True
