"""Sending webhooks: the operator's settings, the pinned sender, signing, bodies and
the delivery loop.

Sending (:class:`Deliverer`, run by ``python -m worker.webhooks``): the due deliveries of each hinted
account are taken with a lease (a sender killed mid-delivery leaves them due again when it
expires: at least once, with the same ``webhook-id``, so a receiver drops the duplicate), signed as
the Standard Webhooks specification says, POSTed through :class:`PinnedSender`, and settled: done,
retried after an exponential backoff with jitter, or failed after ``retry_for`` (a day and more).

Fairness: each account is served by its own task in a pool of ``concurrency`` threads, at most one
task per account at a time, each taking only as many deliveries as it can send within the lease
even if every POST times out. So a receiver that never answers holds one thread, its account's
share, and never delays another account's deliveries (``bench/webhook_fairness.py`` measures the
others' delay). Accounts with slow receivers beyond ``concurrency`` would share the pool: raise it.

:class:`PinnedSender` connects to the address ``service.webhook_targets.resolve_target`` checked at
this very attempt (no fresh DNS answer), reusing one urllib3 connection pool per receiver (scheme,
checked address, port and host name): a receiver sent many deliveries is not sent as many TCP (and
TLS) handshakes. Redirects are not followed; a response body is read to at most
:data:`RESPONSE_READ_LIMIT` bytes (a connection whose answer was longer is closed, not reused).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import random
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import orjson
import urllib3

from service.faults import fault_point
from service.webhook_targets import Target, WebhookUrlRefused, resolve_target
from store.accounts import FEED_LENGTH
from store.webhooks import WebhookStore

# A game-wide subscription (its creator's) gets only what any spectator may know, and only the
# game's own events: a job's end is news for whoever asked for the job, not for the game's audience.
GAME_EVENTS = ("game_started", "game_finished")
# Told to the account that asked for a job while signed in (service.jobs.JobService.announce).
JOB_EVENTS = ("verified", "export_ready")
FORMATS = ("standard", "discord", "slack")
RESPONSE_READ_LIMIT = 4096
LOG_LENGTH = 50
SECRET_PREFIX = "whsec_"


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
    concurrency: int = 16  # accounts served at once by one delivery loop (one thread each)
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
            elif isinstance(default, int):
                values[name] = int(raw)
            else:
                values[name] = raw
        values.update(overrides)
        return cls(**values)


@dataclass(frozen=True)
class Attempt:
    status: int | None  # the HTTP status, None when no answer came
    error: str | None
    latency_ms: float

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


# Receivers whose connection pools a sender keeps (least recently used beyond it are closed), and
# connections kept per receiver (several accounts may share one, e.g. a chat service).
MOST_RECEIVERS = 256
CONNECTIONS_PER_RECEIVER = 4


class PinnedSender:
    """POSTs to the address :func:`resolve_target` checked, never to a fresh DNS answer; one
    connection pool per receiver, reused across deliveries (thread-safe)."""

    def __init__(self, settings: WebhookSettings):
        self.settings = settings
        self._pools: OrderedDict[tuple[str, str, int, str], urllib3.HTTPConnectionPool] = OrderedDict()
        self._lock = threading.Lock()

    def _pool(self, target: Target) -> urllib3.HTTPConnectionPool:
        key = (target.scheme, target.address, target.port, target.host)
        with self._lock:
            pool = self._pools.get(key)
            if pool is not None:
                self._pools.move_to_end(key)
                return pool
            pool = self._new_pool(target)
            self._pools[key] = pool
            if len(self._pools) > MOST_RECEIVERS:
                _, oldest = self._pools.popitem(last=False)
                oldest.close()
            return pool

    def close(self) -> None:
        with self._lock:
            for pool in self._pools.values():
                pool.close()
            self._pools.clear()

    def _new_pool(self, target: Target) -> urllib3.HTTPConnectionPool:
        timeout = urllib3.Timeout(connect=self.settings.connect_timeout, read=self.settings.read_timeout)
        # Not blocking: a pool at its size opens a connection more rather than wait, and keeps only
        # CONNECTIONS_PER_RECEIVER of them afterwards.
        if target.scheme == "https":
            return urllib3.HTTPSConnectionPool(
                target.address,
                target.port,
                timeout=timeout,
                retries=False,
                server_hostname=target.host,
                assert_hostname=target.host,
                maxsize=CONNECTIONS_PER_RECEIVER,
                block=False,
            )
        return urllib3.HTTPConnectionPool(
            target.address,
            target.port,
            timeout=timeout,
            retries=False,
            maxsize=CONNECTIONS_PER_RECEIVER,
            block=False,
        )

    def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Attempt:
        started = time.perf_counter()
        try:
            target = resolve_target(url, self.settings.allow_private_targets)
        except WebhookUrlRefused as exc:
            return Attempt(None, f"refused: {exc.message}", 0.0)
        pool = self._pool(target)
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
            whole = False
            try:
                # At most this much of what the receiver says; a longer answer's connection is
                # closed rather than drained.
                whole = len(response.read(RESPONSE_READ_LIMIT)) < RESPONSE_READ_LIMIT
            finally:
                if not whole:
                    response.close()
                response.release_conn()
            status: int | None = response.status
            error = None if 200 <= response.status < 300 else f"HTTP {response.status}"
        except Exception as exc:  # noqa: BLE001 - any failure to deliver is a failed attempt
            status, error = None, f"{type(exc).__name__}: {exc}"[:300]
        return Attempt(status, error, round((time.perf_counter() - started) * 1000, 2))


# -- signing and bodies --------------------------------------------------------------------------


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def sign(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` header of the Standard Webhooks specification."""
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    digest = hmac.new(key, f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def iso(ms: int) -> str:
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
    if kind.startswith("challenge"):
        what = {
            "challenge": f"{data.get('challenger')} challenges you to {game}",
            "challenge_canceled": f"The {game} challenge by {data.get('challenger')} was canceled",
            "challenge_declined": f"The {game} challenge was declined ({data.get('reason')})",
            "challenge_expired": f"The {game} challenge by {data.get('challenger')} expired",
        }.get(kind, f"The {game} challenge changed")
        return f"{what}: {link}"
    if kind == "tournament_round_started":
        return f"Round {data.get('round')} of {data.get('title')} has started, your table: {link}"
    if kind == "tournament_finished":
        return f"{data.get('title')} has finished: {link}"
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
    return orjson.dumps({"type": delivery["type"], "timestamp": iso(int(delivery["ms"])), "data": data})


@dataclass
class PassReport:
    sent: int = 0
    retried: int = 0
    failed: int = 0
    dropped: int = 0
    accounts: int = 0
    latencies: list[float] = field(default_factory=list)

    def add(self, other: PassReport) -> None:
        self.sent += other.sent
        self.retried += other.retried
        self.failed += other.failed
        self.dropped += other.dropped
        self.accounts += other.accounts
        self.latencies += other.latencies


class Deliverer:
    """One delivery loop's work: the due deliveries of the hinted accounts, each account served by
    its own task (at most one at a time) in a pool of ``settings.concurrency`` threads."""

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
        self._pool = ThreadPoolExecutor(max(1, int(settings.concurrency)), thread_name_prefix="webhooks")
        self._busy: dict[str, Future[PassReport]] = {}
        self._lock = threading.Lock()

    def backoff_seconds(self, attempts: int) -> float:
        """Exponential, capped, with jitter (half to all of it), so many receivers that came back
        at once are not hit at the same instant."""
        grown = self.settings.first_retry_seconds * 2.0 ** max(attempts - 1, 0)
        base = min(grown, self.settings.most_retry_seconds)
        return base * self.rng.uniform(0.5, 1.0)

    def per_task(self, most_per_account: int) -> int:
        """How many deliveries one account's task takes: no more than it can send within the lease
        if every POST times out, so a dead receiver's deliveries are not leased out again (and sent
        twice by another loop) while they still wait their turn here."""
        worst = self.settings.connect_timeout + self.settings.read_timeout
        return max(1, min(most_per_account, int(self.settings.lease_seconds // max(worst, 0.001))))

    def dispatch(
        self, most_accounts: int = 100, most_per_account: int = 50, rehint_every: float = 30.0
    ) -> list[Future[PassReport]]:
        """Start a task for each due account that has none running; returns the tasks started.
        Does not wait for them (:meth:`collect` gathers what they did)."""
        now = self.clock()
        if now - self._last_rehint >= rehint_every:
            self.store.rehint_all()
            self._last_rehint = now
        with self._lock:
            busy = len(self._busy)
        started = []
        most = self.per_task(most_per_account)
        for account_id, seen in self.store.due_accounts(int(now * 1000), most_accounts + busy):
            with self._lock:
                if account_id in self._busy:
                    continue
                self._busy[account_id] = task = self._pool.submit(self._task, account_id, seen, most)
            started.append(task)
        return started

    def _task(self, account_id: str, seen: float, most: int) -> PassReport:
        report = PassReport(accounts=1)
        try:
            self._account(account_id, most, report)
            self.store.settle_hint(account_id, seen)
        finally:
            with self._lock:
                self._busy.pop(account_id, None)
        return report

    def in_flight(self) -> list[Future[PassReport]]:
        with self._lock:
            return list(self._busy.values())

    def collect(self, futures: list[Future[PassReport]]) -> PassReport:
        """The merged reports of ``futures`` that are done (a task's exception is raised here)."""
        report = PassReport()
        for future in futures:
            if future.done():
                report.add(future.result())
        return report

    def run_once(
        self, most_accounts: int = 100, most_per_account: int = 50, rehint_every: float = 30.0
    ) -> PassReport:
        """One pass that waits for its tasks (tests, benches): dispatch, then wait for every task."""
        running = self.dispatch(most_accounts, most_per_account, rehint_every) + self.in_flight()
        wait(running)
        return self.collect(list(set(running)))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        if isinstance(self.sender, PinnedSender):
            self.sender.close()

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
            "at": iso(now_ms),
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
