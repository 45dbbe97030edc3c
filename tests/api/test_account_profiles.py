"""Public profiles, the archive's account filter, and account deletion (issue 31)."""

from __future__ import annotations

import pytest

from service.compaction import Compaction
from store import GameStore, parts
from store.game_logs import load_log
from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, personal_token, session, sign_in, sign_up
from tests.api.test_me_stream import one_card_game, play_out


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH)


def played(client, token, games=2):
    """``games`` one-card toy games of Ann (seat 0, the account) against Bob, played to the end."""
    ids = []
    for _ in range(games):
        game, ann, bob = one_card_game(client, token)
        play_out(client, game, ann["token"], bob["token"])
        ids.append(game)
    return ids


def test_a_profile_counts_games_played_and_won_and_lists_recent_games(client):
    token = session(client)
    ids = played(client, token, 3)
    wins = sum(0 in client.get(f"/v1/games/{g}").get_json()["result"]["winners"] for g in ids)
    profile = client.get("/v1/players/ANN")  # handles are found without regard to case
    assert profile.status_code == 200
    body = profile.get_json()
    assert body["handle"] == "Ann" and body["bot"] is False
    assert body["games"] == [{"game": "toy", "played": 3, "won": wins}]
    assert [g["game_id"] for g in body["recent"]] == ids[::-1]  # newest first
    assert all(g["won"] == (0 in g["result"]["winners"]) for g in body["recent"])
    assert client.get("/v1/players/nobody").get_json()["code"] == "PLAYER_NOT_FOUND"


def test_my_finished_games_are_paged(client):
    token = session(client)
    ids = played(client, token, 3)
    first = client.get("/v1/me/games?limit=2", headers=bearer(token)).get_json()
    assert first["running"] == []
    assert [g["game_id"] for g in first["finished"]] == ids[:0:-1]
    second = client.get(
        f"/v1/me/games?limit=2&before={first['next_before']}", headers=bearer(token)
    ).get_json()
    assert [g["game_id"] for g in second["finished"]] == ids[:1] and second["next_before"] is None


def test_the_archive_filters_by_account_and_the_name_of_a_handle_finds_the_accounts_seats(client):
    token = session(client)
    ids = played(client, token, 2)
    # An anonymous "Ann" would be another player: while the handle is an account's, refused.
    created = client.post("/v1/games", json={"game": "toy", "config": {"seed": 3, "hand_size": 1}})
    other = created.get_json()["id"]
    refused = client.post(f"/v1/games/{other}/seats", json={"name": "Ann"})
    assert refused.status_code == 409 and refused.get_json()["code"] == "SEAT_NAME_TAKEN"
    cy = client.post(f"/v1/games/{other}/seats", json={"name": "Cy"}).get_json()
    bob = client.post(f"/v1/games/{other}/seats", json={"name": "Bob"}).get_json()
    play_out(client, other, cy["token"], bob["token"])
    by_account = client.get("/v1/archive?account=ann").get_json()["games"]
    assert sorted(g["id"] for g in by_account) == sorted(ids)
    by_name = client.get("/v1/archive?player=Ann").get_json()["games"]
    assert sorted(g["id"] for g in by_name) == sorted(ids)
    assert client.get("/v1/archive?account=nobody").get_json()["games"] == []


def test_deleting_an_account_removes_its_credentials_and_keeps_its_games_replayable(
    app, client, redis_client
):
    token = session(client)
    pat = personal_token(client, token, ["read"])
    ids = played(client, token, 2)
    # The first game is compacted (its metadata packed), the second is not.
    Compaction(GameStore(redis_client)).compactor.compact(
        ids[0], "toy", load_log(redis_client, ids[0]).events
    )
    reader = personal_token(client, token, ["read", "play"])
    refused = client.delete(
        "/v1/me", json={"password": "correct horse"}, headers=bearer(reader)
    )  # needs the account scope
    assert refused.status_code == 403
    assert (
        client.delete("/v1/me", json={"password": "correct horse"}, headers=bearer(token)).status_code == 204
    )
    for old in (token, pat, reader):
        assert client.get("/v1/me", headers=bearer(old)).status_code == 401
    assert sign_in(client).status_code == 401
    assert client.get("/v1/players/ann").status_code == 404
    assert not redis_client.keys("acct:*")  # every key of the account, credentials included
    for game in ids:
        summary = client.get(f"/v1/games/{game}").get_json()
        assert summary["seats"][0]["name"] == "deleted player"
        replay = client.get(f"/v1/games/{game}/replay")
        assert replay.status_code == 200, replay.get_json()
        assert "Ann" not in replay.get_data(as_text=True)
        events = client.get(f"/v1/games/{game}/events").get_json()["events"]
        assert events[-1]["version"] == summary["version"]
    # The archive's name search no longer links the old name to these games.
    assert client.get("/v1/archive?player=Ann").get_json()["games"] == []
    # The handle is free again, and the new account has none of the old one's games.
    assert sign_up(client).status_code == 201
    fresh = sign_in(client).get_json()["token"]
    assert client.get("/v1/me/games", headers=bearer(fresh)).get_json()["finished"] == []
    assert client.get("/v1/archive?account=ann").get_json()["games"] == []


def test_a_deletion_left_half_done_by_a_dead_process_is_finished_by_the_janitor(app, client, redis_client):
    """The process dies right after the credentials went (store.account_deletion): nothing of the
    account works any more, and the janitor's pass finishes the rest (seats renamed, keys gone,
    handle free)."""
    import time

    from service.account_deletion import finish_deletions
    from store.accounts import DELETING

    token = session(client)
    ids = played(client, token, 1)
    accounts = app.extensions["account_service"]
    who = accounts.identify(token)
    assert parts.account_deletion(app.extensions["game_service"].store).begin(
        who.account_id, int(time.time() * 1000)
    )  # ... then killed
    assert client.get("/v1/me", headers=bearer(token)).status_code == 401
    assert sign_in(client).status_code == 401
    assert client.get("/v1/players/ann").status_code == 404
    assert sign_up(client).status_code == 409  # the handle is still held until the deletion ends
    svc = app.extensions["game_service"]
    assert finish_deletions(svc) == []  # within the grace a live process may still be at it
    assert finish_deletions(svc, grace_ms=0) == [who.account_id]
    assert client.get(f"/v1/games/{ids[0]}").get_json()["seats"][0]["name"] == "deleted player"
    assert not redis_client.keys("acct:*") and not redis_client.zcard(DELETING)
    assert sign_up(client).status_code == 201
