"""Challenge events through webhooks: every party's subscription gets `challenge` when it is made
and `challenge_declined` (with the reason) when it is declined, once each, signed as every delivery;
an account that is no party gets nothing. A real receiver on loopback."""

from __future__ import annotations

import pytest
from standardwebhooks.webhooks import Webhook

from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, session
from tests.webhooks.receiver import Receiver
from tests.webhooks.test_job_webhooks import settle
from tests.webhooks.test_webhooks import ALLOW, deliverer, drain, subscribe

KINDS = ["challenge", "challenge_declined", "challenge_canceled", "challenge_expired"]


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH, **ALLOW)


def test_every_party_hears_the_challenge_and_its_decline_once(app, client):
    ann, bob, cid = session(client, "Ann"), session(client, "Bob"), session(client, "Cid")
    hooks = {name: Receiver() for name in ("Ann", "Bob", "Cid")}
    try:
        subs = {
            name: subscribe(client, token, hooks[name].url, events=KINDS)
            for name, token in (("Ann", ann), ("Bob", bob), ("Cid", cid))
        }
        made = client.post("/v1/challenges", json={"game": "toy", "invite": ["Bob"]}, headers=bearer(ann))
        assert made.status_code == 201, made.get_json()
        challenge_id = made.get_json()["id"]
        declined = client.post(
            f"/v1/challenges/{challenge_id}/decline", json={"reason": "casual"}, headers=bearer(bob)
        )
        assert declined.status_code == 200
        sender = deliverer(app)
        for name in ("Ann", "Bob"):
            drain(sender, hooks[name], 2)
        settle(sender)
        for name in ("Ann", "Bob"):
            checked = [
                Webhook(subs[name]["secret"]).verify(r["body"], r["headers"]) for r in hooks[name].received
            ]
            assert [p["type"] for p in checked] == ["challenge", "challenge_declined"], name
            assert all(p["data"]["id"] == challenge_id for p in checked)
            assert checked[1]["data"]["reason"] == "casual" and "seed" not in checked[0]["data"]["config"]
        assert hooks["Cid"].received == []
    finally:
        for receiver in hooks.values():
            receiver.close()
