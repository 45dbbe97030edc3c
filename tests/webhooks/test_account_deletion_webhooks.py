"""Deleting an account (``DELETE /v1/me``) asks for its password again and takes its webhooks with
its credentials, in one step: subscriptions (URLs, secrets), pending deliveries, its place in the
delivery loop and its game-wide subscriptions; nothing is delivered for it afterwards."""

from __future__ import annotations

import pytest

from service.webhook_delivery import Deliverer, WebhookSettings
from store.webhooks import ACCOUNTS, HINTS, WebhookStore, watchers_key
from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, session
from tests.api.test_me_stream import one_card_game, play_out
from tests.webhooks.receiver import Receiver


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(
        redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH, WEBHOOK_ALLOW_PRIVATE_TARGETS=True
    )


@pytest.fixture()
def receiver():
    made = Receiver()
    yield made
    made.close()


def account_of(token: str) -> str:
    return token.split("_", 1)[1].split(".")[0]


def hooked(client, token, url) -> dict:
    """A personal webhook, a game the account created with a game-wide webhook, a ping pending."""
    events = ["game_started", "your_turn", "game_finished"]
    hook = client.post("/v1/me/webhooks", json={"url": url, "events": events}, headers=bearer(token))
    assert hook.status_code == 201, hook.get_json()
    created = client.post(
        "/v1/games", json={"game": "toy", "config": {"seed": 3, "hand_size": 1}}, headers=bearer(token)
    )
    game = created.get_json()["id"]
    wide = client.post(
        f"/v1/games/{game}/webhooks",
        json={"url": url, "events": ["game_started", "game_finished"]},
        headers=bearer(token),
    )
    assert wide.status_code == 201, wide.get_json()
    assert (
        client.post(f"/v1/me/webhooks/{hook.get_json()['id']}/ping", headers=bearer(token)).status_code == 202
    )
    return {"hook": hook.get_json(), "wide": wide.get_json(), "game": game}


def test_deleting_an_account_asks_for_its_password_again_and_a_refusal_changes_nothing(
    app, client, receiver, redis_client
):
    token = session(client)
    hooked(client, token, receiver.url)
    before = sorted(redis_client.keys("hook:*"))
    no_body = client.delete("/v1/me", headers=bearer(token))  # what deleted an account before
    assert no_body.status_code == 415 and no_body.get_json()["code"] == "UNSUPPORTED_MEDIA_TYPE"
    assert no_body.headers["Content-Type"] == "application/problem+json"
    missing = client.delete("/v1/me", json={}, headers=bearer(token))
    assert missing.status_code == 422 and missing.get_json()["code"] == "VALIDATION_ERROR"
    assert "password" in missing.get_json()["errors"]["json"]
    wrong = client.delete("/v1/me", json={"password": "not my password"}, headers=bearer(token))
    assert wrong.status_code == 401 and wrong.get_json()["code"] == "INVALID_CREDENTIALS"
    assert client.get("/v1/me", headers=bearer(token)).status_code == 200
    assert len(client.get("/v1/me/webhooks", headers=bearer(token)).get_json()["webhooks"]) == 2
    assert sorted(redis_client.keys("hook:*")) == before
    done = client.delete("/v1/me", json={"password": "correct horse"}, headers=bearer(token))
    assert done.status_code == 204


def test_a_deleted_accounts_webhooks_go_with_its_credentials_and_fire_no_more(
    app, client, receiver, redis_client
):
    token = session(client)
    made = hooked(client, token, receiver.url)
    account = account_of(token)
    store = WebhookStore(redis_client)
    assert store.pending(account) == 1 and redis_client.zscore(HINTS, account) is not None
    assert (
        client.delete("/v1/me", json={"password": "correct horse"}, headers=bearer(token)).status_code == 204
    )
    # Every key of the account's webhooks is gone (subscriptions with their secrets, deliveries,
    # logs, cursor), and nothing elsewhere names it: the delivery loop, the game's watchers.
    assert redis_client.keys(f"hook:{{a:{account}}}:*") == []
    assert not redis_client.sismember(ACCOUNTS, account)
    assert redis_client.zscore(HINTS, account) is None
    assert not redis_client.sismember(watchers_key(made["game"]), account)
    # The game the account created is played out: neither its personal nor its game-wide
    # webhook (nor the ping queued before) is delivered.
    other = session(client, "Eve")
    game, ann, bob = one_card_game(client, other)
    play_out(client, game, ann["token"], bob["token"])
    seat0 = client.post(f"/v1/games/{made['game']}/seats", json={"name": "Cy", "seat": 0}).get_json()
    seat1 = client.post(f"/v1/games/{made['game']}/seats", json={"name": "Di", "seat": 1}).get_json()
    play_out(client, made["game"], seat0["token"], seat1["token"])
    sender = Deliverer(store, WebhookSettings(allow_private_targets=True))
    for _ in range(3):
        sender.run_once(rehint_every=0)
    assert receiver.received == []
    assert redis_client.keys(f"hook:{{a:{account}}}:*") == []
