"""`RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-10) on every answer:
a move's (the hot path's and Flask's, one budget), a refusal's, a view's and any other route's."""

from __future__ import annotations

import re

import pytest

from api import create_app
from tests.api.conftest import Table

BROWSER = {"Origin": "https://club.example"}  # the hot path leaves such a move to Flask
FIELD = re.compile(r'^"(?P<name>[a-z_]+-\d+s)";r=(?P<r>\d+);t=(?P<t>\d+)$')


@pytest.fixture()
def limited(redis_client, redis_server):
    settings = {
        "RATE_LIMITS_ENABLED": True,
        "RATE_LIMIT_MOVE": "4/hour",
        "RATE_LIMIT_TOKEN_FAILURE": "7/minute",
    }
    app = create_app({"REDIS_URL": redis_server.url, "TESTING": True, **settings})
    yield app
    app.extensions["game_service"].live.close()
    app.extensions["game_service"].store.redis.close()


def _remaining(response, policy: str) -> tuple[int, int]:
    assert response.headers["RateLimit-Policy"] == policy, dict(response.headers)
    found = FIELD.match(response.headers["RateLimit"])
    assert found is not None, response.headers["RateLimit"]
    return int(found["r"]), int(found["t"])


def test_moves_on_both_paths_say_the_seat_s_one_budget_down_to_the_refusal(limited):
    table = Table(limited.test_client())
    policy = '"move-3600s";q=4;w=3600'
    hot = table.move(0, {"type": "pass"})
    assert hot.status_code == 200
    assert _remaining(hot, policy)[0] == 3
    flask = table.move(0, {"type": "pass"}, headers=BROWSER)  # not seat 0's turn: refused, counted
    assert flask.status_code == 422
    assert _remaining(flask, policy)[0] == 2
    refused_by_rule = table.move(0, {"type": "play", "card": "c000"})
    assert refused_by_rule.status_code == 422 and _remaining(refused_by_rule, policy)[0] == 1
    assert _remaining(table.move(0, {"type": "pass"}), policy)[0] == 0
    limited_answer = table.move(0, {"type": "pass"})
    assert limited_answer.status_code == 429
    remaining, reset = _remaining(limited_answer, policy)
    assert remaining == 0 and 0 < reset <= 3600
    assert _remaining(table.move(1, {"type": "pass"}), policy)[0] == 3  # the other seat's own budget


def test_views_and_other_answers_say_the_address_s_credential_check_limit(limited):
    client = limited.test_client()
    table = Table(client)
    policy = '"token_failure-60s";q=7;w=60'
    assert _remaining(client.get(f"/v1/games/{table.id}/view", headers=table.auth(0)), policy) == (7, 0)
    assert _remaining(client.get(f"/v1/games/{table.id}"), policy)[0] == 7
    bad = client.get(f"/v1/games/{table.id}/view", headers={"Authorization": "Bearer cst_" + "x" * 40})
    assert bad.status_code == 401
    assert _remaining(client.get(f"/v1/games/{table.id}/view"), policy)[0] == 6  # one failure counted
    assert _remaining(client.get("/v1/games"), policy)[0] == 6
