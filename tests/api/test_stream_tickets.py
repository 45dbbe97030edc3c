"""Stream tickets: how a browser's EventSource (which cannot send Authorization) follows a game as
its seat without a seat token in any URL. A ticket is issued to a seat token, opens one stream of
one game as that seat, is single-use and expires after STREAM_TICKET_TTL_SECONDS."""

from __future__ import annotations

import time

import pytest

from service import games as service_games
from tests.api.conftest import Table, redis_dump
from tests.api.sse import read_messages
from tests.api.test_errors import assert_problem


def issue(table: Table, seat: int) -> dict:
    response = table.client.post(f"/v1/games/{table.id}/stream-tickets", headers=table.auth(seat))
    assert response.status_code == 201, response.get_json()
    assert response.headers["Cache-Control"] == "no-store"
    return response.get_json()


def dealt_cards(client, game_id: str, ticket: str) -> dict[int, list | None]:
    """The cards of each cards_dealt event the ticket's stream delivers (None: redacted)."""
    response = client.get(f"/v1/games/{game_id}/stream?ticket={ticket}", buffered=False)
    assert response.status_code == 200, response.get_json()
    assert response.mimetype == "text/event-stream"
    messages = read_messages(response.response, stop=lambda m: m.id == 3)
    dealt = {
        m.data["event"]["seat"]: m.data["event"]["cards"]
        for m in messages
        if m.data is not None and m.event == "message" and m.data["event"]["type"] == "cards_dealt"
    }
    response.close()
    return dealt


def assert_refused(client, url: str, status: int, code: str, **kwargs) -> None:
    """A refused stream request (unbuffered: an accepted one would stream on forever)."""
    response = client.get(url, buffered=False, **kwargs)
    if response.status_code == 200:
        response.close()
        pytest.fail(f"{url} was accepted")
    assert_problem(response, status, code)


def test_a_ticket_follows_as_its_own_seat_and_never_another(client):
    """Wrong seat: seat 1's ticket shows seat 1's hand and redacts seat 0's (and vice versa)."""
    table = Table(client)
    hands = [table.view(seat)["view"]["hand"] for seat in (0, 1)]
    for seat in (0, 1):
        body = issue(table, seat)
        assert body["seat"] == seat and body["expires_in"] == service_games.STREAM_TICKET_TTL_SECONDS
        assert body["stream"] == f"/v1/games/{table.id}/stream?ticket={body['ticket']}"
        dealt = dealt_cards(client, table.id, body["ticket"])
        assert sorted(dealt[seat]) == sorted(hands[seat])
        assert dealt[1 - seat] is None


def test_a_ticket_is_single_use(client):
    table = Table(client)
    ticket = issue(table, 0)["ticket"]
    assert dealt_cards(client, table.id, ticket)
    assert_refused(client, f"/v1/games/{table.id}/stream?ticket={ticket}", 401, "INVALID_TICKET")


def test_a_ticket_opens_only_the_game_it_was_issued_for(client):
    first, second = Table(client), Table(client, seed=8)
    ticket = issue(first, 0)["ticket"]
    assert_refused(client, f"/v1/games/{second.id}/stream?ticket={ticket}", 401, "INVALID_TICKET")
    # Trying it on another game does not spend it on its own game.
    assert dealt_cards(client, first.id, ticket)


def test_a_ticket_expires(client, monkeypatch):
    monkeypatch.setattr(service_games, "STREAM_TICKET_TTL_SECONDS", 1)
    table = Table(client)
    body = issue(table, 1)
    assert body["expires_in"] == 1
    time.sleep(1.3)
    assert_refused(client, f"/v1/games/{table.id}/stream?ticket={body['ticket']}", 401, "INVALID_TICKET")


def test_only_the_tickets_hash_is_stored_with_an_expiry(client, redis_client):
    table = Table(client)
    ticket = issue(table, 0)["ticket"]
    keys = [key for key in redis_client.keys("*") if b":ticket:" in key]
    assert len(keys) == 1 and f"{{g:{table.id}}}".encode() in keys[0]
    assert 0 < redis_client.ttl(keys[0]) <= service_games.STREAM_TICKET_TTL_SECONDS
    dump = repr(redis_dump(redis_client))
    assert ticket not in dump


@pytest.mark.parametrize(
    "headers, status, code",
    [
        ({}, 401, "INVALID_TOKEN"),
        ({"Authorization": "Bearer not-a-seat-token"}, 401, "INVALID_TOKEN"),
        ({"Authorization": "Basic abc"}, 401, "INVALID_TOKEN"),
    ],
)
def test_a_ticket_needs_a_seat_token_and_a_refusal_changes_nothing(
    client, redis_client, headers, status, code
):
    table = Table(client)
    before = redis_dump(redis_client)
    assert_problem(client.post(f"/v1/games/{table.id}/stream-tickets", headers=headers), status, code)
    assert redis_dump(redis_client) == before


def test_unknown_game_and_bad_tickets_are_problems(client):
    table = Table(client)
    assert_problem(
        client.post("/v1/games/01m8kmg7cn6esac4d0ev/stream-tickets", headers=table.auth(0)),
        404,
        "GAME_NOT_FOUND",
    )
    assert_refused(client, f"/v1/games/{table.id}/stream?ticket=forged", 401, "INVALID_TICKET")
    assert_refused(client, f"/v1/games/{table.id}/stream?ticket=", 422, "VALIDATION_ERROR")
    ticket = issue(table, 0)["ticket"]
    url = f"/v1/games/{table.id}/stream?ticket={ticket}"
    assert_refused(client, url, 422, "VALIDATION_ERROR", headers=table.auth(1))
    # The refused request did not spend the ticket.
    assert dealt_cards(client, table.id, ticket)
