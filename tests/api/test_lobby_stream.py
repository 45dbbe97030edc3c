"""GET /v1/lobby/stream: open games, open challenges and seeks announced as they come and go,
resumable with Last-Event-ID."""

from __future__ import annotations

import pytest

from tests import app_fixtures
from tests.api.stream_reading import events, first_of
from tests.api.test_accounts import FAST_HASH, bearer, session


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(
        redis_server, SSE_HEARTBEAT_SECONDS=0.2, PASSWORD_HASH_PARAMETERS=FAST_HASH
    )


def next_about(response, kind, subject, bound=60.0):
    """(id, data) of the stream's next ``kind`` message about ``subject``."""
    import time

    started = time.monotonic()
    for message in events(response):
        if message is not None and message[0] == kind and message[2]["id"] == subject:
            return message[1], message[2]
        assert time.monotonic() - started < bound, f"no {kind} about {subject} within {bound} s"
    raise AssertionError("the stream ended")


def test_the_lobby_announces_a_game_and_withdraws_it_when_it_starts(app, client):
    stream = client.get("/v1/lobby/stream", buffered=False)
    assert stream.status_code == 200 and stream.headers["Content-Type"].startswith("text/event-stream")
    assert first_of(stream, "lobby") == {"games": [], "challenges": [], "seeks": []}
    game = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}}).get_json()["id"]
    added_id, added = next_about(stream, "game", game)
    assert added["change"] == "added" and added["data"]["free_seats"] == [0, 1]
    for name in ("Ann", "Bob"):
        assert client.post(f"/v1/games/{game}/seats", json={"name": name}).status_code == 201
    changed_id, changed = next_about(stream, "game", game)  # Ann's seat: the game is still open
    assert changed["change"] == "changed" and changed["data"]["free_seats"] == [1]
    _, gone = next_about(stream, "game", game)
    stream.close()
    assert gone == {"change": "gone", "id": game, "data": None}
    # Resumed after the last change before it: the withdrawal again, no snapshot.
    assert added_id != changed_id
    resumed = client.get("/v1/lobby/stream", headers={"Last-Event-ID": changed_id}, buffered=False)
    first = next(m for m in events(resumed) if m is not None)
    resumed.close()
    assert first[0] == "game" and first[2]["change"] == "gone" and first[2]["id"] == game


def test_the_lobby_says_an_open_game_changed_when_a_seat_is_claimed_and_when_it_is_left(app, client):
    game = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}}).get_json()["id"]
    stream = client.get("/v1/lobby/stream", buffered=False)
    assert [g["id"] for g in first_of(stream, "lobby")["games"]] == [game]
    ann = client.post(f"/v1/games/{game}/seats", json={"name": "Ann", "seat": 1}).get_json()
    _, claimed = next_about(stream, "game", game)
    assert claimed["change"] == "changed" and claimed["data"]["free_seats"] == [0]
    assert client.delete(f"/v1/games/{game}/seats/1", headers=bearer(ann["token"])).status_code == 204
    _, left = next_about(stream, "game", game)
    stream.close()
    assert left["change"] == "changed" and left["data"]["free_seats"] == [0, 1]


def test_the_lobby_lists_open_challenges_and_seeks_and_their_end(app, client):
    ann, bob = session(client, "Ann"), session(client, "Bob")
    open_challenge = client.post(
        "/v1/challenges", json={"game": "toy", "open_seats": 1}, headers=bearer(ann)
    ).get_json()
    stream = client.get("/v1/lobby/stream", buffered=False)
    snapshot = first_of(stream, "lobby")
    assert [c["id"] for c in snapshot["challenges"]] == [open_challenge["id"]]
    made = client.post("/v1/seeks", json={"game": "toy"}, headers=bearer(bob)).get_json()
    _, added = next_about(stream, "seek", made["id"])
    assert added["change"] == "added" and added["data"]["handle"] == "Bob"
    assert client.delete(f"/v1/seeks/{made['id']}", headers=bearer(bob)).status_code == 204
    assert next_about(stream, "seek", made["id"])[1]["change"] == "gone"
    assert (
        client.post(f"/v1/challenges/{open_challenge['id']}/accept", json={}, headers=bearer(bob)).status_code
        == 200
    )
    assert next_about(stream, "challenge", open_challenge["id"])[1]["change"] == "gone"
    stream.close()


def test_a_bad_last_event_id_is_a_problem(app, client):
    refused = client.get("/v1/lobby/stream", headers={"Last-Event-ID": "yesterday"})
    assert refused.status_code == 422 and refused.get_json()["code"] == "VALIDATION_ERROR"


@pytest.mark.parametrize("after", ["18446744073709551616-0", "18446744073709551615-18446744073709551615"])
def test_an_out_of_range_last_event_id_is_refused_before_the_stream_opens(app, client, after):
    """A stream id whose part passes the digits pattern but not Redis's 64 bits opened the stream
    and dropped it with a Redis error."""
    refused = client.get("/v1/lobby/stream", headers={"Last-Event-ID": after})
    assert refused.status_code == 422
    assert refused.get_json()["code"] == "VALIDATION_ERROR"
