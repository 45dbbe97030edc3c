"""Every error is an RFC 9457 problem+json with a stable code; refused requests change nothing."""

from __future__ import annotations

import pytest

from tests.api.conftest import redis_dump

PROBLEM = "application/problem+json"


def assert_problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.data
    assert response.mimetype == PROBLEM
    body = response.get_json()
    assert body["status"] == status and body["code"] == code
    assert body["type"] and body["title"]
    return body


def test_malformed_json_is_400(client):
    response = client.post("/v1/games", data=b'{"game": "toy",', content_type="application/json")
    assert_problem(response, 400, "MALFORMED_JSON")


@pytest.mark.parametrize("raw", [b'{"game": NaN}', b'{"game": "\\ud800"}', b"[" * 2000 + b"]" * 2000])
def test_json_our_storage_cannot_hold_is_malformed(client, raw):
    assert_problem(client.post("/v1/games", data=raw, content_type="application/json"), 400, "MALFORMED_JSON")


def test_wrong_content_type_is_415(client):
    response = client.post("/v1/games", data="game=toy", content_type="application/x-www-form-urlencoded")
    assert_problem(response, 415, "UNSUPPORTED_MEDIA_TYPE")
    assert_problem(client.post("/v1/games", data='{"game": "toy"}'), 415, "UNSUPPORTED_MEDIA_TYPE")


def test_oversized_body_is_413_problem(client):
    response = client.post("/v1/games", json={"game": "toy", "config": {"pad": "x" * 70_000}})
    body = assert_problem(response, 413, "PAYLOAD_TOO_LARGE")
    assert "65536" in body["detail"]


def test_unknown_fields_and_wrong_types_are_422_with_field_errors(client):
    body = assert_problem(
        client.post("/v1/games", json={"game": "toy", "colour": "red"}), 422, "VALIDATION_ERROR"
    )
    assert "colour" in body["errors"]["json"]
    body = assert_problem(client.post("/v1/games", json={"game": 12}), 422, "VALIDATION_ERROR")
    assert "game" in body["errors"]["json"]
    assert_problem(client.post("/v1/games", json=[1, 2]), 422, "VALIDATION_ERROR")
    assert_problem(client.post("/v1/games", json={}), 422, "VALIDATION_ERROR")


def test_engine_config_errors_pass_through(client):
    body = assert_problem(
        client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 0}}), 422, "INVALID_HAND_SIZE"
    )
    assert body["rule"] == "TOY-1"
    assert_problem(client.post("/v1/games", json={"game": "chess"}), 422, "UNKNOWN_GAME")


def test_claim_needs_a_name_or_bot(client):
    game_id = client.post("/v1/games", json={"game": "toy"}).get_json()["id"]
    assert_problem(client.post(f"/v1/games/{game_id}/seats", json={}), 422, "NAME_REQUIRED")
    assert_problem(client.post(f"/v1/games/{game_id}/seats", json={"name": "\x00"}), 422, "VALIDATION_ERROR")
    assert_problem(
        client.post(f"/v1/games/{game_id}/seats", json={"name": "x" * 41}), 422, "VALIDATION_ERROR"
    )
    assert_problem(
        client.post(f"/v1/games/{game_id}/seats", json={"bot": "godlike"}), 422, "UNKNOWN_BOT_LEVEL"
    )


@pytest.mark.parametrize("game_id", ["01m8kknrfm9aaaaaaaaa", "nope", "UPPERCASE00000000000", "x" * 300])
def test_unknown_game_is_404_everywhere(client, game_id):
    for method, path, kwargs in [
        ("get", "", {}),
        ("get", "/view", {}),
        ("get", "/events", {}),
        ("get", "/stream", {}),
        ("post", "/seats", {"json": {"name": "Ann"}}),
        (
            "post",
            "/moves",
            {"json": {"command": {"type": "pass"}}, "headers": {"Authorization": "Bearer abc"}},
        ),
    ]:
        response = getattr(client, method)(f"/v1/games/{game_id}{path}", **kwargs)
        assert_problem(response, 404, "GAME_NOT_FOUND")


def test_unknown_route_and_method(client):
    assert_problem(client.get("/v1/nothing-here"), 404, "NOT_FOUND")
    response = client.delete("/v1/games")
    assert_problem(response, 405, "METHOD_NOT_ALLOWED")
    assert "POST" in response.headers["Allow"]


def test_missing_or_bad_token_is_401_with_www_authenticate(table):
    client = table.client
    for headers in [
        {},
        {"Authorization": "Bearer not-a-token"},
        {"Authorization": "Basic abc"},
        {"Authorization": "Bearer "},
    ]:
        response = client.post(
            f"/v1/games/{table.id}/moves", json={"command": {"type": "pass"}}, headers=headers
        )
        assert_problem(response, 401, "INVALID_TOKEN")
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    for path in ("/view", "/events", "/stream"):
        response = client.get(f"/v1/games/{table.id}{path}", headers={"Authorization": "Bearer wrong"})
        assert_problem(response, 401, "INVALID_TOKEN")


def test_bad_query_parameters_are_422(table):
    client = table.client
    assert_problem(client.get(f"/v1/games/{table.id}/events?limit=501"), 422, "VALIDATION_ERROR")
    assert_problem(client.get(f"/v1/games/{table.id}/events?after=-1"), 422, "VALIDATION_ERROR")
    assert_problem(client.get(f"/v1/games/{table.id}/events?after=abc"), 422, "VALIDATION_ERROR")
    assert_problem(client.get("/v1/games?cursor=zz"), 422, "VALIDATION_ERROR")
    assert_problem(
        client.get(f"/v1/games/{table.id}/stream", headers={"Last-Event-ID": "x"}), 422, "VALIDATION_ERROR"
    )


def test_bad_idempotency_key_is_422(table):
    response = table.move(0, {"type": "pass"}, headers={"Idempotency-Key": "a" * 256})
    assert_problem(response, 422, "VALIDATION_ERROR")


def test_unexpected_exception_is_a_500_problem_and_logged(app, client, caplog, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("boom with a secret detail")

    monkeypatch.setattr(app.extensions["game_service"], "get_summary", explode)
    response = client.get("/v1/games/01m8kknrfm9aaaaaaaaa")
    assert_problem(response, 500, "INTERNAL_ERROR")
    assert "boom" not in response.get_data(as_text=True)
    assert "boom with a secret detail" in caplog.text


def test_refused_requests_change_nothing_in_redis(table, redis_client):
    client = table.client
    card = client.get(f"/v1/games/{table.id}/view", headers=table.auth(0)).get_json()["view"]["hand"][0]
    assert (
        table.move(0, {"type": "play", "card": card}, headers={"Idempotency-Key": "first"}).status_code == 200
    )
    before = redis_dump(redis_client)
    refused = [
        table.move(0, {"type": "pass"}),  # not your turn
        table.move(1, {"type": "play", "card": "c999"}),  # not in hand
        table.move(1, {"type": "fly"}),  # unknown command
        table.move(1, {"type": "pass"}, expected_version=1),  # stale
        table.move(1, {"type": "pass"}, headers={"If-Match": '"1"'}),  # stale If-Match
        table.move(0, {"type": "pass"}, headers={"Idempotency-Key": "first"}),  # key reused
        client.post(
            f"/v1/games/{table.id}/moves",
            json={"command": {"type": "pass"}},
            headers={"Authorization": "Bearer x"},
        ),
        client.post(
            f"/v1/games/{table.id}/moves",
            json={"command": {"type": "pass"}, "extra": 1},
            headers=table.auth(1),
        ),
        client.post(
            f"/v1/games/{table.id}/moves", data=b"{", content_type="application/json", headers=table.auth(1)
        ),
        client.post(f"/v1/games/{table.id}/seats", json={"name": "Late"}),
        client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 99}}),
        client.post("/v1/games", json={"game": "toy", "bots": {"0": "random", "5": "random"}}),
    ]
    assert all(400 <= r.status_code < 500 for r in refused), [r.status_code for r in refused]
    assert redis_dump(redis_client) == before


def test_versions_beyond_any_log_are_422_not_500(table):
    """Regression (schemathesis): 2**64 as a version used to reach Redis as a stream ID."""
    huge = 2**64
    assert_problem(table.client.get(f"/v1/games/{table.id}/events?after={huge}"), 422, "VALIDATION_ERROR")
    assert_problem(table.client.get(f"/v1/games/{table.id}/stream?after={huge}"), 422, "VALIDATION_ERROR")
    assert_problem(table.move(0, {"type": "pass"}, expected_version=huge), 422, "VALIDATION_ERROR")
    assert_problem(
        table.move(0, {"type": "pass"}, headers={"If-Match": f'"{huge}"'}), 422, "VALIDATION_ERROR"
    )
    last = table.client.get(f"/v1/games/{table.id}/events?after={2**53 - 1}")
    assert last.status_code == 200 and last.get_json()["events"] == []


def test_endless_contention_is_a_503_with_retry_after(table, svc, redis_server, monkeypatch):
    """Real contention: another process (a second GameService on the same Redis) commits a write
    to the game (a seat token rotation) just before each of this move's appends, so every attempt
    meets a version conflict and decides again on the newer state. After MAX_DECIDE_ATTEMPTS lost
    races the move is refused with 503 CONTENTION and Retry-After, and none of it is stored."""
    import service.composition

    rival = service.composition.game_service_at(redis_server.url)
    bob = {"token": table.tokens[1]}
    tried_at: list[int] = []
    real_append = svc.store.append

    def append_after_a_rival_write(game_id, **kwargs):
        tried_at.append(kwargs["expected_version"])
        bob["token"] = rival.rotate_token(game_id, bob["token"])["token"]
        return real_append(game_id, **kwargs)

    monkeypatch.setattr(svc.store, "append", append_after_a_rival_write)
    start = table.view(0)["version"]
    try:
        response = table.move(0, {"type": "pass"})
    finally:
        rival.live.close()
        rival.store.redis.close()
    assert_problem(response, 503, "CONTENTION")
    assert response.headers["Retry-After"] == "1"
    attempts = service.games.MAX_DECIDE_ATTEMPTS
    # each attempt decided again on the state the conflict returned: one version further each time
    assert tried_at == list(range(start, start + attempts))
    log = table.client.get(f"/v1/games/{table.id}/events?after={start}").get_json()["events"]
    assert [entry["event"]["type"] for entry in log] == ["seat_token_rotated"] * attempts
