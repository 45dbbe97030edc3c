"""Handles that pass for bots or placeholders are reserved (whatever their case or look-alike
letters), a seat name may not be another account's handle, and the archive's name search does not
mix an account with same-named seats that are not it."""

from __future__ import annotations

import pytest

from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, session, sign_up
from tests.api.test_me_stream import one_card_game, play_out


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH)


RESERVED = [
    "bot:heuristic",
    "Bot:Random",
    "random bot",
    "deleted player",
    "DELETED PLAYER",
    "Deleted_Player",
    "RandomBot",
    "heuristic-bot",
    "bot",
    "b\u043et:random",  # a Cyrillic o
    "\uff42\uff4f\uff54 random",  # full-width letters
    "d\u0435l\u0435t\u0435d \u0440l\u0430y\u0435r",  # Cyrillic e, p, a
    "B0T:Rand0m",  # digits for letters
]


@pytest.mark.parametrize("handle", RESERVED)
def test_handles_passing_for_bots_or_placeholders_are_refused(client, handle):
    refused = sign_up(client, handle)
    assert refused.status_code == 422, refused.get_json()
    assert refused.get_json()["code"] == "HANDLE_RESERVED"
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert client.get("/v1/players/" + handle).status_code == 404


@pytest.mark.parametrize("handle", ["Botticelli", "Abbott", "robot", "Ann", "Bo", "deleted", "Zo\u00eb"])
def test_ordinary_handles_near_the_reserved_ones_are_still_free(client, handle):
    assert sign_up(client, handle).status_code == 201


def test_a_seat_name_that_is_another_accounts_handle_is_refused(client):
    ann = session(client, "Ann")
    bob = session(client, "Bob")
    game = client.post("/v1/games", json={"game": "toy"}).get_json()["id"]
    anonymous = client.post(f"/v1/games/{game}/seats", json={"name": "ANN", "seat": 0})
    assert anonymous.status_code == 409 and anonymous.get_json()["code"] == "SEAT_NAME_TAKEN"
    other = client.post(f"/v1/games/{game}/seats", json={"name": "ann", "seat": 0}, headers=bearer(bob))
    assert other.status_code == 409 and other.get_json()["code"] == "SEAT_NAME_TAKEN"
    seats = client.get(f"/v1/games/{game}").get_json()["seats"]
    assert not any(s["claimed"] for s in seats)  # the refusals changed nothing
    own = client.post(f"/v1/games/{game}/seats", json={"name": "Ann", "seat": 0}, headers=bearer(ann))
    assert own.status_code == 201
    assert client.post(f"/v1/games/{game}/seats", json={"name": "Cy", "seat": 1}).status_code == 201


def test_the_archive_name_search_does_not_mix_an_account_with_a_same_named_seat(client):
    # An anonymous seat named Ann plays first, before anyone holds the handle.
    game = client.post("/v1/games", json={"game": "toy", "config": {"seed": 3, "hand_size": 1}}).get_json()[
        "id"
    ]
    ann = client.post(f"/v1/games/{game}/seats", json={"name": "Ann", "seat": 0}).get_json()
    bob = client.post(f"/v1/games/{game}/seats", json={"name": "Bob", "seat": 1}).get_json()
    play_out(client, game, ann["token"], bob["token"])
    # Then the account Ann plays.
    token = session(client, "Ann")
    mine, seat0, seat1 = one_card_game(client, token)
    play_out(client, mine, seat0["token"], seat1["token"])
    found = [g["id"] for g in client.get("/v1/archive?player=Ann").get_json()["games"]]
    assert found == [mine]
    assert [g["id"] for g in client.get("/v1/archive?account=Ann").get_json()["games"]] == [mine]
    # A name that is no account's still finds every seat of that name.
    assert {g["id"] for g in client.get("/v1/archive?player=Bob").get_json()["games"]} == {game, mine}
