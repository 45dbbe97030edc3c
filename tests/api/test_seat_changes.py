"""Leaving a seat before the start, and the rematch of a finished game, over HTTP: each refusal is a
problem document with a stable code and changes nothing."""

from __future__ import annotations

import pytest

from service import bot_turns
from tests import app_fixtures
from tests.api.conftest import redis_dump
from tests.api.test_accounts import FAST_HASH, bearer, session
from tests.api.test_me_stream import messages

PROBLEM = "application/problem+json"


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(
        redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH, SSE_HEARTBEAT_SECONDS=0.2
    )


def _open_toy(client, **create) -> str:
    created = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}, **create})
    assert created.status_code == 201, created.get_json()
    return created.get_json()["id"]


def _claim(client, game_id: str, name: str | None = None, seat: int | None = None, headers=None) -> dict:
    body: dict = {} if seat is None else {"seat": seat}
    if name is not None:
        body["name"] = name
    claimed = client.post(f"/v1/games/{game_id}/seats", json=body, headers=headers or {})
    assert claimed.status_code == 201, claimed.get_json()
    return claimed.get_json()


def _seats(client, game_id: str) -> list[dict]:
    return client.get(f"/v1/games/{game_id}").get_json()["seats"]


def _refused(answer, status: int, code: str) -> None:
    assert answer.status_code == status, answer.get_json()
    assert answer.mimetype == PROBLEM and answer.get_json()["code"] == code


def test_a_seat_left_before_the_start_is_free_again(client):
    game_id = _open_toy(client)
    ann = _claim(client, game_id, "Ann", seat=0)
    left = client.delete(f"/v1/games/{game_id}/seats/0", headers=bearer(ann["token"]))
    assert left.status_code == 204
    assert _seats(client, game_id)[0] == {
        "seat": 0,
        "claimed": False,
        "name": None,
        "kind": None,
        "bot": None,
    }
    # the old token holds nothing now; someone else takes the seat and the game starts
    _refused(
        client.delete(f"/v1/games/{game_id}/seats/0", headers=bearer(ann["token"])), 401, "INVALID_TOKEN"
    )
    assert _claim(client, game_id, "Cid", seat=0)["name"] == "Cid"
    assert _claim(client, game_id, "Bob", seat=1)["started"] is True


def test_an_account_leaves_its_seat_with_its_account_token_and_no_longer_lists_the_game(client):
    ann = session(client, "Ann")
    game_id = _open_toy(client)
    _claim(client, game_id, seat=1, headers=bearer(ann))
    listed = client.get("/v1/me/games", headers=bearer(ann)).get_json()["running"]
    assert [(g["game_id"], g["status"]) for g in listed] == [(game_id, "open")]
    assert client.delete(f"/v1/games/{game_id}/seats/1", headers=bearer(ann)).status_code == 204
    assert _seats(client, game_id)[1]["claimed"] is False
    assert client.get("/v1/me/games", headers=bearer(ann)).get_json()["running"] == []
    # the account may sit down again (it holds no seat of the game any more)
    assert _claim(client, game_id, seat=0, headers=bearer(ann))["seat"] == 0


def test_leaving_another_seat_or_a_started_game_is_refused_and_changes_nothing(client, redis_client):
    game_id = _open_toy(client)
    ann = _claim(client, game_id, "Ann", seat=0)
    before = redis_dump(redis_client)
    _refused(
        client.delete(f"/v1/games/{game_id}/seats/1", headers=bearer(ann["token"])), 403, "NOT_YOUR_SEAT"
    )
    _refused(client.delete(f"/v1/games/{game_id}/seats/0"), 401, "INVALID_TOKEN")
    _refused(
        client.delete(f"/v1/games/{game_id}/seats/0", headers=bearer("cst_" + "x" * 40)), 401, "INVALID_TOKEN"
    )
    _refused(
        client.delete("/v1/games/nosuchgame/seats/0", headers=bearer(ann["token"])), 404, "GAME_NOT_FOUND"
    )
    assert redis_dump(redis_client) == before
    _claim(client, game_id, "Bob", seat=1)
    started = redis_dump(redis_client)
    _refused(client.delete(f"/v1/games/{game_id}/seats/0", headers=bearer(ann["token"])), 409, "GAME_STARTED")
    assert redis_dump(redis_client) == started


def _play_out(client, svc, game_id: str, tokens: dict[int, str]) -> None:
    for _ in range(20):
        summary = client.get(f"/v1/games/{game_id}").get_json()
        if summary["status"] == "finished":
            return
        seat = summary["awaiting"][0]
        if seat not in tokens:
            bot_turns.play_bot_turns(svc, game_id)
            continue
        view = client.get(f"/v1/games/{game_id}/view", headers=bearer(tokens[seat])).get_json()["view"]
        moved = client.post(
            f"/v1/games/{game_id}/moves",
            json={"command": view["legal_moves"][0]},
            headers=bearer(tokens[seat]),
        )
        assert moved.status_code == 200, moved.get_json()
    raise AssertionError("the toy game did not end")


def test_a_rematch_every_seat_accepts_starts_a_new_game_with_the_seats_rotated(client, svc):
    ann_account = session(client, "Ann")
    game_id = _open_toy(client)
    ann = _claim(client, game_id, seat=0, headers=bearer(ann_account))
    bob = _claim(client, game_id, "Bob", seat=1)
    _play_out(client, svc, game_id, {0: ann["token"], 1: bob["token"]})

    offered = client.post(f"/v1/games/{game_id}/rematch", headers=bearer(ann_account))
    assert offered.status_code == 200, offered.get_json()
    waiting = offered.get_json()
    assert {k: waiting[k] for k in ("game_id", "accepted", "waiting_for", "rematch")} == {
        "game_id": game_id,
        "accepted": [0],
        "waiting_for": [1],
        "rematch": None,
    }
    assert waiting["seat"] == 1 and waiting["token"]  # her seat in the rematch, its token issued now
    assert client.get(f"/v1/games/{game_id}/rematch").get_json()["waiting_for"] == [1]

    accepted = client.post(f"/v1/games/{game_id}/rematch", headers=bearer(bob["token"]))
    assert accepted.status_code == 201, accepted.get_json()
    body = accepted.get_json()
    new_id = body["rematch"]
    assert body["seat"] == 0 and body["waiting_for"] == [] and accepted.headers["Location"].endswith(new_id)
    summary = client.get(f"/v1/games/{new_id}").get_json()
    assert summary["status"] == "active" and summary["game"] == "toy"
    assert [s["name"] for s in summary["seats"]] == ["Bob", "Ann"]  # each moved one seat on
    assert summary["config"]["hand_size"] == 1
    assert client.get(f"/v1/games/{new_id}/view", headers=bearer(body["token"])).get_json()["seat"] == 0
    # The token Ann was issued when she offered plays her new seat; so does her account token.
    assert client.get(f"/v1/games/{new_id}/view", headers=bearer(waiting["token"])).get_json()["seat"] == 1
    assert client.get(f"/v1/games/{new_id}/view", headers=bearer(ann_account)).get_json()["seat"] == 1
    # Nobody's token was rotated to seat them: the new game's log has no such event.
    assert all(e.event.get("type") != "seat_token_rotated" for e in svc.store.read_events(new_id))
    # one rematch only: the same game again, never a second one; accepting again rotates a token
    again = client.post(f"/v1/games/{game_id}/rematch", headers=bearer(ann["token"]))
    assert (
        again.status_code == 201 and again.get_json()["rematch"] == new_id and again.get_json()["seat"] == 1
    )
    assert (
        client.get(f"/v1/games/{new_id}/view", headers=bearer(again.get_json()["token"])).get_json()["seat"]
        == 1
    )
    assert client.get(f"/v1/games/{game_id}/rematch").get_json()["rematch"] == new_id


def test_bots_accept_a_rematch_at_once_and_keep_their_level(client, svc):
    game_id = _open_toy(client, bots={"1": "random"})
    ann = _claim(client, game_id, "Ann", seat=0)
    _play_out(client, svc, game_id, {0: ann["token"]})
    answer = client.post(f"/v1/games/{game_id}/rematch", headers=bearer(ann["token"]))
    assert answer.status_code == 201, answer.get_json()
    seats = _seats(client, answer.get_json()["rematch"])
    assert (seats[0]["kind"], seats[0]["bot"]) == ("bot", "random") and seats[1]["name"] == "Ann"


def test_a_rematch_of_a_running_game_or_without_a_seat_is_refused_and_changes_nothing(client, redis_client):
    game_id = _open_toy(client)
    ann = _claim(client, game_id, "Ann", seat=0)
    _claim(client, game_id, "Bob", seat=1)
    before = redis_dump(redis_client)
    _refused(client.post(f"/v1/games/{game_id}/rematch", headers=bearer(ann["token"])), 409, "GAME_NOT_OVER")
    _refused(client.post(f"/v1/games/{game_id}/rematch"), 401, "INVALID_TOKEN")
    _refused(client.post("/v1/games/nosuchgame/rematch", headers=bearer(ann["token"])), 404, "GAME_NOT_FOUND")
    assert redis_dump(redis_client) == before


def test_the_finished_game_s_stream_announces_the_rematch_as_it_is_accepted(client, svc):
    """With ?rematch=true the stream stays open after `event: end`: an `event: rematch` now and at
    each acceptance, the last naming the new game; then it ends."""
    game_id = _open_toy(client)
    ann = _claim(client, game_id, "Ann", seat=0)
    bob = _claim(client, game_id, "Bob", seat=1)
    _play_out(client, svc, game_id, {0: ann["token"], 1: bob["token"]})
    stream = client.get(f"/v1/games/{game_id}/stream?rematch=true", buffered=False)
    assert stream.status_code == 200
    told = messages(stream)
    kinds = []
    for kind, _, data in told:
        kinds.append(kind)
        if kind == "rematch":
            assert data == {"game_id": game_id, "accepted": [], "waiting_for": [0, 1], "rematch": None}
            break
    assert "end" in kinds and kinds.index("end") < kinds.index("rematch")
    assert client.post(f"/v1/games/{game_id}/rematch", headers=bearer(ann["token"])).status_code == 200
    kind, _, data = next(told)
    assert (kind, data["accepted"], data["rematch"]) == ("rematch", [0], None)
    made = client.post(f"/v1/games/{game_id}/rematch", headers=bearer(bob["token"])).get_json()["rematch"]
    kind, _, data = next(told)
    assert (kind, data["accepted"], data["rematch"]) == ("rematch", [0, 1], made)
    assert list(told) == []  # and the stream ends
    # without the option the stream ends at `event: end`, as it always did
    plain = [kind for kind, _, _ in messages(client.get(f"/v1/games/{game_id}/stream", buffered=False))]
    assert plain[-1] == "end"
