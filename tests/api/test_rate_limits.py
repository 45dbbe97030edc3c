"""Rate limits (issue 14): per client, counted in Redis, refused with 429 problem+json and
Retry-After, served again after the wait. Windows are short (1-2 s) so the tests stay fast."""

from __future__ import annotations

import time

import pytest

from api import create_app
from tests.api.conftest import Table, redis_dump

PROBLEM = "application/problem+json"


def _app(redis_server, **limits):
    settings = {"REDIS_URL": redis_server.url, "TESTING": True, "RATE_LIMITS_ENABLED": True, **limits}
    return create_app(settings)


@pytest.fixture()
def apps(redis_client, redis_server):
    made = []

    def make(**limits):
        app = _app(redis_server, **limits)
        made.append(app)
        return app

    yield make
    for app in made:
        app.extensions["game_service"].store.redis.close()
        app.extensions["game_service"].live.close()


def _game_keys(redis_client) -> dict:
    return {k: v for k, v in redis_dump(redis_client).items() if not k.startswith(b"LIMITS:")}


def test_a_creation_burst_is_refused_with_retry_after_and_served_after_the_wait(apps, redis_client):
    client = apps(RATE_LIMIT_CREATE="3/2second").test_client()
    for _ in range(3):
        assert client.post("/v1/games", json={"game": "toy"}).status_code == 201
    before = _game_keys(redis_client)
    refused = client.post("/v1/games", json={"game": "toy"})
    assert refused.status_code == 429
    assert refused.mimetype == PROBLEM
    body = refused.get_json()
    assert body["code"] == "TOO_MANY_REQUESTS" and body["status"] == 429
    wait = int(refused.headers["Retry-After"])
    # Redis keeps the window's expiry in whole seconds, and the answer errs on the late side.
    assert 1 <= wait <= 3 and body["retry_after"] == wait
    assert _game_keys(redis_client) == before  # a refused request changes nothing
    time.sleep(wait)
    assert client.post("/v1/games", json={"game": "toy"}).status_code == 201


def test_limits_are_shared_by_every_web_process(apps):
    """Two apps (two web processes) on one Redis count against one budget."""
    first = apps(RATE_LIMIT_CREATE="4/2second").test_client()
    second = apps(RATE_LIMIT_CREATE="4/2second").test_client()
    statuses = [c.post("/v1/games", json={"game": "toy"}).status_code for c in (first, second) * 2]
    assert statuses == [201] * 4
    assert second.post("/v1/games", json={"game": "toy"}).status_code == 429
    assert first.post("/v1/games", json={"game": "toy"}).status_code == 429


def test_moves_are_counted_per_seat_token(apps):
    """Both seats play from one address: the seat that bursts is refused, the other is served."""
    client = apps(RATE_LIMIT_MOVE="2/2second").test_client()
    table = Table(client)
    # Refused commands count too (a client hammering with bad moves is still hammering).
    assert table.move(1, {"type": "pass"}).status_code == 422
    assert table.move(1, {"type": "pass"}).status_code == 422
    refused = table.move(1, {"type": "pass"})
    assert refused.status_code == 429 and "Retry-After" in refused.headers
    assert table.move(0, {"type": "pass"}).status_code != 429


def test_seat_claims_are_limited_per_address(apps):
    client = apps(RATE_LIMIT_CLAIM="2/2second").test_client()
    game_id = client.post("/v1/games", json={"game": "toy"}).get_json()["id"]
    assert client.post(f"/v1/games/{game_id}/seats", json={"name": "Ann"}).status_code == 201
    assert client.post(f"/v1/games/{game_id}/seats", json={"name": "Bob"}).status_code == 201
    again = client.post(f"/v1/games/{game_id}/seats", json={"name": "Cy"})
    assert again.status_code == 429 and again.get_json()["code"] == "TOO_MANY_REQUESTS"


def test_job_starts_are_limited_per_address_whatever_token_is_sent(apps):
    """Bulk exports never check a token, so made-up tokens must not buy a fresh budget."""
    client = apps(RATE_LIMIT_JOB="2/2second").test_client()
    statuses = [
        client.post("/v1/exports/bulk", json={}, headers={"Authorization": f"Bearer made-up-{i}"}).status_code
        for i in range(3)
    ]
    assert statuses == [202, 202, 429]


def test_requests_refused_before_a_job_starts_are_not_counted(apps):
    client = apps(RATE_LIMIT_JOB="1/2second").test_client()
    open_game = client.post("/v1/games", json={"game": "toy"}).get_json()["id"]
    for _ in range(3):  # 409: an open game is not verified, no job started
        assert client.post(f"/v1/games/{open_game}/verify").status_code == 409
    assert client.post("/v1/exports/bulk", json={}).status_code == 202
    assert client.post("/v1/exports/bulk", json={}).status_code == 429


def test_limits_can_be_switched_off(apps):
    client = apps(RATE_LIMIT_CREATE="1/minute", RATE_LIMITS_ENABLED=False).test_client()
    assert [client.post("/v1/games", json={"game": "toy"}).status_code for _ in range(3)] == [201] * 3


def test_behind_trusted_proxies_each_forwarded_address_has_its_own_budget(apps):
    """TRUSTED_PROXIES=1: the address is the one the proxy saw (X-Forwarded-For), not the proxy's."""
    client = apps(RATE_LIMIT_CREATE="1/2second", TRUSTED_PROXIES=1).test_client()

    def create(address: str) -> int:
        headers = {"X-Forwarded-For": address}
        return client.post("/v1/games", json={"game": "toy"}, headers=headers).status_code

    assert [create("203.0.113.1"), create("203.0.113.2"), create("203.0.113.1")] == [201, 201, 429]


def test_without_trusted_proxies_a_forwarded_address_is_ignored(apps):
    client = apps(RATE_LIMIT_CREATE="1/2second").test_client()
    statuses = [
        client.post(
            "/v1/games", json={"game": "toy"}, headers={"X-Forwarded-For": f"203.0.113.{i}"}
        ).status_code
        for i in range(2)
    ]
    assert statuses == [201, 429]  # a client cannot pick its own address


def test_stream_tickets_are_limited_per_seat_token(apps):
    """Each ticket is a Redis key: a seat asking in a loop is refused; the other seat is served."""
    client = apps(RATE_LIMIT_SEAT_ACTION="2/2second").test_client()
    table = Table(client)
    url = f"/v1/games/{table.id}/stream-tickets"
    assert [client.post(url, headers=table.auth(0)).status_code for _ in range(2)] == [201, 201]
    refused = client.post(url, headers=table.auth(0))
    assert refused.status_code == 429 and "Retry-After" in refused.headers
    assert client.post(url, headers=table.auth(1)).status_code == 201


def _made_up_token(i: int) -> dict[str, str]:
    return {"Authorization": f"Bearer made-up-token-{i:04d}-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}


@pytest.mark.parametrize("fast_path", [True, False], ids=["hot-path", "flask"])
def test_a_made_up_token_per_move_is_counted_against_the_address(apps, fast_path):
    """Issue 35: one address sending moves, each with a new made-up token, is limited like one
    sending them with one token (RATE_LIMIT_MOVE per address for a token that is no seat's), on
    the hot path (api/edge/move_path.py) as through Flask; a real seat's own budget is untouched."""
    client = apps(
        RATE_LIMIT_MOVE="3/hour", RATE_LIMIT_TOKEN_FAILURE="1000/hour", MOVE_FAST_PATH=fast_path
    ).test_client()
    table = Table(client)
    table.view(0)  # the process knows the game (and its seats' tokens)
    url = f"/v1/games/{table.id}/moves"
    move = {"command": {"type": "pass"}}
    statuses = [client.post(url, json=move, headers=_made_up_token(i)).status_code for i in range(4)]
    assert statuses == [401, 401, 401, 429]
    assert [table.move(0, {"type": "pass"}).status_code for _ in range(3)] == [200, 422, 422]
    assert table.move(0, {"type": "pass"}).status_code == 429  # its own budget, as before


def test_rotations_count_against_the_seat_not_the_token(apps):
    """Issue 36: every rotation hands out a new token, which used to bring a fresh budget (150
    rotations in 2.3 s were accepted, each a new event in the log). Counted per seat, the limit
    holds across the rotations, and the other seat keeps its own."""
    client = apps(RATE_LIMIT_SEAT_ACTION="3/hour").test_client()
    table = Table(client)
    for _ in range(3):
        rotated = client.post(f"/v1/games/{table.id}/token", headers=table.auth(0))
        assert rotated.status_code == 200
        table.tokens[0] = rotated.get_json()["token"]
    version = table.view(0)["version"]
    refused = client.post(f"/v1/games/{table.id}/token", headers=table.auth(0))
    assert refused.status_code == 429 and "Retry-After" in refused.headers
    assert table.view(0)["version"] == version  # refused: no new event
    assert client.post(f"/v1/games/{table.id}/token", headers=table.auth(1)).status_code == 200


def test_token_and_ticket_guesses_are_limited_per_address(apps):
    """Issue 36: failed token checks (GET /view, a stream, a move) and stream-ticket guesses count
    against the address (RATE_LIMIT_TOKEN_FAILURE); past the limit an unknown credential is refused
    with 429 before it is checked, while a seat's own token still reads its view."""
    client = apps(RATE_LIMIT_TOKEN_FAILURE="4/hour").test_client()
    table = Table(client)
    table.view(0)
    view = f"/v1/games/{table.id}/view"
    guesses = [
        client.get(view, headers=_made_up_token(0)),
        client.get(f"/v1/games/{table.id}/view/stream", headers=_made_up_token(1)),
        client.get(f"/v1/games/{table.id}/stream?ticket=guessed-ticket"),
        client.post(
            f"/v1/games/{table.id}/moves", json={"command": {"type": "pass"}}, headers=_made_up_token(2)
        ),
    ]
    assert [g.status_code for g in guesses] == [401, 401, 401, 401]
    refused = client.get(view, headers=_made_up_token(3))
    assert refused.status_code == 429 and "Retry-After" in refused.headers
    assert client.get(f"/v1/games/{table.id}/view/stream?ticket=another-guess").status_code == 429
    assert client.get(view, headers=table.auth(0)).status_code == 200  # a known token is never held up
    assert client.get(view).status_code == 200  # nor is the spectator
