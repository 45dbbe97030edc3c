"""The app factory, configuration, the store being down, and the events_appended signal."""

from __future__ import annotations

import pytest

from api import create_app
from service.signals import events_appended
from tests.api.conftest import Table


def test_create_app_requires_a_redis_url(monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    with pytest.raises(RuntimeError, match="REDIS_URL"):
        create_app()


def test_settings_come_from_the_environment(monkeypatch, redis_server):
    monkeypatch.setenv("REDIS_URL", redis_server.url)
    monkeypatch.setenv("MAX_CONTENT_LENGTH", "1024")
    monkeypatch.setenv("SSE_HEARTBEAT_SECONDS", "2.5")
    app = create_app()
    assert app.config["MAX_CONTENT_LENGTH"] == 1024 and app.config["SSE_HEARTBEAT_SECONDS"] == 2.5
    response = app.test_client().post("/v1/games", json={"game": "toy", "config": {"pad": "x" * 2000}})
    assert response.status_code == 413
    assert create_app({"MAX_CONTENT_LENGTH": 10}).config["MAX_CONTENT_LENGTH"] == 10  # config wins


def test_store_down_is_a_503_problem_not_a_500():
    """Every 503, the deep health check's included, carries Retry-After (issue 9)."""
    app = create_app({"REDIS_URL": "redis://127.0.0.1:1/0"})
    client = app.test_client()
    assert client.get("/v1/health").status_code == 200  # liveness does not depend on Redis
    deep = client.get("/v1/health?deep=1")
    assert deep.status_code == 503 and deep.get_json()["code"] == "REDIS_UNAVAILABLE"
    assert deep.headers["Retry-After"] == "1"
    response = client.get("/v1/games")
    assert response.status_code == 503 and response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "STORE_UNAVAILABLE" and response.headers["Retry-After"] == "1"


def test_events_appended_is_sent_after_each_accepted_append(client, svc):
    received = []

    def receiver(sender, **kwargs):
        received.append((sender, kwargs))

    events_appended.connect(receiver)
    try:
        table = Table(client, hand_size=1)
        assert [k["version"] for _, k in received] == [3]  # the genesis, appended by the last claim
        sender, start = received[0]
        assert sender is svc and start["game_id"] == table.id and start["game"] == "toy"
        assert [e["type"] for e in start["events"]] == ["game_started", "cards_dealt", "cards_dealt"]
        assert start["awaiting"] == [0] and start["finished"] is False
        assert start["seat_kinds"] == {0: "human", 1: "human"} and start["bots"] == {}
        table.move(1, {"type": "pass"})  # refused: no signal
        assert len(received) == 1
        table.move(0, {"type": "play", "card": table.view(0)["view"]["hand"][0]})
        table.move(1, {"type": "play", "card": table.view(1)["view"]["hand"][0]})
        assert [k["version"] for _, k in received] == [3, 4, 5]
        assert received[-1][1]["finished"] is True and received[-1][1]["awaiting"] == []
        assert received[-1][1]["state"]["played"][1]
    finally:
        events_appended.disconnect(receiver)


def test_a_failing_receiver_does_not_fail_the_move(client, caplog):
    def broken(sender, **kwargs):
        raise RuntimeError("receiver bug")

    table = Table(client)
    events_appended.connect(broken)
    try:
        response = table.move(0, {"type": "pass"})
    finally:
        events_appended.disconnect(broken)
    assert response.status_code == 200 and response.get_json()["version"] == 4
    assert "receiver bug" in caplog.text


def test_bot_seats_are_reported_to_receivers(client):
    received = []

    def receiver(sender, **kwargs):
        received.append(kwargs)

    events_appended.connect(receiver)
    try:
        game = client.post("/v1/games", json={"game": "toy", "bots": {"0": "random"}}).get_json()
        client.post(f"/v1/games/{game['id']}/seats", json={"name": "Ann"})
    finally:
        events_appended.disconnect(receiver)
    assert received[0]["seat_kinds"] == {0: "bot", 1: "human"} and received[0]["bots"] == {0: "random"}
    assert received[0]["awaiting"] == [0]
