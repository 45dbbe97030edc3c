"""Quick pairing over HTTP: seekers of one pool are paired into one started game with every seat
bound; a seeker far outside everyone's range is still paired within the documented bound
(``service.matching``: unbounded tolerance after ANY_AFTER_SECONDS); dead seeks go; bad input
changes nothing."""

from __future__ import annotations

import time

import pytest

from service.account_tokens import parse_token
from service.matching import Widening
from service.seeks import SeekService
from store.ratings import rating_key
from tests import app_fixtures
from tests.api.conftest import redis_dump
from tests.api.stream_reading import first_of
from tests.api.test_accounts import FAST_HASH, bearer, session

ANY_AFTER = 5.0  # the bound under test, short: time is passed to the matcher, never slept


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(
        redis_server,
        SSE_HEARTBEAT_SECONDS=0.2,
        PASSWORD_HASH_PARAMETERS=FAST_HASH,
        ACCOUNT_STREAM_POLL_SECONDS=600,
    )


@pytest.fixture()
def matcher(app, svc):
    return SeekService(svc, widening=Widening(per_second=0.0, any_after_seconds=ANY_AFTER))


def seek(client, token, **body):
    made = client.post(
        "/v1/seeks", json={"game": "toy", "config": {"hand_size": 1}, **body}, headers=bearer(token)
    )
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def running(client, token):
    return [g["game_id"] for g in client.get("/v1/me/games", headers=bearer(token)).get_json()["running"]]


def test_four_seekers_of_a_four_seat_game_are_paired_into_one_table(app, client, matcher):
    tokens = [session(client, name) for name in ("Ann", "Bob", "Cid", "Dee")]
    stream = client.get("/v1/me/stream", headers=bearer(tokens[0]), buffered=False)
    first_of(stream, "open_games")  # the stream reads from here on
    made = [seek(client, t, game="condottiere", config={"players": 4}) for t in tokens]
    assert len({m["id"].partition(".")[0] for m in made}) == 1  # one pool
    assert len(client.get("/v1/seeks").get_json()["seeks"]) == 4
    assert matcher.match()["games"] == 1
    started = first_of(stream, "game_started")
    stream.close()
    game_id = started["game_id"]
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "active" and summary["seat_count"] == 4
    assert sorted(s["name"] for s in summary["seats"]) == ["Ann", "Bob", "Cid", "Dee"]
    for token in tokens:
        assert running(client, token) == [game_id]
        view = client.get(f"/v1/games/{game_id}/view", headers=bearer(token))
        assert view.status_code == 200
    assert client.get("/v1/seeks").get_json()["seeks"] == []
    assert client.get(f"/v1/seeks/{made[0]['id']}").status_code == 404
    assert matcher.match()["games"] == 0  # nothing left to pair, nothing paired twice


def test_a_seeker_far_outside_every_range_is_paired_once_the_bound_has_passed(
    app, client, redis_client, matcher
):
    ann, far = session(client, "Ann"), session(client, "Far")
    far_id = parse_token(far)[0]
    redis_client.hset(rating_key("toy", far_id), mapping={"mu": 60.0, "sigma": 1.0, "games": 40})
    mine, theirs = seek(client, ann, rating_range=1), seek(client, far, rating_range=1)
    assert theirs["rating"] == 60.0 and mine["rating"] < 30
    now = int(time.time() * 1000)
    assert matcher.match(now=now)["games"] == 0
    assert matcher.match(now=now + int((ANY_AFTER - 1) * 1000))["games"] == 0  # the bound is not early
    assert matcher.match(now=now + int((ANY_AFTER + 0.5) * 1000))["games"] == 1
    (game_id,) = running(client, ann)
    assert running(client, far) == [game_id]


def test_a_human_who_refuses_bots_is_never_seated_with_a_bot_account(app, client, matcher):
    """``bots: false`` holds past the bound too: the bot account waits while the humans are paired."""
    ann, bob, robo = session(client, "Ann"), session(client, "Bob"), session(client, "Robo", bot=True)
    seek(client, ann, bots=False)
    seek(client, robo)
    past_the_bound = int(time.time() * 1000) + int((ANY_AFTER + 0.5) * 1000)
    assert matcher.match(now=past_the_bound)["games"] == 0
    seek(client, bob, bots=False)
    assert matcher.match(now=past_the_bound)["games"] == 1
    (game_id,) = running(client, ann)
    assert running(client, bob) == [game_id] and running(client, robo) == []
    assert len(client.get("/v1/seeks").get_json()["seeks"]) == 1  # Robo's, still waiting


def test_close_ratings_are_preferred(app, client, redis_client, matcher):
    names = ["A", "B", "C", "D"]
    tokens = {n: session(client, n) for n in names}
    ratings = {"A": 20.0, "B": 40.0, "C": 21.0, "D": 41.0}
    for n in names:
        account = parse_token(tokens[n])[0]
        redis_client.hset(rating_key("toy", account), mapping={"mu": ratings[n], "sigma": 1.0, "games": 40})
        seek(client, tokens[n], rating_range=100)
    assert matcher.match()["games"] == 2
    assert running(client, tokens["A"]) == running(client, tokens["C"])
    assert running(client, tokens["B"]) == running(client, tokens["D"])


def test_a_seek_dies_without_keep_alive_or_stream_and_lives_with_one(app, client, matcher):
    ann, bob = session(client, "Ann"), session(client, "Bob")
    a = seek(client, ann, game="condottiere", config={"players": 3})
    b = seek(client, bob, game="condottiere", config={"players": 3})
    stream = client.get("/v1/me/stream", headers=bearer(bob), buffered=False)
    first_of(stream, "open_games")
    later = b["alive_until"] + 1000
    assert matcher.match(now=later)["dropped"] == 1  # Ann's: no stream, not kept
    stream.close()
    assert client.get(f"/v1/seeks/{a['id']}").status_code == 404
    assert client.get(f"/v1/seeks/{b['id']}").status_code == 200
    kept = client.post(f"/v1/seeks/{b['id']}/keep", headers=bearer(bob))
    assert kept.status_code == 200 and kept.get_json()["alive_until"] >= b["alive_until"]
    assert client.post(f"/v1/seeks/{b['id']}/keep", headers=bearer(ann)).status_code == 404
    assert client.delete(f"/v1/seeks/{b['id']}", headers=bearer(bob)).status_code == 204
    assert client.get("/v1/seeks").get_json()["seeks"] == []


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"game": "nope"}, "UNKNOWN_GAME"),
        ({"game": "toy", "config": {"seed": 4}}, "INVALID_SEEK"),
        ({"game": "toy", "rating_range": -1}, "VALIDATION_ERROR"),
        ({"game": "toy", "config": {"hand_size": 0}}, "INVALID_HAND_SIZE"),
        ({"game": "toy", "extra": True}, "VALIDATION_ERROR"),
    ],
)
def test_bad_seeks_are_problems_and_change_nothing(app, client, redis_client, body, code):
    ann = session(client, "Ann")
    before = redis_dump(redis_client)
    refused = client.post("/v1/seeks", json=body, headers=bearer(ann))
    assert refused.status_code == 422 and refused.get_json()["code"] == code, refused.get_json()
    after = redis_dump(redis_client)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert {k for k in changed if not k.startswith((b"acct:", b"LIMITS", b"limits"))} == set()


def test_one_seek_per_account_and_pool_and_only_with_a_token_where_anonymous_seeks_are_off(app, client):
    ann = session(client, "Ann")
    seek(client, ann)
    again = client.post("/v1/seeks", json={"game": "toy", "config": {"hand_size": 1}}, headers=bearer(ann))
    assert again.status_code == 422 and again.get_json()["code"] == "INVALID_SEEK"
    app.config["ANONYMOUS_SEEKS"] = False
    assert client.post("/v1/seeks", json={"game": "toy"}).status_code == 401


def anonymous(client, name):
    made = client.post("/v1/seeks", json={"game": "toy", "config": {"hand_size": 1}, "name": name})
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def test_anonymous_seekers_are_paired_and_each_plays_its_seat_with_its_seek_s_token(app, client, matcher):
    """No account: each seek's answer carries a token once; the seek is kept (and withdrawn) with
    it, never with another's; once paired, GET .../game names the game and the token plays the seat
    the seeker was paired into (casual: nobody is rated)."""
    ann, bob = anonymous(client, "Ann"), anonymous(client, "Bob")
    assert ann["handle"] == "Ann" and ann["rated"] is False and ann["token"] != bob["token"]
    assert "token" not in client.get(f"/v1/seeks/{ann['id']}").get_json()  # shown once only
    assert client.get(f"/v1/seeks/{ann['id']}/game").status_code == 404  # waiting
    assert client.post(f"/v1/seeks/{ann['id']}/keep", headers=bearer(ann["token"])).status_code == 200
    assert client.post(f"/v1/seeks/{ann['id']}/keep", headers=bearer(bob["token"])).status_code == 404
    assert client.delete(f"/v1/seeks/{ann['id']}", headers=bearer(bob["token"])).status_code == 404
    assert matcher.match()["games"] == 1
    (game_id,) = {client.get(f"/v1/seeks/{m['id']}/game").get_json()["game_id"] for m in (ann, bob)}
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "active" and {s["name"] for s in summary["seats"]} == {"Ann", "Bob"}
    seats = {
        m["handle"]: client.get(f"/v1/games/{game_id}/view", headers=bearer(m["token"])).get_json()["seat"]
        for m in (ann, bob)
    }
    assert sorted(seats.values()) == [0, 1]
    awaited = summary["awaiting"][0]
    mover = ann if seats["Ann"] == awaited else bob
    view = client.get(f"/v1/games/{game_id}/view", headers=bearer(mover["token"])).get_json()["view"]
    moved = client.post(
        f"/v1/games/{game_id}/moves", json={"command": view["legal_moves"][0]}, headers=bearer(mover["token"])
    )
    assert moved.status_code == 200, moved.get_json()


def test_an_anonymous_seek_is_casual_and_dies_without_keep_alive(app, client, redis_client, matcher):
    before = redis_dump(redis_client)
    refused = client.post("/v1/seeks", json={"game": "toy", "rated": True, "name": "Ann"})
    assert refused.status_code == 422 and refused.get_json()["code"] == "INVALID_SEEK"
    assert redis_dump(redis_client) == before
    made = anonymous(client, "Ann")
    assert matcher.match(now=made["alive_until"] + 1)["dropped"] == 1
    assert client.get(f"/v1/seeks/{made['id']}").status_code == 404
