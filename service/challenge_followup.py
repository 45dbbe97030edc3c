"""The follow-up action ``challenge``: a challenge's parties told what changed, and its indexes.

The challenge scripts (``store.challenges``) append what the parties must be told to the
challenge's notices and record this action in the game's outbox in the same step; this handler,
run by the process that made the change or else by the janitor, puts each notice on each party's
feed (``/v1/me/stream``) and turns it into webhook deliveries, once per notice and account
(``service.webhook_events.challenge_changed``: keyed by the notice's index), then brings the
indexes up to date (each party's pending challenges, the open challenges, the lobby stream).
Idempotent: a second run tells nobody twice (the lobby stream may repeat an entry, which its
readers take as "this is how it stands").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from service import webhook_events
from service.challenge_view import parties, view_of
from store import parts

if TYPE_CHECKING:
    from service.ports import StoreHolder


def challenge_followup(service: StoreHolder, challenge_id: str, value: str) -> bool:
    store = parts.challenges(service.store)
    found = store.load(challenge_id)
    if found is None:
        return True
    hooks = parts.webhooks(service.store)
    for index, notice in enumerate(found.notices):
        for account_id in notice["to"]:
            webhook_events.challenge_changed(
                hooks, account_id, f"challenge:{challenge_id}:{index}", notice["kind"], notice["data"]
            )
    pending = found.status == "pending"
    score = float(found.record.get("created_ms") or 0)
    for account_id in parties(found):
        store.index_party(account_id, challenge_id, pending, score)
    listed = pending and any(e["kind"] == "open" and e["answer"] == "pending" for e in found.seats.values())
    was_listed = store.index_open(challenge_id, listed, score)
    if listed or was_listed:
        lobby = parts.lobby(service.store)
        change = ("changed" if was_listed else "added") if listed else "gone"
        lobby.publish("challenge", challenge_id, change, view_of(found) if listed else None)
    if not pending:
        store.forget_expiry(challenge_id)
    return True
