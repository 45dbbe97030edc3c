"""Webhook deliveries made from events: the seams the follow-ups and jobs call.

Where deliveries come from: the account's feed (``store.accounts``), which the ``accounts``
follow-up writes in the game's outbox step. After the feed, the same follow-up calls
:func:`fan_out`, one script in the account's slot that turns the feed's entries after the
subscriptions' cursor into deliveries and moves the cursor (``store.webhooks``); it skips the call
when the feed's own step saw no subscription (or no cursor), where the fan-out would return at
once having changed nothing. The follow-up is
acknowledged only after both, so a process killed in between leaves it to the janitor, whose run
finds the feed already written and the entries still after the cursor: each event becomes one
delivery, once. A finished job's notice (:func:`job_finished`) and a game's start or end for its
creator's game-wide subscriptions (:func:`game_status_changed`) come the same way.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import orjson

from service.faults import fault_point
from store.accounts import FEED_LENGTH
from store.webhooks import WebhookStore


def fan_out(store: WebhookStore, account_id: str) -> int:
    """The seam the accounts follow-up calls after writing an account's feed."""
    fault_point("before_webhook_fan_out")  # tests/faults: the feed is written, no delivery made yet
    return store.fan_out(account_id, int(time.time() * 1000))


def job_finished(
    store: WebhookStore, account_id: str, notice: str, kind: str, data: Mapping[str, Any], keep_seconds: int
) -> int:
    """The seam ``service.jobs`` calls when a job an account asked for has finished: the notice on
    the account's feed (``/v1/me/stream``) once per ``notice`` key, then the fan-out that makes its
    webhooks' deliveries from it (ids of the feed entry's: a second call makes none). Returns 1 when
    the feed got it now."""
    now_ms = int(time.time() * 1000)
    added = store.job_event(account_id, notice, kind, data, now_ms, FEED_LENGTH, keep_seconds * 1000)
    fault_point("before_job_notice_fan_out")  # tests: the feed has it, no delivery made yet
    store.fan_out(account_id, now_ms)
    return int(added)


def game_status_changed(store: WebhookStore, game_id: str, meta: Mapping[str, Any]) -> int:
    """The seam the ``index`` follow-up (every status change of every game) calls: the game's
    creator's game-wide subscriptions get its start or its end, built from the public metadata
    only (never a seat's view). Idempotent: a delivery's id is its subscription's and its kind's."""
    kind = {"active": "game_started", "finished": "game_finished"}.get(str(meta.get("status")))
    if kind is None:
        return 0
    watchers = store.watchers(game_id)
    if not watchers:
        return 0
    result = orjson.loads(meta["result"]) if meta.get("result") else None
    if result is not None:
        result = {k: v for k, v in result.items() if k in ("winners", "reason", "rated")}
    data = {
        "game_id": game_id,
        "game": meta.get("game"),
        "status": meta.get("status"),
        "version": int(meta.get("version") or 0),
        "result": result,
    }
    now_ms = int(time.time() * 1000)
    return sum(store.game_event(account_id, game_id, kind, data, now_ms) for account_id in watchers)


# A challenge's notices stay told (their keys kept) this long: longer than any challenge lives.
CHALLENGE_NOTICE_KEEP_SECONDS = 8 * 24 * 3600


def challenge_changed(
    store: WebhookStore, account_id: str, notice: str, kind: str, data: Mapping[str, Any]
) -> int:
    """The seam the ``challenge`` follow-up calls for each notice and party: on the account's feed
    once per ``notice`` key, then its webhooks' deliveries (as :func:`job_finished`)."""
    return job_finished(store, account_id, notice, kind, data, CHALLENGE_NOTICE_KEEP_SECONDS)
