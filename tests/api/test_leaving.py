"""Token rotation, resign and abort over the API (issue 14): each is an event in the log, a refused
one changes nothing, and the old token of a rotated seat stops working at once in every process."""

from __future__ import annotations

from api import create_app
from games.condottiere import GAME
from store.archive import Archive
from tests.api.conftest import redis_dump

PROBLEM = "application/problem+json"


def _condottiere(client, players: int = 2, seed: int = 42) -> tuple[str, list[str]]:
    game_id = client.post(
        "/v1/games", json={"game": "condottiere", "config": {"players": players, "seed": seed}}
    ).get_json()["id"]
    tokens = [
        client.post(f"/v1/games/{game_id}/seats", json={"name": f"P{i}"}).get_json()["token"]
        for i in range(players)
    ]
    return game_id, tokens


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _log(client, game_id: str) -> list[dict]:
    page = client.get(f"/v1/games/{game_id}/events?limit=500").get_json()
    return [entry["event"] for entry in page["events"]]


def test_token_rotation_gives_a_new_token_and_the_old_one_stops_at_once(client, redis_server):
    game_id, tokens = _condottiere(client)
    # A second web process that has the game (and the old token's hash) in its cache.
    other = create_app({"REDIS_URL": redis_server.url, "TESTING": True}).test_client()
    assert other.get(f"/v1/games/{game_id}/view", headers=_auth(tokens[0])).get_json()["seat"] == 0

    rotated = client.post(f"/v1/games/{game_id}/token", headers=_auth(tokens[0]))
    assert rotated.status_code == 200 and rotated.headers["Cache-Control"] == "no-store"
    body = rotated.get_json()
    new = body["token"]
    assert body["seat"] == 0 and new != tokens[0] and len(new) >= 43

    for web in (client, other):
        old_view = web.get(f"/v1/games/{game_id}/view", headers=_auth(tokens[0]))
        assert old_view.status_code == 401 and old_view.get_json()["code"] == "INVALID_TOKEN"
        old_move = web.post(
            f"/v1/games/{game_id}/moves", headers=_auth(tokens[0]), json={"command": {"type": "pass"}}
        )
        assert old_move.status_code == 401
        assert web.get(f"/v1/games/{game_id}/view", headers=_auth(new)).get_json()["seat"] == 0
    # The log records the rotation (no secret in it), and the log still verifies.
    log = _log(client, game_id)
    assert log[-1] == {"type": "seat_token_rotated", "v": 1, "seat": 0}
    assert body["version"] == len(log)
    assert new not in str(log) and tokens[0] not in str(log)
    # The new token plays: seat 1 (the token holder in this seed) moves, then seat 0 with the new token.
    moved = other.post(
        f"/v1/games/{game_id}/moves",
        headers=_auth(tokens[1]),
        json={"command": {"type": "place_token", "region": "Torino"}},
    )
    assert moved.status_code == 200
    assert other.post(f"/v1/games/{game_id}/token", headers=_auth(tokens[0])).status_code == 401
    assert GAME.verify_log(_full_log(redis_server, game_id)) is None


def _full_log(redis_server, game_id: str) -> list[dict]:
    from store import GameStore
    from store.game_logs import iter_all_events

    store = GameStore(redis_server.client())
    return [entry.event for entry in iter_all_events(store, game_id)]


def test_rotation_with_a_wrong_token_is_refused_and_changes_nothing(client, redis_client):
    game_id, _ = _condottiere(client)
    before = redis_dump(redis_client)
    refused = client.post(f"/v1/games/{game_id}/token", headers=_auth("not-a-seat-token"))
    assert refused.status_code == 401 and refused.mimetype == PROBLEM
    assert redis_dump(redis_client) == before


def test_resign_rl_x17_ends_a_two_player_game_for_the_other_seat(client, redis_server):
    """RL-X17 over the API: the answer is like a move's; the summary shows the result."""
    game_id, tokens = _condottiere(client)
    resigned = client.post(f"/v1/games/{game_id}/resign", headers=_auth(tokens[0]))
    assert resigned.status_code == 200
    body = resigned.get_json()
    assert [e["event"]["type"] for e in body["events"]] == ["seat_resigned", "game_won"]
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "finished"
    assert summary["result"]["winners"] == [1] and summary["result"]["reason"] == "resigned"
    assert Archive(redis_server.client()).record(game_id)  # a resignation is a result
    again = client.post(f"/v1/games/{game_id}/resign", headers=_auth(tokens[1]))
    assert again.status_code == 422 and again.get_json()["code"] == "GAME_OVER"
    assert GAME.verify_log(_full_log(redis_server, game_id)) is None


def test_abort_rl_x18_before_the_first_battle_and_not_after(client, redis_client, redis_server):
    """RL-X18: aborted games end with no winner and are marked not rated; once a battle has ended
    the abort is refused and changes nothing."""
    game_id, tokens = _condottiere(client)
    aborted = client.post(f"/v1/games/{game_id}/abort", headers=_auth(tokens[0]))
    assert aborted.status_code == 200
    assert [e["event"]["type"] for e in aborted.get_json()["events"]] == ["game_aborted"]
    result = client.get(f"/v1/games/{game_id}").get_json()["result"]
    assert result["winners"] == [] and result["reason"] == "aborted" and result["rated"] is False
    assert Archive(redis_client).record(game_id) is None  # not rated: no search or statistic counts it
    assert GAME.verify_log(_full_log(redis_server, game_id)) is None

    game_id, tokens = _condottiere(client)  # seed 42: seat 1 holds the token
    for seat, command in [
        (1, {"type": "place_token", "region": "Torino"}),
        (1, {"type": "pass"}),
        (0, {"type": "pass"}),
    ]:
        moved = client.post(
            f"/v1/games/{game_id}/moves", headers=_auth(tokens[seat]), json={"command": command}
        )
        assert moved.status_code == 200, moved.get_json()
    assert "battle_ended" in [e["type"] for e in _log(client, game_id)]
    before = redis_dump(redis_client)
    late = client.post(f"/v1/games/{game_id}/abort", headers=_auth(tokens[0]))
    assert late.status_code == 422
    assert late.get_json()["code"] == "TOO_LATE_TO_ABORT" and late.get_json()["rule"] == "RL-X18"
    assert redis_dump(redis_client) == before


def test_a_game_without_the_hooks_answers_not_supported(client, table):
    """The toy game has no SeatHooks: resign and abort are 422 NOT_SUPPORTED, nothing changes."""
    for action in ("resign", "abort"):
        refused = client.post(f"/v1/games/{table.id}/{action}", headers=table.auth(0))
        assert refused.status_code == 422 and refused.get_json()["code"] == "NOT_SUPPORTED"


def test_seat_actions_need_a_seat_token(client):
    game_id, _ = _condottiere(client)
    for action in ("token", "resign", "abort"):
        refused = client.post(f"/v1/games/{game_id}/{action}")
        assert refused.status_code == 401 and refused.get_json()["code"] == "INVALID_TOKEN"
