"""Chat at a game: the players' room is the seats' alone (spectators never write to it, nor read
it), limits on length, characters and rate refuse a message and change nothing, a player mutes a
seat, and messages carry nothing of the game's hidden state."""

from __future__ import annotations

import pytest

from tests import app_fixtures
from tests.api.conftest import redis_dump
from tests.api.stream_reading import first_of
from tests.api.test_accounts import FAST_HASH, bearer, session


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(
        redis_server, SSE_HEARTBEAT_SECONDS=0.2, PASSWORD_HASH_PARAMETERS=FAST_HASH
    )


def say(client, table, seat, text, room="players"):
    return client.post(f"/v1/games/{table.id}/chat/{room}", json={"text": text}, headers=table.auth(seat))


def test_players_talk_in_their_room_and_spectators_cannot_write_or_read_it(app, client, table):
    said = say(client, table, 0, "good luck")
    assert said.status_code == 201, said.get_json()
    assert said.get_json()["seat"] == 0 and said.get_json()["name"] == "Ann"
    page = client.get(f"/v1/games/{table.id}/chat/players", headers=table.auth(1)).get_json()
    assert [(m["seat"], m["text"]) for m in page["messages"]] == [(0, "good luck")]
    watcher = session(client, "Zed")
    refused = client.post(
        f"/v1/games/{table.id}/chat/players", json={"text": "play c001!"}, headers=bearer(watcher)
    )
    assert refused.status_code == 403 and refused.get_json()["code"] == "CHAT_FORBIDDEN"
    anonymous = client.post(f"/v1/games/{table.id}/chat/players", json={"text": "hi"})
    assert anonymous.status_code == 403
    assert client.get(f"/v1/games/{table.id}/chat/players").status_code == 403
    assert client.get(f"/v1/games/{table.id}/chat/players", headers=bearer(watcher)).status_code == 403
    # The spectators' room: spectators write, everyone reads, players do not write there.
    assert (
        client.post(
            f"/v1/games/{table.id}/chat/spectators", json={"text": "nice"}, headers=bearer(watcher)
        ).status_code
        == 201
    )
    assert say(client, table, 0, "thanks", room="spectators").status_code == 403
    public = client.get(f"/v1/games/{table.id}/chat/spectators").get_json()["messages"]
    assert [(m["name"], m["seat"], m["text"]) for m in public] == [("Zed", None, "nice")]


def test_a_message_carries_no_hidden_information(app, client, table):
    """Hidden information (the hands) never rides on a chat message's metadata."""
    hands = [table.view(seat)["view"]["hand"] for seat in (0, 1)]
    assert all(hands)
    said = say(client, table, 0, "hello").get_json()
    assert set(said) == {"id", "room", "seat", "name", "text", "at"}
    read = client.get(f"/v1/games/{table.id}/chat/players", headers=table.auth(1)).get_json()
    for card in hands[0] + hands[1]:
        assert card not in str(said) and card not in str(read)


@pytest.mark.parametrize(
    ("text", "status", "code"),
    [
        ("x" * 301, 422, "CHAT_REFUSED"),
        ("", 422, "CHAT_REFUSED"),
        ("   ", 422, "CHAT_REFUSED"),
        ("line\nbreak", 422, "CHAT_REFUSED"),
        ("bell\x07", 422, "CHAT_REFUSED"),
        ("evil\u202eright-to-left", 422, "CHAT_REFUSED"),
    ],
)
def test_bad_messages_are_refused_and_change_nothing(app, client, table, redis_client, text, status, code):
    before = redis_dump(redis_client)
    refused = say(client, table, 0, text)
    assert refused.status_code == status and refused.get_json()["code"] == code
    assert refused.headers["Content-Type"].startswith("application/problem+json")
    after = redis_dump(redis_client)
    assert {
        k for k in set(before) | set(after) if before.get(k) != after.get(k) and b"LIMITS" not in k
    } == set()


def test_flooding_is_refused_and_the_refused_message_is_not_written(app, client, table):
    for n in range(5):
        assert say(client, table, 1, f"m{n}").status_code == 201
    flood = say(client, table, 1, "one too many")
    assert flood.status_code == 429 and flood.get_json()["code"] == "CHAT_RATE_LIMITED"
    texts = [
        m["text"]
        for m in client.get(f"/v1/games/{table.id}/chat/players", headers=table.auth(0)).get_json()[
            "messages"
        ]
    ]
    assert texts == [f"m{n}" for n in range(5)]
    assert say(client, table, 0, "my own budget").status_code == 201  # counted per sender


def test_a_player_mutes_a_seat(app, client, table):
    say(client, table, 1, "spam")
    muted = client.post(f"/v1/games/{table.id}/chat/mute", json={"seat": 1}, headers=table.auth(0))
    assert muted.status_code == 200 and muted.get_json() == {"muted": [1]}
    assert (
        client.get(f"/v1/games/{table.id}/chat/players", headers=table.auth(0)).get_json()["messages"] == []
    )
    assert (
        len(client.get(f"/v1/games/{table.id}/chat/players", headers=table.auth(1)).get_json()["messages"])
        == 1
    )
    assert (
        client.post(f"/v1/games/{table.id}/chat/mute", json={"seat": 0}, headers=table.auth(0)).status_code
        == 422
    )
    assert client.post(f"/v1/games/{table.id}/chat/mute", json={"seat": 1}).status_code == 403


def test_a_room_streams_its_messages(app, client, table):
    stream = client.get(f"/v1/games/{table.id}/chat/players/stream", headers=table.auth(1), buffered=False)
    assert stream.status_code == 200
    next(iter(stream.response))  # opened: it reads from now on
    say(client, table, 0, "streamed")
    message = first_of(stream, "chat")
    stream.close()
    assert message["text"] == "streamed" and message["seat"] == 0
    assert client.get(f"/v1/games/{table.id}/chat/players/stream").status_code == 403


@pytest.mark.parametrize("after", ["18446744073709551616-0", "18446744073709551615-18446744073709551615"])
def test_a_message_id_past_every_stream_id_reads_an_empty_page_not_a_500(app, client, table, after):
    """A stream id whose parts match the schema's digits but pass Redis's 64 bits: nothing can follow
    it, so the page is empty (Redis refused to read from it, a 500, and a 422 refused what the
    published schema allows); a bad id is still a 422."""
    say(client, table, 0, "before the far id")
    room = f"/v1/games/{table.id}/chat/players"
    page = client.get(room, query_string={"after": after}, headers=table.auth(1))
    assert page.status_code == 200, page.get_data(as_text=True)
    assert page.get_json() == {"messages": []}
    assert len(client.get(room, headers=table.auth(1)).get_json()["messages"]) == 1
    refused = client.get(f"/v1/games/{table.id}/chat/spectators", query_string={"after": "12-x"})
    assert refused.status_code == 422 and refused.get_json()["code"] == "VALIDATION_ERROR"


@pytest.mark.parametrize("last", ["18446744073709551616-0", "1-x"])
def test_a_rooms_stream_refuses_a_last_event_id_no_message_can_have(app, client, table, last):
    """The stream resumes after Last-Event-ID: an id no message can have (a part over 64 bits, or no
    id at all) is a 422 before the stream opens, not a stream Redis drops at its first read."""
    refused = client.get(
        f"/v1/games/{table.id}/chat/players/stream",
        headers={**table.auth(1), "Last-Event-ID": last},
        buffered=False,  # an opened stream never ends: read only its status
    )
    status = refused.status_code
    refused.close()
    assert status == 422
    assert b"VALIDATION_ERROR" in b"".join(refused.response)
