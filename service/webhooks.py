"""Signed webhooks (issue 33): an account's subscriptions, their deliveries, sent at least once.

Where deliveries come from: the account's feed (``store.accounts``), which the ``accounts``
follow-up writes in the game's outbox step. After the feed, the same follow-up calls
:func:`fan_out`, one script in the account's slot that turns the feed's entries after the
subscriptions' cursor into deliveries and moves the cursor (``store.webhooks``). The follow-up is
acknowledged only after both, so a process killed in between leaves it to the janitor, whose run
finds the feed already written and the entries still after the cursor: each event becomes one
delivery, once.

Sending (:class:`Deliverer`, run by ``python -m worker.webhooks``): the due deliveries of each hinted
account are taken with a lease (a sender killed mid-delivery leaves them due again when it
expires: at least once, with the same ``webhook-id``, so a receiver drops the duplicate), signed as
the Standard Webhooks specification says, POSTed through :class:`PinnedSender`, and settled: done,
retried after an exponential backoff with jitter, or failed after ``retry_for`` (a day and more).

No server-side request forgery: a URL is checked when it is registered and again at every attempt;
the check resolves the host once, refuses any address that is loopback, private, link-local
(the cloud metadata addresses among them), unspecified, multicast or reserved unless the operator
allows private targets, and the connection goes to the address that was checked (urllib3 pool on
the IP, with the Host header and TLS server name of the URL), so a DNS answer that changes between
the check and the connection cannot redirect it. Redirects are not followed; a response body is
read to at most :data:`RESPONSE_READ_LIMIT` bytes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import logging
import os
import random
import secrets
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import orjson
import urllib3

from service.errors import ServiceError
from service.faults import fault_point
from store.accounts import FEED_LENGTH
from store.webhooks import WebhookStore

log = logging.getLogger(__name__)

EVENTS = ("your_turn", "game_started", "game_finished", "verified", "export_ready")
# A game-wide subscription (its creator's) gets only what any spectator may know, and only the
# game's own events: a job's end is news for whoever asked for the job, not for the game's audience.
GAME_EVENTS = ("game_started", "game_finished")
# Told to the account that asked for a job while signed in (service.jobs.JobService.announce).
JOB_EVENTS = ("verified", "export_ready")
FORMATS = ("standard", "discord", "slack")
RESPONSE_READ_LIMIT = 4096
LOG_LENGTH = 50
SECRET_PREFIX = "whsec_"
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
# Cloud metadata services that are not in a private or link-local range by themselves.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200", "169.254.170.2")
)


@dataclass(frozen=True)
class WebhookSettings:
    """Operator settings (environment variables of the same names, upper case, WEBHOOK_*)."""

    allow_private_targets: bool = False  # tests and closed networks only: loopback, private ranges
    connect_timeout: float = 3.0
    read_timeout: float = 5.0
    first_retry_seconds: float = 5.0
    most_retry_seconds: float = 4 * 3600.0
    retry_for_seconds: float = 26 * 3600.0  # then the delivery is marked failed
    pause_after_seconds: float = 3 * 86400.0  # a subscription failing this long is paused
    lease_seconds: float = 30.0  # a taken delivery is due again after this (its sender died)
    public_base_url: str = "http://127.0.0.1:8000"

    @classmethod
    def from_env(cls, **overrides: Any) -> WebhookSettings:
        values: dict[str, Any] = {}
        for name, default in cls().__dict__.items():
            raw = os.environ.get(f"WEBHOOK_{name.upper()}")
            if raw is None:
                continue
            if isinstance(default, bool):
                values[name] = raw.lower() in ("1", "true", "yes", "on")
            elif isinstance(default, float):
                values[name] = float(raw)
            else:
                values[name] = raw
        values.update(overrides)
        return cls(**values)


class WebhookNotFound(ServiceError):
    status, code, title = 404, "WEBHOOK_NOT_FOUND", "No such webhook"


class WebhookUrlRefused(ServiceError):
    status, code, title = 422, "WEBHOOK_URL_REFUSED", "This URL may not receive webhooks"


class NotGameCreator(ServiceError):
    status, code, title = 403, "NOT_GAME_CREATOR", "Only the game's creator may subscribe to the whole game"


class TooManyWebhooks(ServiceError):
    status, code, title = 409, "TOO_MANY_WEBHOOKS", "The account has as many webhooks as it may"


# -- addresses ---------------------------------------------------------------------------------


def address_refusal(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address, allow_private: bool
) -> str | None:
    """Why ``address`` may not be connected to, or None."""
    if isinstance(address, ipaddress.IPv6Address):
        # An IPv4 address carried inside IPv6 (mapped, 6to4, NAT64) is judged as that address.
        if address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        elif address.sixtofour is not None:
            address = address.sixtofour
        elif address in NAT64:
            address = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_link_local:
        return "a link-local address"
    if allow_private:
        return None
    if address.is_loopback:
        return "a loopback address"
    if address.is_private or address.is_reserved or not address.is_global:
        return "a private or reserved address"
    return None


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str  # as the URL names it (Host header, TLS server name)
    port: int
    path: str
    address: str  # the checked address the connection goes to


def resolve_target(url: str, allow_private: bool) -> Target:
    """Parse and resolve ``url``; raises :class:`WebhookUrlRefused` unless every address it
    resolves to may be connected to (one bad answer refuses all: DNS may rotate them)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise WebhookUrlRefused(f"Not a URL: {exc}.") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookUrlRefused("The URL must be http:// or https:// with a host.")
    if parts.username or parts.password:
        raise WebhookUrlRefused("The URL may not carry credentials.")
    host = parts.hostname
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise WebhookUrlRefused(f"The host {host!r} does not resolve.") from None
    addresses = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        why = address_refusal(address, allow_private)
        if why is not None:
            raise WebhookUrlRefused(f"The host {host!r} resolves to {why}.")
        addresses.append(address)
    if not addresses:
        raise WebhookUrlRefused(f"The host {host!r} does not resolve.")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(parts.scheme, host, port, path, str(addresses[0]))


@dataclass(frozen=True)
class Attempt:
    status: int | None  # the HTTP status, None when no answer came
    error: str | None
    latency_ms: float

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


class PinnedSender:
    """POSTs to the address :func:`resolve_target` checked, never to a fresh DNS answer."""

    def __init__(self, settings: WebhookSettings):
        self.settings = settings

    def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Attempt:
        started = time.perf_counter()
        try:
            target = resolve_target(url, self.settings.allow_private_targets)
        except WebhookUrlRefused as exc:
            return Attempt(None, f"refused: {exc.message}", 0.0)
        timeout = urllib3.Timeout(connect=self.settings.connect_timeout, read=self.settings.read_timeout)
        pool: urllib3.HTTPConnectionPool
        if target.scheme == "https":
            pool = urllib3.HTTPSConnectionPool(
                target.address,
                target.port,
                timeout=timeout,
                retries=False,
                server_hostname=target.host,
                assert_hostname=target.host,
            )
        else:
            pool = urllib3.HTTPConnectionPool(target.address, target.port, timeout=timeout, retries=False)
        default_port = 443 if target.scheme == "https" else 80
        host_header = target.host if target.port == default_port else f"{target.host}:{target.port}"
        if ":" in target.host and not target.host.startswith("["):
            host_header = (
                f"[{target.host}]" if target.port == default_port else f"[{target.host}]:{target.port}"
            )
        try:
            response = pool.urlopen(
                "POST",
                target.path,
                body=body,
                headers={**headers, "Host": host_header},
                redirect=False,
                preload_content=False,
                assert_same_host=False,
            )
            try:
                response.read(RESPONSE_READ_LIMIT)  # at most this much of what the receiver says
            finally:
                response.release_conn()
            status: int | None = response.status
            error = None if 200 <= response.status < 300 else f"HTTP {response.status}"
        except Exception as exc:  # noqa: BLE001 - any failure to deliver is a failed attempt
            status, error = None, f"{type(exc).__name__}: {exc}"[:300]
        finally:
            pool.close()
        return Attempt(status, error, round((time.perf_counter() - started) * 1000, 2))


# -- signing and bodies --------------------------------------------------------------------------


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def sign(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` header of the Standard Webhooks specification."""
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    digest = hmac.new(key, f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def _iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + f".{ms % 1000:03d}Z"


def _sentence(kind: str, data: Mapping[str, Any], link: str) -> str:
    game = data.get("game", "game")
    if kind == "your_turn":
        deadline = f" (before {data['deadline']})" if data.get("deadline") else ""
        return f"Your turn in {game}{deadline}: {link}"
    if data.get("seat") is None and kind in ("game_started", "game_finished"):  # a game-wide webhook
        return f"The {game} game has {'started' if kind == 'game_started' else 'finished'}: {link}"
    if kind == "game_started":
        return f"Your {game} game has started: {link}"
    if kind == "game_finished":
        outcome = "you won" if data.get("won") else "it is over"
        return f"Your {game} game has finished, {outcome}: {link}"
    if kind == "verified":
        verdict = "its log and state agree with the rules" if data.get("ok") else "it found a divergence"
        return f"The verification of game {data.get('game_id')} is done, {verdict}: {link}"
    if kind == "export_ready":
        of = f" of game {data['game_id']}" if data.get("game_id") else ""
        return f"Your export{of} is ready: {link}"
    return f"Webhook test from the game server: {link}"


def body_of(delivery: Mapping[str, Any], sub: Mapping[str, Any], base_url: str) -> bytes:
    data = dict(delivery.get("data") or {})
    result = data.get("result")
    if isinstance(result, dict) and result.get("winners") == {}:
        # Lua's cjson writes an empty array as {}: no winners (an aborted game) is [] again.
        data["result"] = {**result, "winners": []}
    game_id = data.get("game_id")
    base = base_url.rstrip("/")
    link = f"{base}/play/{game_id}" if game_id else base_url
    if game_id:
        data["url"] = link
    if delivery["type"] in JOB_EVENTS and isinstance(data.get("result"), str):
        # A job's notice links to its result (the job's own answer names it relative to the API).
        data["result"] = link = base + data["result"]
    fmt = sub.get("format", "standard")
    if fmt == "discord":
        return orjson.dumps({"content": _sentence(delivery["type"], data, link)})
    if fmt == "slack":
        return orjson.dumps({"text": _sentence(delivery["type"], data, link)})
    return orjson.dumps({"type": delivery["type"], "timestamp": _iso(int(delivery["ms"])), "data": data})


# -- the service -------------------------------------------------------------------------------


def _public(sub: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("id", "url", "events", "game_id", "format", "paused", "created")
    return {k: sub.get(k) for k in keys} | {
        "game_wide": bool(sub.get("game_wide")),
        "failing_since": _iso(int(sub["failing_since"])) if sub.get("failing_since") else None,
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
            "created": _iso(self._now_ms()),
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


@dataclass
class PassReport:
    sent: int = 0
    retried: int = 0
    failed: int = 0
    dropped: int = 0
    accounts: int = 0
    latencies: list[float] = field(default_factory=list)


class Deliverer:
    """One delivery loop's work: the due deliveries of the hinted accounts."""

    def __init__(
        self,
        store: WebhookStore,
        settings: WebhookSettings,
        sender: PinnedSender | None = None,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ):
        self.store = store
        self.settings = settings
        self.sender = sender or PinnedSender(settings)
        self.clock = clock
        self.rng = rng or random.Random()
        self._last_rehint = 0.0

    def backoff_seconds(self, attempts: int) -> float:
        """Exponential, capped, with jitter (half to all of it), so many receivers that came back
        at once are not hit at the same instant."""
        grown = self.settings.first_retry_seconds * 2.0 ** max(attempts - 1, 0)
        base = min(grown, self.settings.most_retry_seconds)
        return base * self.rng.uniform(0.5, 1.0)

    def run_once(
        self, most_accounts: int = 100, most_per_account: int = 50, rehint_every: float = 30.0
    ) -> PassReport:
        report = PassReport()
        now = self.clock()
        if now - self._last_rehint >= rehint_every:
            self.store.rehint_all()
            self._last_rehint = now
        for account_id, seen in self.store.due_accounts(int(now * 1000), most_accounts):
            report.accounts += 1
            self._account(account_id, most_per_account, report)
            self.store.settle_hint(account_id, seen)
        return report

    def _account(self, account_id: str, most: int, report: PassReport) -> None:
        now_ms = int(self.clock() * 1000)
        taken = self.store.take(account_id, now_ms, int(self.settings.lease_seconds * 1000), most)
        if not taken:
            return
        subs = self.store.subscriptions(account_id)
        for delivery in taken:
            sub = subs.get(delivery["sub"])
            if sub is None or (sub.get("paused") and delivery["type"] != "ping"):
                self._settle(account_id, delivery, "drop", 0, None)
                report.dropped += 1
                continue
            body = body_of(delivery, sub, self.settings.public_base_url)
            timestamp = int(self.clock())
            headers = {
                "Content-Type": "application/json",
                "User-Agent": "condottiere-webhooks/1",
                "webhook-id": delivery["id"],
                "webhook-timestamp": str(timestamp),
                "webhook-signature": sign(sub["secret"], delivery["id"], timestamp, body),
            }
            attempt = self.sender.post(sub["url"], body, headers)
            fault_point("after_webhook_post")  # tests/faults: sent, not yet settled
            report.latencies.append(attempt.latency_ms)
            if attempt.ok:
                self._settle(account_id, delivery, "ok", 0, attempt)
                report.sent += 1
                continue
            now = self.clock()
            if (now * 1000 - int(delivery["created_ms"])) >= self.settings.retry_for_seconds * 1000:
                self._settle(account_id, delivery, "failed", 0, attempt)
                report.failed += 1
            else:
                next_ms = int((now + self.backoff_seconds(int(delivery["attempts"]) + 1)) * 1000)
                self._settle(account_id, delivery, "retry", next_ms, attempt)
                report.retried += 1

    def _settle(
        self,
        account_id: str,
        delivery: Mapping[str, Any],
        outcome: str,
        next_ms: int,
        attempt: Attempt | None,
    ) -> None:
        now_ms = int(self.clock() * 1000)
        entry = {
            "delivery_id": delivery["id"],
            "event": delivery["type"],
            "at": _iso(now_ms),
            "attempt": int(delivery["attempts"]) + 1,
            "outcome": {"ok": "delivered", "retry": "retrying", "failed": "failed"}.get(outcome, outcome),
            "status": attempt.status if attempt else None,
            "latency_ms": attempt.latency_ms if attempt else None,
            "error": attempt.error if attempt else None,
        }
        self.store.settle(
            account_id,
            delivery["sub"],
            delivery["id"],
            outcome,
            next_ms,
            entry,
            LOG_LENGTH,
            now_ms,
            int(self.settings.pause_after_seconds * 1000),
            FEED_LENGTH,
        )
