"""Webhooks (issue 33) under SIGKILL: nothing a committed move implies is lost.

* a process killed after writing the account's feed, before the fan-out made the deliveries: the
  janitor runs the ``accounts`` follow-up again and the fan-out makes them, once;
* a delivery worker (``python -m worker.webhooks``) killed while its POST is in flight: another
  worker sends it again when the lease ends, with the same ``webhook-id``, and everything else.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from service import composition
from service.webhook_delivery import Deliverer, WebhookSettings
from store.outbox import Outbox
from store.webhooks import WebhookStore
from tests import app_fixtures
from tests.api import toy_game
from tests.api.test_accounts import FAST_HASH, bearer, session
from tests.api.test_me_stream import one_card_game, play_out
from tests.janitors import janitor_for
from tests.webhooks.receiver import Receiver, wait_for
from tests.worker_processes import wait_for as wait_until

toy_game.register()
ROOT = Path(__file__).resolve().parents[2]
BOUND_SECONDS = 60.0


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(
        redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH, WEBHOOK_ALLOW_PRIVATE_TARGETS=True
    )


@pytest.fixture()
def receiver():
    made = Receiver()
    yield made
    made.hold = None
    made.close()


def subscribe(client, token, url):
    events = ["game_started", "your_turn", "game_finished"]
    made = client.post("/v1/me/webhooks", json={"url": url, "events": events}, headers=bearer(token))
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def account_of(token: str) -> str:
    return token.split("_", 1)[1].split(".")[0]


def types_by_id(receiver: Receiver) -> dict[str, str]:
    import json

    return {r["headers"]["webhook-id"]: json.loads(r["body"])["type"] for r in receiver.received}


def test_a_process_killed_between_the_feed_and_the_fan_out_loses_no_delivery(
    app, receiver, redis_server, queue_server
):
    client = app.test_client()
    token = session(client)
    subscribe(client, token, receiver.url)
    game, ann, bob = one_card_game(client, token)
    # The second fan-out of the actor is the finishing move's: killed with game_finished in the feed.
    env = dict(os.environ, FAULT_POINT="before_webhook_fan_out:2", PYTHONPATH=str(ROOT))
    killed = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.faults.webhook_actor",
            redis_server.url,
            game,
            ann["token"],
            bob["token"],
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    service = composition.game_service_at(redis_server.url, queue_url=queue_server.url)
    store = WebhookStore(service.store.redis)
    account = account_of(token)
    assert store.pending(account) == 2  # started, your_turn: the finish is in the feed only
    janitor = janitor_for(service)
    wait_for(lambda: not Outbox(service.store.redis).pending(game), BOUND_SECONDS, janitor.tick)
    sender = Deliverer(store, WebhookSettings(allow_private_targets=True))
    wait_for(lambda: len(receiver.received) >= 3, BOUND_SECONDS, lambda: sender.run_once(rehint_every=0))
    janitor.tick()  # the follow-up again changes nothing: no second delivery
    for _ in range(3):
        sender.run_once(rehint_every=0)
    assert sorted(types_by_id(receiver).values()) == ["game_finished", "game_started", "your_turn"]
    assert len(receiver.received) == 3 and store.pending(account) == 0
    service.store.redis.close()


def delivery_worker(url: str) -> subprocess.Popen:
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        REDIS_URL=url,
        WEBHOOK_ALLOW_PRIVATE_TARGETS="1",
        WEBHOOK_LEASE_SECONDS="1",
        WEBHOOK_LOOP_INTERVAL="0.05",
        WEBHOOK_READ_TIMEOUT="30",
    )
    return subprocess.Popen(
        [sys.executable, "-m", "worker.webhooks"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_a_delivery_worker_killed_mid_delivery_loses_nothing(app, receiver, redis_server):
    client = app.test_client()
    token = session(client)
    subscribe(client, token, receiver.url)
    game, ann, bob = one_card_game(client, token)
    play_out(client, game, ann["token"], bob["token"])  # three deliveries pending
    receiver.hold = threading.Event()  # the first POST is held open: the worker is mid-delivery
    first = delivery_worker(redis_server.url)
    second = None
    try:
        assert receiver.arrived.wait(BOUND_SECONDS)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        held_id = receiver.received[0]["headers"]["webhook-id"]
        receiver.hold.set()
        receiver.hold = None
        second = delivery_worker(redis_server.url)
        store = WebhookStore(app.extensions["game_service"].store.redis)
        wait_until(
            lambda: len(types_by_id(receiver)) == 3 and store.pending(account_of(token)) == 0,
            BOUND_SECONDS,
            "every delivery",
        )
        ids = [r["headers"]["webhook-id"] for r in receiver.received]
        # The killed worker's delivery came again with its id (the receiver drops it), the rest once.
        assert ids.count(held_id) == 2 and len(ids) == 4
        assert sorted(types_by_id(receiver).values()) == ["game_finished", "game_started", "your_turn"]
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


def test_a_process_killed_mid_deletion_leaves_no_webhook_and_the_janitor_finishes_it(
    app, receiver, redis_server, queue_server
):
    """Killed right after the first step of ``DELETE /v1/me``: the credentials and every webhook of
    the account went together (nothing can be delivered for it), and the janitor finishes the rest:
    the delivery loop and the game's watchers forget it, its keys go, its handle is free again."""
    from store.accounts import DELETING
    from store.webhooks import ACCOUNTS, watchers_key
    from tests.api.test_accounts import sign_up

    client = app.test_client()
    token = session(client)
    subscribe(client, token, receiver.url)
    created = client.post(
        "/v1/games", json={"game": "toy", "config": {"seed": 3, "hand_size": 1}}, headers=bearer(token)
    )
    game = created.get_json()["id"]
    wide = {"url": receiver.url, "events": ["game_started", "game_finished"]}
    assert client.post(f"/v1/games/{game}/webhooks", json=wide, headers=bearer(token)).status_code == 201
    account = account_of(token)
    env = dict(os.environ, FAULT_POINT="after_account_deletion_begun", PYTHONPATH=str(ROOT))
    killed = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.faults.account_deletion_actor",
            redis_server.url,
            token,
            "correct horse",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    service = composition.game_service_at(redis_server.url, queue_url=queue_server.url)
    redis = service.store.redis
    assert client.get("/v1/me", headers=bearer(token)).status_code == 401
    assert redis.keys(f"hook:{{a:{account}}}:*") == []  # with the credentials, in the same step
    assert redis.sismember(watchers_key(game), account)  # other slots: left for the finishing
    seat0 = client.post(f"/v1/games/{game}/seats", json={"name": "Cy", "seat": 0}).get_json()
    seat1 = client.post(f"/v1/games/{game}/seats", json={"name": "Di", "seat": 1}).get_json()
    play_out(client, game, seat0["token"], seat1["token"])
    sender = Deliverer(WebhookStore(redis), WebhookSettings(allow_private_targets=True))
    for _ in range(3):
        sender.run_once(rehint_every=0)
    assert receiver.received == []
    # Past the grace a live process would have needed, the janitor finishes the deletion.
    redis.zadd(DELETING, {account: 1})
    janitor_for(service).tick()
    assert not redis.zcard(DELETING) and not redis.keys(f"*{{a:{account}}}*")
    assert not redis.sismember(watchers_key(game), account) and not redis.sismember(ACCOUNTS, account)
    assert sign_up(client).status_code == 201  # the handle is free again
    service.store.redis.close()
