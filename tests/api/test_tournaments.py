"""Tournaments over HTTP: create, join, withdraw, start, standings; refusals as problem+json with
stable codes, nothing changed."""

from __future__ import annotations

import random

import pytest

from tests import app_fixtures
from tests.api.playing import play_to_the_end
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


def test_a_tournament_that_admits_no_bots_refuses_a_bot_account_and_a_server_bot(app, client):
    """``bots: false``: a bot account's join and the organiser's server bot are each 403
    NOT_ADMITTED, and the tournament is as it was; a person still enters."""
    org, robo, ann = session(client, "Org"), session(client, "Robo", bot=True), session(client, "Ann")
    made = client.post(
        "/v1/tournaments",
        json={"game": "condottiere", "table_size": 3, "bots": False},
        headers=bearer(org),
    )
    assert made.status_code == 201, made.get_json()
    tid = made.get_json()["id"]
    assert made.get_json()["settings"]["bots"] is False
    before = client.get(f"/v1/tournaments/{tid}").get_json()
    _problem(client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(robo)), 403, "NOT_ADMITTED")
    _problem(
        client.post(f"/v1/tournaments/{tid}/bots", json={"level": "random"}, headers=bearer(org)),
        403,
        "NOT_ADMITTED",
    )
    assert client.get(f"/v1/tournaments/{tid}").get_json() == before
    assert client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(ann)).status_code == 200


def _finished_tournament(client, svc, org: str, rated: bool, handles: list[str]) -> tuple[str, dict]:
    """A one-round tournament of three accounts at one table, played to its end."""
    tid = client.post(
        "/v1/tournaments",
        json={"game": "condottiere", "table_size": 3, "rounds": 1, "rated": rated},
        headers=bearer(org),
    ).get_json()["id"]
    tokens = {h: session(client, h) for h in handles}
    for token in tokens.values():
        assert client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(token)).status_code == 200
    (table,) = client.post(f"/v1/tournaments/{tid}/start", headers=bearer(org)).get_json()["rounds"][0][
        "tables"
    ]
    play_to_the_end(client, svc, table["game"], tokens, random.Random(int(rated)))
    view = client.get(f"/v1/tournaments/{tid}").get_json()
    assert view["status"] == "finished"
    return tid, table


def test_a_rated_tournament_rates_its_games_an_unrated_one_does_not_and_a_finished_one_admits_nobody(
    app, client, svc
):
    """``rated`` reaches every table's game: a rated tournament's players are on the game's rating
    list after their game, an unrated one's are not. Joining a finished tournament is 409
    TOURNAMENT_NOT_OPEN, nothing changed."""
    org = session(client, "Org")
    rated_tid, rated_table = _finished_tournament(client, svc, org, True, ["Ann", "Bob", "Cid"])
    casual_tid, casual_table = _finished_tournament(client, svc, org, False, ["Dee", "Eve", "Fay"])
    assert svc.store.meta(rated_table["game"])["rated"] == "true"
    assert svc.store.meta(casual_table["game"])["rated"] == "false"
    leaders = {r["player"] for r in client.get("/v1/ratings/condottiere").get_json()["leaders"]}
    assert {"Ann", "Bob", "Cid"} <= leaders
    assert not {"Dee", "Eve", "Fay"} & leaders
    before = client.get(f"/v1/tournaments/{rated_tid}").get_json()
    _problem(
        client.post(f"/v1/tournaments/{rated_tid}/join", json={}, headers=bearer(session(client, "Late"))),
        409,
        "TOURNAMENT_NOT_OPEN",
    )
    assert client.get(f"/v1/tournaments/{rated_tid}").get_json() == before
