"""Bot accounts as Lichess has them, over HTTP: an account with no games becomes a bot for good,
is labelled a bot on its profile and in the ratings, and is listed online while its stream is open.
Every refusal is a problem document with a stable code and changes nothing."""

from __future__ import annotations

import time

import pytest

from tests import app_fixtures
from tests.api.conftest import redis_dump
from tests.api.test_accounts import FAST_HASH, bearer, personal_token, session
from tests.api.test_me_stream import messages, play_out

PROBLEM = "application/problem+json"
DEADLINE_SECONDS = 30


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(
        redis_server, SSE_HEARTBEAT_SECONDS=0.2, PASSWORD_HASH_PARAMETERS=FAST_HASH
    )


def _refused(answer, status: int, code: str) -> None:
    assert answer.status_code == status, answer.get_json()
    assert answer.mimetype == PROBLEM and answer.get_json()["code"] == code


def _upgrade(client, token: str):
    return client.post("/v1/me/upgrade-to-bot", headers=bearer(token))


def test_an_account_without_games_becomes_a_bot_for_good(client, redis_client):
    robo = session(client, "Robo")
    assert client.get("/v1/players/robo").get_json()["bot"] is False
    upgraded = _upgrade(client, robo)
    assert upgraded.status_code == 200, upgraded.get_json()
    assert upgraded.get_json()["bot"] is True and upgraded.get_json()["handle"] == "Robo"
    assert client.get("/v1/players/robo").get_json()["bot"] is True
    assert client.get("/v1/me", headers=bearer(robo)).get_json()["bot"] is True
    before = redis_dump(redis_client)
    _refused(_upgrade(client, robo), 409, "ALREADY_BOT")
    assert redis_dump(redis_client) == before


def test_an_account_that_has_played_cannot_become_a_bot_and_nothing_changes(client, redis_client):
    ann = session(client, "Ann")
    created = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}})
    game = created.get_json()["id"]
    assert client.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=bearer(ann)).status_code == 201
    reader = personal_token(client, ann, ["read", "play"])
    before = redis_dump(redis_client)
    _refused(_upgrade(client, ann), 409, "ACCOUNT_HAS_GAMES")
    _refused(_upgrade(client, reader), 403, "INSUFFICIENT_SCOPE")
    _refused(client.post("/v1/me/upgrade-to-bot"), 401, "INVALID_TOKEN")
    assert redis_dump(redis_client) == before
    assert client.get("/v1/players/ann").get_json()["bot"] is False


def test_a_bot_account_is_labelled_a_bot_in_the_ratings(client):
    robo, ann = session(client, "Robo"), session(client, "Ann")
    assert _upgrade(client, robo).status_code == 200
    created = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}})
    game = created.get_json()["id"]
    t0 = client.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=bearer(robo)).get_json()["token"]
    t1 = client.post(f"/v1/games/{game}/seats", json={"seat": 1}, headers=bearer(ann)).get_json()["token"]
    play_out(client, game, t0, t1)
    leaders = client.get("/v1/ratings/toy").get_json()["leaders"]
    assert {row["player"]: row["bot"] for row in leaders} == {"Robo": True, "Ann": False}
    robo_history = client.get("/v1/ratings/toy/players/robo").get_json()
    assert robo_history["bot"] is True and robo_history["history"][0]["against"][0]["bot"] is False
    ann_history = client.get("/v1/ratings/toy/players/ann").get_json()
    assert ann_history["bot"] is False and ann_history["history"][0]["against"][0]["bot"] is True
    seats = client.get(f"/v1/games/{game}/ratings").get_json()["seats"]
    assert [seat["bot"] for seat in seats] == [True, False]


def _online(client) -> list[str]:
    answer = client.get("/v1/bots/online")
    assert answer.status_code == 200, answer.get_json()
    return [row["handle"] for row in answer.get_json()["bots"]]


def test_bot_accounts_with_an_open_stream_are_listed_online(client):
    robo, ann = session(client, "Robo"), session(client, "Ann")
    assert _upgrade(client, robo).status_code == 200
    assert _online(client) == []
    person = client.get("/v1/me/stream", headers=bearer(ann), buffered=False)
    bot = client.get("/v1/me/stream", headers=bearer(robo), buffered=False)
    assert next(messages(bot))[0] == "open_games" and next(messages(person))[0] == "open_games"
    assert _online(client) == ["Robo"]  # a person's stream lists nobody
    bot.close()
    started = time.monotonic()
    while _online(client):  # the stream's end takes the bot offline (no sleep orders it)
        assert time.monotonic() - started < DEADLINE_SECONDS
    person.close()
