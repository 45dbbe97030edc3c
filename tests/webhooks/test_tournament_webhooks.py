"""Tournament events through webhooks: an entrant's subscription gets `tournament_round_started`
(with its own table's game) and `tournament_finished` (with the standings), once each, signed as
every delivery; an account that did not enter gets nothing. A real receiver on loopback."""

from __future__ import annotations

import random

import pytest
from standardwebhooks.webhooks import Webhook

from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, session
from tests.api.test_tournament_play import _play_round
from tests.webhooks.receiver import Receiver
from tests.webhooks.test_job_webhooks import settle
from tests.webhooks.test_webhooks import ALLOW, deliverer, drain, subscribe

KINDS = ["tournament_round_started", "tournament_finished"]


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH, **ALLOW)


def test_an_entrant_hears_its_round_and_the_end_once(app, client):
    org, ann, bob, cid = (session(client, name) for name in ("Org", "Ann", "Bob", "Cid"))
    hooks = {name: Receiver() for name in ("Ann", "Cid")}
    try:
        subs = {
            name: subscribe(client, token, hooks[name].url, events=KINDS)
            for name, token in (("Ann", ann), ("Cid", cid))
        }
        tid = client.post(
            "/v1/tournaments",
            json={"game": "condottiere", "table_size": 3, "rounds": 1, "title": "Cup"},
            headers=bearer(org),
        ).get_json()["id"]
        for token in (ann, bob):
            assert (
                client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(token)).status_code == 200
            )
        client.post(f"/v1/tournaments/{tid}/bots", json={"level": "random"}, headers=bearer(org))
        client.post(f"/v1/tournaments/{tid}/start", headers=bearer(org))
        view = _play_round(
            client, app.extensions["game_service"], tid, {"Ann": ann, "Bob": bob}, random.Random(2)
        )
        assert view["status"] == "finished"
        sender = deliverer(app)
        drain(sender, hooks["Ann"], 2)
        settle(sender)
        checked = [
            Webhook(subs["Ann"]["secret"]).verify(r["body"], r["headers"]) for r in hooks["Ann"].received
        ]
        assert [p["type"] for p in checked] == KINDS
        (table,) = view["rounds"][0]["tables"]
        started = checked[0]["data"]
        assert started["game_id"] == table["game"] and started["round"] == 1 and started["title"] == "Cup"
        assert table["players"][started["seat"]] == next(
            e["account"] for e in view["entrants"] if e["name"] == "Ann"
        )
        told = checked[1]["data"]["standings"]  # through Lua's JSON: 14 significant digits
        assert [s["account"] for s in told] == [s["account"] for s in view["standings"]]
        assert [s["score"] for s in told] == pytest.approx([s["score"] for s in view["standings"]])
        assert hooks["Cid"].received == []
    finally:
        for receiver in hooks.values():
            receiver.close()
