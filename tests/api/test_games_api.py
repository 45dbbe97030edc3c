"""Core routes of the game API against a real (private) Redis, with the toy game."""

from __future__ import annotations

from tests.api.conftest import Table

PROBLEM = "application/problem+json"


def test_health_is_ok_without_touching_redis(client):
    response = client.get("/v1/health")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}
    deep = client.get("/v1/health?deep=true")
    assert deep.get_json() == {"status": "ok", "redis": "ok"}


def test_create_answers_201_with_location_and_hides_the_seed(client):
    response = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 2, "seed": 99}})
    assert response.status_code == 201
    body = response.get_json()
    assert response.headers["Location"] == f"/v1/games/{body['id']}"
    assert body["status"] == "open" and body["version"] == 0 and body["seat_count"] == 2
    assert "seed" not in body["config"] and body["config"]["hand_size"] == 2
    assert client.get(response.headers["Location"]).get_json() == body


def test_claiming_every_seat_starts_the_game(client):
    game_id = client.post("/v1/games", json={"game": "toy"}).get_json()["id"]
    first = client.post(f"/v1/games/{game_id}/seats", json={"name": "Ann"})
    assert first.status_code == 201
    assert first.headers["Cache-Control"] == "no-store"
    assert first.get_json()["seat"] == 0 and first.get_json()["started"] is False
    assert len(first.get_json()["token"]) >= 43
    second = client.post(f"/v1/games/{game_id}/seats", json={"name": "Bob", "seat": 1}).get_json()
    assert second["started"] is True and second["version"] == 3
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "active" and summary["version"] == 3
    assert [s["name"] for s in summary["seats"]] == ["Ann", "Bob"]
    full = client.post(f"/v1/games/{game_id}/seats", json={"name": "Cy"})
    assert full.status_code == 409 and full.get_json()["code"] == "GAME_FULL"


def test_claim_a_taken_or_missing_seat(client):
    game_id = client.post("/v1/games", json={"game": "toy"}).get_json()["id"]
    assert client.post(f"/v1/games/{game_id}/seats", json={"name": "Ann", "seat": 1}).status_code == 201
    taken = client.post(f"/v1/games/{game_id}/seats", json={"name": "Bob", "seat": 1})
    assert taken.status_code == 409 and taken.get_json()["code"] == "SEAT_TAKEN"
    missing = client.post(f"/v1/games/{game_id}/seats", json={"name": "Bob", "seat": 5})
    assert missing.status_code == 422 and missing.get_json()["code"] == "NO_SUCH_SEAT"


def test_bot_seats_at_creation_and_by_claim(client):
    body = client.post("/v1/games", json={"game": "toy", "bots": {"1": "random"}}).get_json()
    assert body["seats"][1] == {
        "seat": 1,
        "claimed": True,
        "name": "random bot",
        "kind": "bot",
        "bot": "random",
    }
    claim = client.post(f"/v1/games/{body['id']}/seats", json={"bot": "random"}).get_json()
    assert claim["kind"] == "bot" and claim["token"] is None and claim["started"] is True
    # Levels come from the bots registry, per game: the toy game has no heuristic bot.
    bad = client.post("/v1/games", json={"game": "toy", "bots": {"1": "heuristic"}})
    assert bad.status_code == 422 and bad.get_json()["code"] == "UNKNOWN_BOT_LEVEL"
    assert bad.get_json()["levels"] == ["random"]
    heuristic = client.post(
        "/v1/games", json={"game": "condottiere", "config": {"players": 3}, "bots": {"2": "heuristic"}}
    )
    assert heuristic.status_code == 201 and heuristic.get_json()["seats"][2]["bot"] == "heuristic"
    bad_seat = client.post("/v1/games", json={"game": "toy", "bots": {"7": "random"}})
    assert bad_seat.status_code == 422 and bad_seat.get_json()["code"] == "NO_SUCH_SEAT"


def test_seat_view_has_hand_and_legal_moves_spectator_has_neither(table):
    seat = table.view(0)
    assert seat["seat"] == 0 and seat["status"] == "active"
    assert len(seat["view"]["hand"]) == 3 and seat["view"]["legal_moves"]
    spectator = table.view()
    assert (
        spectator["seat"] is None
        and "hand" not in spectator["view"]
        and "legal_moves" not in spectator["view"]
    )


def test_view_etag_and_304(table):
    client = table.client
    first = client.get(f"/v1/games/{table.id}/view", headers=table.auth(0))
    assert first.headers["Cache-Control"] == "no-store" and first.headers["Vary"] == "Authorization"
    etag = first.headers["ETag"]
    again = client.get(f"/v1/games/{table.id}/view", headers={**table.auth(0), "If-None-Match": etag})
    assert again.status_code == 304 and again.headers["ETag"] == etag and again.data == b""
    other_seat = client.get(f"/v1/games/{table.id}/view", headers={**table.auth(1), "If-None-Match": etag})
    assert other_seat.status_code == 200
    card = table.view(0)["view"]["hand"][0]
    assert table.move(0, {"type": "play", "card": card}).status_code == 200
    changed = client.get(f"/v1/games/{table.id}/view", headers={**table.auth(0), "If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    spectator = client.get(f"/v1/games/{table.id}/view")
    assert spectator.headers["Cache-Control"] == "no-cache"


def test_move_answers_version_events_and_new_view(table):
    card = table.view(0)["view"]["hand"][0]
    response = table.move(0, {"type": "play", "card": card})
    assert response.status_code == 200
    body = response.get_json()
    assert body["version"] == 4
    assert body["events"] == [
        {"version": 4, "event": {"type": "card_played", "v": 1, "seat": 0, "card": card}}
    ]
    assert body["view"]["version"] == 4 and card not in body["view"]["view"]["hand"]
    assert response.headers["ETag"] == '"4.s0"'
    assert table.view(1)["view"]["turn"] == 1


def test_rule_refusal_is_422_with_the_engine_code_and_rule(table):
    response = table.move(1, {"type": "pass"})
    assert response.status_code == 422 and response.mimetype == PROBLEM
    body = response.get_json()
    assert body["code"] == "NOT_YOUR_TURN" and body["rule"] == "TOY-2" and body["status"] == 422
    assert body["type"].endswith("NOT_YOUR_TURN")


def test_expected_version_conflict_is_409_with_current_version(table):
    stale = table.move(0, {"type": "pass"}, expected_version=2)
    assert stale.status_code == 409
    assert stale.get_json()["code"] == "VERSION_CONFLICT" and stale.get_json()["current_version"] == 3
    assert table.move(0, {"type": "pass"}, expected_version=3).status_code == 200


def test_if_match_stale_is_412_and_current_applies(table):
    stale = table.move(0, {"type": "pass"}, headers={"If-Match": '"2.s0"'})
    assert stale.status_code == 412
    assert stale.get_json()["code"] == "VERSION_CONFLICT" and stale.get_json()["current_version"] == 3
    etag = table.client.get(f"/v1/games/{table.id}/view", headers=table.auth(0)).headers["ETag"]
    assert table.move(0, {"type": "pass"}, headers={"If-Match": etag}).status_code == 200
    bad = table.move(1, {"type": "pass"}, headers={"If-Match": "yesterday"})
    assert bad.status_code == 422 and bad.get_json()["code"] == "VALIDATION_ERROR"


def test_idempotent_retry_returns_the_first_answer(table, redis_client):
    card = table.view(0)["view"]["hand"][0]
    first = table.move(0, {"type": "play", "card": card}, headers={"Idempotency-Key": "k-1"})
    assert first.status_code == 200 and "Idempotent-Replayed" not in first.headers
    retry = table.move(0, {"type": "play", "card": card}, headers={"Idempotency-Key": "k-1"})
    assert retry.status_code == 200 and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.get_json() == first.get_json()
    assert table.client.get(f"/v1/games/{table.id}").get_json()["version"] == 4
    reused = table.move(0, {"type": "pass"}, headers={"Idempotency-Key": "k-1"})
    assert reused.status_code == 422 and reused.get_json()["code"] == "IDEMPOTENCY_KEY_REUSED"


def test_idempotency_keys_are_per_seat(table):
    card = table.view(0)["view"]["hand"][0]
    assert (
        table.move(0, {"type": "play", "card": card}, headers={"Idempotency-Key": "same"}).status_code == 200
    )
    other = table.move(1, {"type": "pass"}, headers={"Idempotency-Key": "same"})
    assert other.status_code == 200 and "Idempotent-Replayed" not in other.headers


def test_events_page_is_redacted_for_the_viewer_and_paged(table):
    client = table.client
    hand0 = table.view(0)["view"]["hand"]
    response = client.get(f"/v1/games/{table.id}/events", headers=table.auth(1))
    assert response.headers["Cache-Control"] == "no-store" and response.headers["Vary"] == "Authorization"
    as_bob = response.get_json()
    assert as_bob["seat"] == 1
    assert [e["version"] for e in as_bob["events"]] == [1, 2, 3]
    assert as_bob["events"][1]["event"]["cards"] is None and as_bob["events"][1]["event"]["count"] == 3
    as_ann = client.get(f"/v1/games/{table.id}/events", headers=table.auth(0)).get_json()
    assert as_ann["events"][1]["event"]["cards"] == hand0
    spectator = client.get(f"/v1/games/{table.id}/events?after=1&limit=1").get_json()
    assert [e["version"] for e in spectator["events"]] == [2]
    assert spectator["has_more"] is True and spectator["next_after"] == 2
    assert spectator["events"][0]["event"]["cards"] is None


def test_finished_game_log_is_public(client):
    table = Table(client, hand_size=1)
    assert table.move(0, {"type": "play", "card": table.view(0)["view"]["hand"][0]}).status_code == 200
    final = table.move(1, {"type": "play", "card": table.view(1)["view"]["hand"][0]})
    assert final.status_code == 200 and final.get_json()["view"]["status"] == "finished"
    log = client.get(f"/v1/games/{table.id}/events").get_json()
    assert log["status"] == "finished" and all(
        e["event"].get("cards") is not None for e in log["events"] if e["event"]["type"] == "cards_dealt"
    )
    summary = client.get(f"/v1/games/{table.id}").get_json()
    assert summary["status"] == "finished" and summary["result"]["winners"]
    over = table.move(0, {"type": "pass"})
    assert over.status_code == 422 and over.get_json()["code"] == "GAME_OVER"


def test_list_games_newest_first_with_cursor_and_filters(client):
    ids = [client.post("/v1/games", json={"game": "toy"}).get_json()["id"] for _ in range(5)]
    started = Table(client)
    page = client.get("/v1/games?limit=4").get_json()
    assert [g["id"] for g in page["games"]] == [started.id, *reversed(ids)][:4]
    rest = client.get(f"/v1/games?limit=4&cursor={page['next_cursor']}").get_json()
    assert [g["id"] for g in rest["games"]] == list(reversed(ids))[3:]
    assert rest["next_cursor"] is None
    active = client.get("/v1/games?status=active").get_json()
    assert [g["id"] for g in active["games"]] == [started.id]
    opened = client.get("/v1/games?status=open&game=toy").get_json()
    assert len(opened["games"]) == 5
    assert client.get("/v1/games?game=condottiere").get_json()["games"] == []
    bad = client.get("/v1/games?status=paused")
    assert bad.status_code == 422 and bad.get_json()["code"] == "VALIDATION_ERROR"


def test_moves_before_the_game_starts(client):
    game_id = client.post("/v1/games", json={"game": "toy"}).get_json()["id"]
    token = client.post(f"/v1/games/{game_id}/seats", json={"name": "Ann"}).get_json()["token"]
    response = client.post(
        f"/v1/games/{game_id}/moves",
        json={"command": {"type": "pass"}},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 409 and response.get_json()["code"] == "GAME_NOT_STARTED"
    view = client.get(f"/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"}).get_json()
    assert view["status"] == "open" and view["view"] is None and view["seat"] == 0


def test_pinned_retry_with_idempotency_key_is_replayed_not_a_conflict(table):
    card = table.view(0)["view"]["hand"][0]
    first = table.move(
        0, {"type": "play", "card": card}, expected_version=3, headers={"Idempotency-Key": "pin"}
    )
    assert first.status_code == 200
    table.client.get(f"/v1/games/{table.id}/view")  # the cache is current (version 4)
    retry = table.move(
        0, {"type": "play", "card": card}, expected_version=3, headers={"Idempotency-Key": "pin"}
    )
    assert retry.status_code == 200 and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.get_json() == first.get_json()
    via_if_match = table.move(
        0, {"type": "play", "card": card}, headers={"Idempotency-Key": "pin", "If-Match": '"3"'}
    )
    assert via_if_match.status_code == 200 and via_if_match.get_json() == first.get_json()


def test_a_refused_move_is_decided_again_on_retry(table):
    """Only applied moves are remembered under their key: a refused one wrote nothing."""
    refused = table.move(1, {"type": "pass"}, headers={"Idempotency-Key": "early"})
    assert refused.status_code == 422 and refused.get_json()["code"] == "NOT_YOUR_TURN"
    assert table.move(0, {"type": "pass"}).status_code == 200
    retried = table.move(1, {"type": "pass"}, headers={"Idempotency-Key": "early"})
    assert retried.status_code == 200 and "Idempotent-Replayed" not in retried.headers


def test_summary_and_list_show_whose_turn_it_is(table):
    summary = table.client.get(f"/v1/games/{table.id}").get_json()
    assert summary["awaiting"] == [0] and summary["started"] and summary["finished"] is None
    table.move(0, {"type": "pass"})
    listed = table.client.get("/v1/games").get_json()["games"][0]
    assert listed["id"] == table.id and listed["awaiting"] == [1] and listed["version"] == 4


def test_a_finished_games_summary_shows_the_seed_the_log_reveals(client):
    """Issue 35: the seed the server drew stays out of the summary and the listing while the game
    runs (it decides every hidden card) and is in both once the game is finished, the value its log
    (now public) records in ``game_started``."""
    created = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}})
    game_id = created.get_json()["id"]
    assert "seed" not in created.get_json()["config"]
    table = Table.__new__(Table)
    table.client, table.id, table.tokens = client, game_id, []
    for name in ("Ann", "Bob"):
        table.tokens.append(
            client.post(f"/v1/games/{game_id}/seats", json={"name": name}).get_json()["token"]
        )

    def listed() -> dict:
        games = client.get("/v1/games?game=toy&limit=100").get_json()["games"]
        return next(g for g in games if g["id"] == game_id)

    running = client.get(f"/v1/games/{game_id}").get_json()
    assert running["status"] == "active" and "seed" not in running["config"]
    assert "seed" not in listed()["config"] and "hidden_config" not in str(running)
    for seat in (0, 1):
        card = table.view(seat)["view"]["hand"][0]
        assert table.move(seat, {"type": "play", "card": card}).status_code == 200
    finished = client.get(f"/v1/games/{game_id}").get_json()
    log = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    assert finished["status"] == "finished"
    seed = log[0]["event"]["config"]["seed"]
    assert finished["config"] == {**running["config"], "seed": seed}
    assert listed()["config"]["seed"] == seed
