"""Signed webhooks: an account's subscriptions (:class:`WebhookService`).

The rest of the feature is beside it: where a webhook may be sent, the SSRF guard
(``service.webhook_targets``); sending, signing and the delivery loop (``service.webhook_delivery``,
which also holds the operator's :class:`WebhookSettings` and the event vocabulary); the deliveries
made from an account's feed, a job's end and a game's status (``service.webhook_events``).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

# Exported with the service it configures: api.webhooks builds a WebhookService with both from here.
from schemas.webhooks import EVENTS
from service.errors import ServiceError
from service.webhook_delivery import GAME_EVENTS, LOG_LENGTH, WebhookSettings, iso, new_secret
from service.webhook_targets import resolve_target
from store.webhooks import WebhookStore

log = logging.getLogger(__name__)


class WebhookNotFound(ServiceError):
    status, code, title = 404, "WEBHOOK_NOT_FOUND", "No such webhook"


class NotGameCreator(ServiceError):
    status, code, title = 403, "NOT_GAME_CREATOR", "Only the game's creator may subscribe to the whole game"


class TooManyPings(ServiceError):
    status, code, title = 429, "TOO_MANY_PINGS", "Too many test pings of this account's webhooks"


# Test pings an account may ask for per window (all its webhooks together): each is a POST the
# delivery loop makes for it, so they are bounded like any other work a client can cause.
MOST_PINGS = 5
PING_WINDOW_SECONDS = 60


class TooManyWebhooks(ServiceError):
    status, code, title = 409, "TOO_MANY_WEBHOOKS", "The account has as many webhooks as it may"


def _public(sub: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("id", "url", "events", "game_id", "format", "paused", "created")
    return {k: sub.get(k) for k in keys} | {
        "game_wide": bool(sub.get("game_wide")),
        "failing_since": iso(int(sub["failing_since"])) if sub.get("failing_since") else None,
    }


class WebhookService:
    def __init__(
        self, store: WebhookStore, settings: WebhookSettings, clock: Callable[[], float] = time.time
    ):
        self.store = store
        self.settings = settings
        self.clock = clock

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def subscribe(
        self, account_id: str, url: str, events: Sequence[str], game_id: str | None, fmt: str
    ) -> dict[str, Any]:
        sub = self._new_subscription(url, [e for e in EVENTS if e in events], game_id, fmt)
        if not self.store.add(account_id, sub):
            raise TooManyWebhooks()
        return _public(sub) | {"secret": sub["secret"]}

    def _new_subscription(
        self, url: str, events: list[str], game_id: str | None, fmt: str, **extra: Any
    ) -> dict[str, Any]:
        """A subscription's record, its target checked first (a refused URL stores nothing)."""
        resolve_target(url, self.settings.allow_private_targets)
        return {
            "id": "wh_" + secrets.token_hex(8),
            "url": url,
            "events": events,
            "game_id": game_id,
            **extra,
            "format": fmt,
            "secret": new_secret(),
            "paused": False,
            "created": iso(self._now_ms()),
            "failing_since": None,
        }

    def subscribe_game(
        self, account_id: str, game_id: str, url: str, events: Sequence[str], fmt: str
    ) -> dict[str, Any]:
        """A subscription to the whole game by its creator: spectator events only."""
        if self.store.creator(game_id) != account_id:
            raise NotGameCreator()
        sub = self._new_subscription(
            url, [e for e in GAME_EVENTS if e in events], game_id, fmt, game_wide=True
        )
        if not self.store.add(account_id, sub):
            raise TooManyWebhooks()
        self.store.add_watcher(game_id, account_id)
        return _public(sub) | {"secret": sub["secret"]}

    def listing(self, account_id: str) -> list[dict[str, Any]]:
        subs = self.store.subscriptions(account_id)
        return [_public(s) for _, s in sorted(subs.items(), key=lambda kv: kv[1]["created"])]

    def get(self, account_id: str, sub_id: str) -> dict[str, Any]:
        sub = self.store.subscription(account_id, sub_id)
        if sub is None:
            raise WebhookNotFound()
        return sub

    def public(self, account_id: str, sub_id: str) -> dict[str, Any]:
        """A subscription as its owner may read it again (without its secret)."""
        return _public(self.get(account_id, sub_id))

    def set_paused(self, account_id: str, sub_id: str, paused: bool) -> dict[str, Any]:
        fields: dict[str, Any] = {"paused": paused}
        if not paused:
            fields["failing_since"] = None  # resumed by its owner: the count of failing days starts again
        sub = self.store.update(account_id, sub_id, fields)
        if sub is None:
            raise WebhookNotFound()
        return _public(sub)

    def delete(self, account_id: str, sub_id: str) -> None:
        if not self.store.delete(account_id, sub_id):
            raise WebhookNotFound()

    def ping(self, account_id: str, sub_id: str) -> str:
        self.get(account_id, sub_id)
        wait_ms = self.store.count_ping(account_id, MOST_PINGS, PING_WINDOW_SECONDS * 1000)
        if wait_ms is not None:
            seconds = -(-wait_ms // 1000)
            raise TooManyPings(
                f"At most {MOST_PINGS} test pings a minute per account: retry in {seconds} s.",
                retry_after=seconds,
            )
        now = self._now_ms()
        delivery_id = f"msg_{sub_id}_ping_{secrets.token_hex(6)}"
        record = {
            "id": delivery_id,
            "sub": sub_id,
            "type": "ping",
            "ms": now,
            "data": {},
            "attempts": 0,
            "created_ms": now,
        }
        self.store.add_delivery(account_id, record, now)
        return delivery_id

    def deliveries(self, account_id: str, sub_id: str, count: int = LOG_LENGTH) -> list[dict[str, Any]]:
        self.get(account_id, sub_id)
        return self.store.log(account_id, sub_id, count)
