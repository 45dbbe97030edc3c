"""Challenges over HTTP: one account challenges another, who is told on /v1/me/stream and
accepts, and both are seated in the started game; declines, cancels and expiries reach the
challenger; an open challenge is filled seat by seat; bad input changes nothing."""

from __future__ import annotations

import threading
import time

import pytest

from service.challenges import ChallengeService
from tests import app_fixtures
from tests.api.conftest import redis_dump
from tests.api.stream_reading import first_of
from tests.api.test_accounts import FAST_HASH, bearer, session
from tests.api.test_me_stream import messages

DEADLINE_SECONDS = 60


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(
        redis_server,
        SSE_HEARTBEAT_SECONDS=0.2,
        PASSWORD_HASH_PARAMETERS=FAST_HASH,
        ACCOUNT_STREAM_POLL_SECONDS=600,
    )


def challenge(client, token, **body):
    made = client.post(
        "/v1/challenges", json={"game": "toy", "config": {"hand_size": 1}, **body}, headers=bearer(token)
    )
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def test_the_challenged_is_told_on_its_stream_accepts_and_both_are_seated(app, client):
    ann, bob = session(client, "Ann"), session(client, "Bob")
    stream = client.get("/v1/me/stream", headers=bearer(bob), buffered=False)
    assert next(messages(stream))[0] == "open_games"
    made = challenge(client, ann, invite=["Bob"], rated=False)
    told = first_of(stream, "challenge")
    assert told["id"] == made["id"] and told["challenger"] == "Ann" and told["status"] == "pending"
    assert "seed" not in told["config"]  # the seed is secret until the game is over
    incoming = client.get("/v1/challenges", headers=bearer(bob)).get_json()
    assert [c["id"] for c in incoming["incoming"]] == [made["id"]]
    accepted = client.post(f"/v1/challenges/{made['id']}/accept", json={}, headers=bearer(bob))
    assert accepted.status_code == 200, accepted.get_json()
    answer = accepted.get_json()
    assert answer["started"] is True and answer["token"] is None
    started = first_of(stream, "game_started")
    stream.close()
    assert started["game_id"] == made["id"] == answer["game_id"]
    summary = client.get(f"/v1/games/{made['id']}").get_json()
    assert summary["status"] == "active" and summary["version"] > 0
    assert sorted(s["name"] for s in summary["seats"]) == ["Ann", "Bob"]
    # Each account's token acts for its own seat of the started game.
    seats = {}
    for token in (ann, bob):
        view = client.get(f"/v1/games/{made['id']}/view", headers=bearer(token))
        assert view.status_code == 200, view.get_json()
        seats[token] = view.get_json()["seat"]
    assert sorted(seats.values()) == [0, 1]
    for token in (ann, bob):
        games = client.get("/v1/me/games", headers=bearer(token)).get_json()
        assert made["id"] in [g["game_id"] for g in games["running"]]
    assert client.get("/v1/challenges", headers=bearer(bob)).get_json()["incoming"] == []


def test_an_account_turned_bot_is_challenged_and_accepts_with_its_own_token(app, client):
    """A bot account (upgraded, so labelled a bot) hears the challenge on its stream, as a bot
    program listening there would, and its acceptance seats it in the started game."""
    ann, robo = session(client, "Ann"), session(client, "Robo")
    upgraded = client.post("/v1/me/upgrade-to-bot", headers=bearer(robo))
    assert upgraded.status_code == 200 and upgraded.get_json()["bot"] is True
    stream = client.get("/v1/me/stream", headers=bearer(robo), buffered=False)
    assert next(messages(stream))[0] == "open_games"
    assert [b["handle"] for b in client.get("/v1/bots/online").get_json()["bots"]] == ["Robo"]
    made = challenge(client, ann, invite=["Robo"])
    assert first_of(stream, "challenge")["id"] == made["id"]
    accepted = client.post(f"/v1/challenges/{made['id']}/accept", json={}, headers=bearer(robo))
    assert accepted.status_code == 200 and accepted.get_json()["started"] is True, accepted.get_json()
    assert first_of(stream, "game_started")["game_id"] == made["id"]
    stream.close()
    view = client.get(f"/v1/games/{made['id']}/view", headers=bearer(robo))
    assert view.status_code == 200 and view.get_json()["seat"] in (0, 1)
    summary = client.get(f"/v1/games/{made['id']}").get_json()
    assert summary["status"] == "active" and sorted(s["name"] for s in summary["seats"]) == ["Ann", "Robo"]


def test_a_decline_with_its_reason_reaches_the_challenger(app, client):
    ann, bob = session(client, "Ann"), session(client, "Bob")
    stream = client.get("/v1/me/stream", headers=bearer(ann), buffered=False)
    next(messages(stream))
    made = challenge(client, ann, invite=["Bob"])
    declined = client.post(
        f"/v1/challenges/{made['id']}/decline", json={"reason": "tooSlow"}, headers=bearer(bob)
    )
    assert declined.status_code == 200, declined.get_json()
    told = first_of(stream, "challenge_declined")
    stream.close()
    assert told["id"] == made["id"] and told["reason"] == "tooSlow" and told["declined_by"] == "Bob"
    assert client.get(f"/v1/games/{made['id']}").status_code == 404  # no game was made
    again = client.post(f"/v1/challenges/{made['id']}/accept", json={}, headers=bearer(bob))
    assert again.status_code == 409 and again.get_json()["code"] == "CHALLENGE_NOT_PENDING"


def test_an_unanswered_challenge_expires_through_the_janitors_sweep_and_the_challenger_is_told(
    app, client, svc
):
    ann, _ = session(client, "Ann"), session(client, "Bob")
    stream = client.get("/v1/me/stream", headers=bearer(ann), buffered=False)
    next(messages(stream))
    made = challenge(client, ann, invite=["Bob"], expires_in=10)
    sweeper = ChallengeService(svc, app.extensions["account_service"])
    assert sweeper.expire_due() == 0  # not yet due: nothing expires
    assert sweeper.expire_due(now=int(time.time() * 1000) + 11_000) == 1
    told = first_of(stream, "challenge_expired")
    stream.close()
    assert told["id"] == made["id"] and told["status"] == "expired"
    assert sweeper.expire_due(now=int(time.time() * 1000) + 11_000) == 0  # its index entry is gone


def test_the_challenger_cancels_and_the_challenged_is_told(app, client):
    ann, bob = session(client, "Ann"), session(client, "Bob")
    stream = client.get("/v1/me/stream", headers=bearer(bob), buffered=False)
    next(messages(stream))
    made = challenge(client, ann, invite=["Bob"])
    refused = client.post(f"/v1/challenges/{made['id']}/cancel", headers=bearer(bob))
    assert refused.status_code == 403 and refused.get_json()["code"] == "NOT_CHALLENGER"
    assert client.post(f"/v1/challenges/{made['id']}/cancel", headers=bearer(ann)).status_code == 200
    assert first_of(stream, "challenge_canceled")["id"] == made["id"]
    stream.close()


def test_an_open_challenge_is_filled_seat_by_seat_and_starts_on_the_last(app, client):
    ann, bob, cid = session(client, "Ann"), session(client, "Bob"), session(client, "Cid")
    made = client.post(
        "/v1/challenges",
        json={
            "game": "condottiere",
            "config": {"players": 4},
            "open_seats": 2,
            "invite": ["Bob"],
            "anonymous": True,
        },
        headers=bearer(ann),
    )
    assert made.status_code == 201, made.get_json()
    made = made.get_json()
    listed = client.get("/v1/challenges/open").get_json()["challenges"]
    assert [c["id"] for c in listed] == [made["id"]]
    first = client.post(f"/v1/challenges/{made['id']}/accept", json={}, headers=bearer(cid)).get_json()
    assert first["started"] is False and first["token"] is None
    again = client.post(f"/v1/challenges/{made['id']}/accept", json={}, headers=bearer(cid))
    assert again.status_code == 409 and again.get_json()["code"] == "ALREADY_SEATED"
    guest = client.post(f"/v1/challenges/{made['id']}/accept", json={"name": "Dee"})
    assert guest.status_code == 200, guest.get_json()
    guest = guest.get_json()
    assert guest["started"] is False and guest["token"]
    assert client.get(f"/v1/games/{made['id']}").status_code == 404  # Bob has not answered
    last = client.post(f"/v1/challenges/{made['id']}/accept", json={}, headers=bearer(bob)).get_json()
    assert last["started"] is True
    summary = client.get(f"/v1/games/{made['id']}").get_json()
    assert sorted(s["name"] for s in summary["seats"]) == ["Ann", "Bob", "Cid", "Dee"]
    view = client.get(f"/v1/games/{made['id']}/view", headers=bearer(guest["token"]))
    assert view.status_code == 200 and view.get_json()["seat"] == guest["seat"]
    assert client.get("/v1/challenges/open").get_json()["challenges"] == []


def test_bots_fill_their_seats_and_the_challengers_given_order_holds(app, client):
    ann, bob = session(client, "Ann"), session(client, "Bob")
    made = client.post(
        "/v1/challenges",
        json={
            "game": "condottiere",
            "config": {"players": 3},
            "seat_order": "given",
            "seats": {"0": "Bob", "2": "Ann"},
            "bots": {"1": "random"},
        },
        headers=bearer(ann),
    ).get_json()
    assert [(s["seat"], s["name"], s["kind"]) for s in made["seats"]] == [
        (0, "Bob", "account"),
        (1, "random bot", "bot"),
        (2, "Ann", "account"),
    ]
    assert client.post(f"/v1/challenges/{made['id']}/accept", json={}, headers=bearer(bob)).get_json()[
        "started"
    ]
    summary = client.get(f"/v1/games/{made['id']}").get_json()
    assert [(s["name"], s["kind"]) for s in summary["seats"]] == [
        ("Bob", "human"),
        ("random bot", "bot"),
        ("Ann", "human"),
    ]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"game": "toy", "invite": ["Nobody"]}, 422, "UNKNOWN_ACCOUNT"),
        ({"game": "toy", "invite": ["Ann"]}, 422, "INVALID_CHALLENGE"),
        ({"game": "toy", "invite": []}, 422, "INVALID_CHALLENGE"),
        ({"game": "toy", "invite": ["Bob"], "open_seats": 1}, 422, "INVALID_CHALLENGE"),
        ({"game": "nope", "invite": ["Bob"]}, 422, "UNKNOWN_GAME"),
        ({"game": "toy", "invite": ["Bob"], "surprise": 1}, 422, "VALIDATION_ERROR"),
        ({"game": "toy", "seat_order": "given", "seats": {"0": "Bob"}}, 422, "INVALID_CHALLENGE"),
    ],
)
def test_bad_challenges_are_problems_and_change_nothing(app, client, redis_client, body, status, code):
    ann, _ = session(client, "Ann"), session(client, "Bob")
    before = redis_dump(redis_client)
    refused = client.post("/v1/challenges", json=body, headers=bearer(ann))
    assert refused.status_code == status, refused.get_json()
    assert refused.headers["Content-Type"].startswith("application/problem+json")
    assert refused.get_json()["code"] == code
    after = redis_dump(redis_client)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert {k for k in changed if not k.startswith((b"acct:", b"LIMITS", b"limits"))} == set()


def test_a_decline_needs_a_known_reason_and_an_invitee(app, client):
    ann, bob, cid = session(client, "Ann"), session(client, "Bob"), session(client, "Cid")
    made = challenge(client, ann, invite=["Bob"])
    bad = client.post(f"/v1/challenges/{made['id']}/decline", json={"reason": "busy"}, headers=bearer(bob))
    assert bad.status_code == 422
    stranger = client.post(f"/v1/challenges/{made['id']}/decline", json={}, headers=bearer(cid))
    assert stranger.status_code == 403 and stranger.get_json()["code"] == "NOT_INVITED"
    taker = client.post(f"/v1/challenges/{made['id']}/accept", json={}, headers=bearer(cid))
    assert taker.status_code == 403 and taker.get_json()["code"] == "NOT_INVITED"
    anonymous = client.post(f"/v1/challenges/{made['id']}/accept", json={})
    assert anonymous.status_code == 401
    assert client.get(f"/v1/challenges/{made['id']}").get_json()["status"] == "pending"
    assert client.get("/v1/challenges/nothere").status_code == 404


def test_two_last_answers_at_once_make_one_game(app, client):
    """Both invitees of a three-seat challenge accept at once: one game, every seat bound."""
    ann, bob, cid = session(client, "Ann"), session(client, "Bob"), session(client, "Cid")
    made = client.post(
        "/v1/challenges",
        json={"game": "condottiere", "config": {"players": 3}, "invite": ["Bob", "Cid"]},
        headers=bearer(ann),
    ).get_json()
    answers = {}

    def accept(token):
        answers[token] = app.test_client().post(
            f"/v1/challenges/{made['id']}/accept", json={}, headers=bearer(token)
        )

    threads = [threading.Thread(target=accept, args=(t,)) for t in (bob, cid)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(DEADLINE_SECONDS)
    assert all(a.status_code == 200 for a in answers.values()), [a.get_json() for a in answers.values()]
    assert sum(a.get_json()["started"] for a in answers.values()) == 1
    summary = client.get(f"/v1/games/{made['id']}").get_json()
    assert summary["status"] == "active" and summary["version"] > 0


def test_a_deleted_account_s_pending_challenges_index_is_cleared(app, client, redis_client):
    ann, bob = session(client, "Ann"), session(client, "Bob")
    made = challenge(client, ann, invite=["Bob"])
    indexes = set(redis_client.scan_iter(match="chal-acct:*"))
    assert len(indexes) == 2  # each party's index lists the pending challenge
    assert all(redis_client.zrange(key, 0, -1) == [made["id"].encode()] for key in indexes)
    deleted = client.delete("/v1/me", json={"password": "correct horse"}, headers=bearer(bob))
    assert deleted.status_code == 204
    (left,) = set(redis_client.scan_iter(match="chal-acct:*"))  # Bob's is gone, Ann's stays
    assert client.get("/v1/challenges", headers=bearer(ann)).get_json()["outgoing"][0]["id"] == made["id"]
    assert left in indexes
