"""Tournaments over HTTP: create, join, withdraw, start, standings; refusals as problem+json with
stable codes, nothing changed."""

from __future__ import annotations

import pytest

from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, session


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH)


def _problem(answer, status, code):
    assert answer.status_code == status, answer.get_json()
    assert answer.mimetype == "application/problem+json"
    assert answer.get_json()["code"] == code


def test_a_tournament_over_http(app, client):
    org = session(client, "Org")
    made = client.post(
        "/v1/tournaments", json={"game": "condottiere", "table_size": 4, "rounds": 2}, headers=bearer(org)
    )
    assert made.status_code == 201, made.get_json()
    tid = made.get_json()["id"]
    tokens = [session(client, f"Player{i}") for i in range(7)]
    for token in tokens:
        assert client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(token)).status_code == 200
    before = client.get(f"/v1/tournaments/{tid}").get_json()
    _problem(
        client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(tokens[0])), 409, "ALREADY_ENTERED"
    )
    _problem(client.post(f"/v1/tournaments/{tid}/start", headers=bearer(tokens[1])), 403, "NOT_ORGANISER")
    assert client.get(f"/v1/tournaments/{tid}").get_json() == before
    started = client.post(f"/v1/tournaments/{tid}/start", headers=bearer(org))
    assert started.status_code == 200, started.get_json()
    body = started.get_json()
    assert body["status"] == "running" and sorted(len(t["players"]) for t in body["rounds"][0]["tables"]) == [
        3,
        4,
    ]
    _problem(
        client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(session(client, "Late"))),
        409,
        "TOURNAMENT_NOT_OPEN",
    )
    assert [t["id"] for t in client.get("/v1/tournaments").get_json()["tournaments"]] == [tid]


def test_a_table_size_the_game_does_not_allow(app, client):
    org = session(client, "Org")
    answer = client.post(
        "/v1/tournaments", json={"game": "condottiere", "table_size": 9}, headers=bearer(org)
    )
    _problem(answer, 422, "TABLE_SIZE_NOT_ALLOWED")
    assert client.get("/v1/tournaments").get_json()["tournaments"] == []


def test_me_names_the_account_id_a_tournament_lists(app, client):
    """GET /v1/me's ``account`` is the id the tournament lists its organiser and entrants by (the
    pages find the signed-in person's table with it)."""
    org = session(client, "Org")
    me = client.get("/v1/me", headers=bearer(org)).get_json()
    made = client.post("/v1/tournaments", json={"game": "condottiere", "table_size": 3}, headers=bearer(org))
    tid = made.get_json()["id"]
    joined = client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(org)).get_json()
    assert joined["organiser"] == me["account"]
    assert [e["account"] for e in joined["entrants"]] == [me["account"]]
