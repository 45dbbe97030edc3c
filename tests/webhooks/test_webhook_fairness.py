"""Webhook delivery is fair per account: a receiver that never answers holds only its own account's
share of the delivery loop; pings are limited; connections to a receiver are reused."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from service.webhook_delivery import Deliverer, WebhookSettings
from store.webhooks import WebhookStore
from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, session
from tests.webhooks.receiver import Receiver, wait_for

ROOT = Path(__file__).resolve().parents[2]
BOUND_SECONDS = 60.0


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(
        redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH, WEBHOOK_ALLOW_PRIVATE_TARGETS=True
    )


@pytest.fixture()
def receivers():
    made: list[Receiver] = []
    yield made
    for receiver in made:
        receiver.hold = None
        receiver.close()


def hook(client, token, url) -> str:
    made = client.post("/v1/me/webhooks", json={"url": url, "events": ["your_turn"]}, headers=bearer(token))
    assert made.status_code == 201, made.get_json()
    return made.get_json()["id"]


def ping(client, token, hook_id):
    return client.post(f"/v1/me/webhooks/{hook_id}/ping", headers=bearer(token))


def delivery_worker(url: str) -> subprocess.Popen:
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        REDIS_URL=url,
        WEBHOOK_ALLOW_PRIVATE_TARGETS="1",
        WEBHOOK_LOOP_INTERVAL="0.05",
        # Longer than the test waits: a loop that serves accounts one after another is still stuck
        # at the silent receiver when the bound is over.
        WEBHOOK_READ_TIMEOUT="120",
        WEBHOOK_LEASE_SECONDS="600",
    )
    return subprocess.Popen(
        [sys.executable, "-m", "worker.webhooks"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_a_receiver_that_never_answers_does_not_delay_another_accounts_delivery(app, redis_server, receivers):
    client = app.test_client()
    silent, quick = Receiver(), Receiver()
    receivers += [silent, quick]
    silent.hold = threading.Event()  # holds every request open until the test ends
    slow_owner, other = session(client, "Ann"), session(client, "Bob")
    slow_hook, quick_hook = hook(client, slow_owner, silent.url), hook(client, other, quick.url)
    for _ in range(3):
        assert ping(client, slow_owner, slow_hook).status_code == 202
    worker = delivery_worker(redis_server.url)
    try:
        assert silent.arrived.wait(BOUND_SECONDS)  # the loop is inside the silent receiver's POST
        assert ping(client, other, quick_hook).status_code == 202
        wait_for(lambda: len(quick.received) == 1, BOUND_SECONDS)
        assert len(silent.received) == 1 and silent.hold is not None and not silent.hold.is_set()
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
        silent.hold.set()


def test_test_pings_are_limited_per_account(app, client, receivers):
    receiver = Receiver()
    receivers.append(receiver)
    token = session(client)
    first, second = hook(client, token, receiver.url), hook(client, token, receiver.url)
    answers = [ping(client, token, first if n % 2 else second).status_code for n in range(5)]
    assert answers == [202] * 5
    refused = ping(client, token, first)
    assert refused.status_code == 429 and refused.get_json()["code"] == "TOO_MANY_PINGS"
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    store = WebhookStore(app.extensions["game_service"].store.redis)
    assert store.pending(token.split("_", 1)[1].split(".")[0]) == 5  # the refused one made none


def test_deliveries_to_one_receiver_reuse_its_connection(app, client, receivers):
    receiver = Receiver(keep_alive=True)
    receivers.append(receiver)
    token = session(client)
    hook_id = hook(client, token, receiver.url)
    store = WebhookStore(app.extensions["game_service"].store.redis)
    sender = Deliverer(store, WebhookSettings(allow_private_targets=True))
    for n in range(3):
        assert ping(client, token, hook_id).status_code == 202
        wait_for(
            lambda n=n: len(receiver.received) == n + 1,
            BOUND_SECONDS,
            lambda: sender.run_once(rehint_every=0),
        )
    assert len({r["client"] for r in receiver.received}) == 1  # one TCP connection (one source port)
    sender.close()
