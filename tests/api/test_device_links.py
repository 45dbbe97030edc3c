"""Device links ("continue on another device", issue 30): a seat moves to a browser that does not
hold its token without the token ever travelling in a URL. A link is issued to a seat token, is
one-time, names its game, and its redemption gives the seat a fresh token and signs the issuing
device out (a token rotation, logged as ``seat_token_rotated``)."""

from __future__ import annotations

import pytest

from service import games as service_games
from tests import app_fixtures
from tests.api.conftest import Table, redis_dump
from tests.api.test_errors import assert_problem


def issue(table: Table, seat: int) -> dict:
    response = table.client.post(f"/v1/games/{table.id}/device-links", headers=table.auth(seat))
    assert response.status_code == 201, response.get_json()
    assert response.headers["Cache-Control"] == "no-store"
    return response.get_json()


def redeem(table: Table, code: str):
    return table.client.post(f"/v1/games/{table.id}/device-links/redeem", json={"code": code})


def test_a_device_link_moves_the_seat_and_signs_the_old_device_out(client):
    table = Table(client)
    link = issue(table, 1)
    assert link["seat"] == 1 and link["expires_in"] == service_games.DEVICE_LINK_TTL_SECONDS
    # The code rides in the fragment, which browsers never send: no token and no code in a path.
    assert link["page"] == f"/continue/{table.id}#{link['code']}"
    assert table.tokens[1] not in link["page"]
    before = table.view()["version"]
    answer = redeem(table, link["code"])
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["seat"] == 1 and body["game_id"] == table.id and body["version"] == before + 1
    assert body["token"] != table.tokens[1]
    # The new device sees seat 1's hand; the old token is refused from now on.
    mine = client.get(f"/v1/games/{table.id}/view", headers={"Authorization": f"Bearer {body['token']}"})
    assert mine.status_code == 200 and mine.get_json()["view"]["seat"] == 1
    assert_problem(
        table.client.get(f"/v1/games/{table.id}/view", headers=table.auth(1)), 401, "INVALID_TOKEN"
    )
    events = client.get(f"/v1/games/{table.id}/events?after={before}").get_json()["events"]
    assert [e["event"]["type"] for e in events] == ["seat_token_rotated"]


def test_a_device_link_works_once(client):
    table = Table(client)
    link = issue(table, 0)
    assert redeem(table, link["code"]).status_code == 200
    assert_problem(redeem(table, link["code"]), 401, "INVALID_DEVICE_LINK")


def test_a_device_link_is_refused_for_another_game_and_changes_nothing(client, redis_client):
    table, other = Table(client), Table(client)
    link = issue(table, 0)
    before = redis_dump(redis_client)
    assert_problem(redeem(other, link["code"]), 401, "INVALID_DEVICE_LINK")
    assert_problem(redeem(table, "not-a-code"), 401, "INVALID_DEVICE_LINK")
    assert redis_dump(redis_client) == before
    assert redeem(table, link["code"]).status_code == 200  # still good for its own game


def test_a_device_link_needs_a_seat_token_and_a_known_game(client):
    table = Table(client)
    assert_problem(client.post(f"/v1/games/{table.id}/device-links"), 401, "INVALID_TOKEN")
    bad = client.post(f"/v1/games/{table.id}/device-links", headers={"Authorization": "Bearer nope"})
    assert_problem(bad, 401, "INVALID_TOKEN")
    assert_problem(
        client.post("/v1/games/00000000000000000000/device-links/redeem", json={"code": "x"}),
        404,
        "GAME_NOT_FOUND",
    )
    assert_problem(client.post(f"/v1/games/{table.id}/device-links/redeem", json={}), 422, "VALIDATION_ERROR")


def test_a_device_link_made_before_a_rotation_moves_nothing(client):
    """Like a stream ticket, a link belongs to the token that made it: once that token is replaced
    (here by a second link's redemption), the first link is refused and the seat stays put."""
    table = Table(client)
    first, second = issue(table, 0), issue(table, 0)
    moved = redeem(table, second["code"]).get_json()
    assert_problem(redeem(table, first["code"]), 401, "INVALID_DEVICE_LINK")
    view = client.get(f"/v1/games/{table.id}/view", headers={"Authorization": f"Bearer {moved['token']}"})
    assert view.status_code == 200 and view.get_json()["view"]["seat"] == 0


# -- limits: links made per seat, code guesses per address, links stored per seat -------------------


LINKS_PER_SEAT = 3  # RATE_LIMIT_DEVICE_LINK here (shipped: 5/minute;30/hour)


@pytest.fixture()
def limited(redis_client, redis_server):
    """An app with its rate limits on (the tests' default is off)."""
    yield from app_fixtures.make_app(
        redis_server, RATE_LIMITS_ENABLED=True, RATE_LIMIT_DEVICE_LINK=f"{LINKS_PER_SEAT}/minute"
    )


def test_device_links_made_too_often_by_one_seat_are_refused_and_other_seats_are_not(limited):
    client = limited.test_client()
    table = Table(client)
    codes = [issue(table, 0)["code"] for _ in range(LINKS_PER_SEAT)]
    refused = client.post(f"/v1/games/{table.id}/device-links", headers=table.auth(0))
    assert_problem(refused, 429, "TOO_MANY_REQUESTS")
    assert int(refused.headers["Retry-After"]) >= 1
    # Counted per seat, not per address: the other seat (same address) still makes one.
    assert issue(table, 1)["seat"] == 1
    # A rotation (here, redeeming one of the links) buys the seat no fresh budget.
    rotated = redeem(table, codes[-1])
    assert rotated.status_code == 200
    table.tokens[0] = rotated.get_json()["token"]
    client.get(f"/v1/games/{table.id}/view", headers=table.auth(0))  # the process knows the new token
    assert_problem(
        client.post(f"/v1/games/{table.id}/device-links", headers=table.auth(0)), 429, "TOO_MANY_REQUESTS"
    )


def test_device_link_code_guesses_are_limited_per_address_like_token_guesses(limited):
    """RATE_LIMIT_TOKEN_FAILURE: failed redemptions count per address; past the limit even a right
    code is refused from that address (before it is checked, so it is not spent), while another
    address redeems it."""
    client = limited.test_client()
    table = Table(client)
    link = issue(table, 0)
    guesses = 0
    while True:
        guesses += 1
        answer = redeem(table, f"guess-{guesses}")
        if answer.status_code == 429:
            break
        assert_problem(answer, 401, "INVALID_DEVICE_LINK")
        assert guesses <= 60, "60 failed guesses and never refused"
    assert_problem(answer, 429, "TOO_MANY_REQUESTS")
    assert_problem(redeem(table, link["code"]), 429, "TOO_MANY_REQUESTS")
    elsewhere = limited.test_client()
    elsewhere.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    moved = elsewhere.post(f"/v1/games/{table.id}/device-links/redeem", json={"code": link["code"]})
    assert moved.status_code == 200, moved.get_json()


MOST_LINKS = 5  # as POST /v1/games/{id}/device-links documents it


def test_a_seat_holds_a_bounded_number_of_device_links_the_oldest_voided(client, redis_client):
    table = Table(client)
    made = [issue(table, 0)["code"] for _ in range(MOST_LINKS + 3)]
    stored = [k for k in redis_client.keys("*") if b":device:" in k]
    assert len(stored) == MOST_LINKS
    for code in made[:3]:
        assert_problem(redeem(table, code), 401, "INVALID_DEVICE_LINK")
    assert redeem(table, made[-1]).status_code == 200
