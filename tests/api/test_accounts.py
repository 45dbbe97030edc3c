"""Accounts over HTTP (issue 31): sign-up, sign-in, sign-out, password change, personal access
tokens and their scopes, seats claimed as an account and played from another client."""

from __future__ import annotations

import argon2
import pytest

from tests import app_fixtures

# Argon2id with tiny parameters: the tests check the protocol, not the cost (bench/signin_timing.py
# measures the real parameters).
FAST_HASH = argon2.Parameters(
    type=argon2.Type.ID, version=19, salt_len=16, hash_len=32, time_cost=1, memory_cost=8, parallelism=1
)


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(
        redis_server, SSE_HEARTBEAT_SECONDS=0.2, PASSWORD_HASH_PARAMETERS=FAST_HASH
    )


def sign_up(client, handle="Ann", password="correct horse", **extra):
    return client.post("/v1/accounts", json={"handle": handle, "password": password, **extra})


def sign_in(client, handle="Ann", password="correct horse"):
    return client.post("/v1/sessions", json={"handle": handle, "password": password})


def session(client, handle="Ann", password="correct horse", **extra) -> str:
    """A new account's session token (``bot=True``: a bot account)."""
    assert sign_up(client, handle, password, **extra).status_code == 201
    answer = sign_in(client, handle, password)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["token"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def personal_token(client, token: str, scopes: list[str], name: str = "bot") -> str:
    made = client.post("/v1/me/tokens", json={"name": name, "scopes": scopes}, headers=bearer(token))
    assert made.status_code == 201, made.get_json()
    return made.get_json()["token"]


def toy_game(client) -> str:
    created = client.post("/v1/games", json={"game": "toy", "config": {"seed": 7, "hand_size": 3}})
    assert created.status_code == 201
    return created.get_json()["id"]


def test_sign_up_sign_in_and_me(client, redis_client):
    created = sign_up(client)
    assert created.status_code == 201
    assert created.get_json()["handle"] == "Ann" and created.get_json()["bot"] is False
    answer = sign_in(client)
    assert answer.status_code == 201
    token = answer.get_json()["token"]
    assert token.startswith("csa_")  # a secret scanner's prefix
    assert answer.headers["Cache-Control"] == "no-store"
    me = client.get("/v1/me", headers=bearer(token))
    assert me.status_code == 200
    assert me.get_json()["handle"] == "Ann"
    assert set(me.get_json()["scopes"]) == {"play", "read", "webhooks", "account"}
    # Nothing in Redis holds the token or the password, only their hashes.
    for key in redis_client.keys("*"):
        dumped = repr(redis_client.dump(key))
        assert "correct horse" not in dumped
        assert token.split(".")[-1] not in dumped


def test_handles_are_unique_without_regard_to_case_after_nfc(client):
    assert sign_up(client, "Zoë").status_code == 201
    for other in ("zoë", "ZOË", "Zoe\u0308"):  # the last: decomposed, NFC makes it "Zoë"
        taken = sign_up(client, other)
        assert taken.status_code == 409, other
        assert taken.get_json()["code"] == "HANDLE_TAKEN"
    assert sign_up(client, "Zoe").status_code == 201  # no diaeresis: another handle


def test_handles_follow_the_seat_name_rules(client):
    for bad in ("", "   ", "a\u202eb", "x" * 41):
        refused = sign_up(client, bad)
        assert refused.status_code == 422, bad
        assert refused.get_json()["code"] == "VALIDATION_ERROR"
    assert sign_up(client, "Ann", password="short").status_code == 422


def test_wrong_handle_and_wrong_password_get_the_same_answer(client):
    assert sign_up(client).status_code == 201
    wrong_password = sign_in(client, "Ann", "not the password")
    wrong_handle = sign_in(client, "Nobody", "correct horse")
    assert wrong_password.status_code == wrong_handle.status_code == 401
    assert wrong_password.get_json() == wrong_handle.get_json()
    assert wrong_password.get_json()["code"] == "INVALID_CREDENTIALS"
    assert dict(wrong_password.headers) == dict(wrong_handle.headers)


def test_sign_out_ends_the_session(client):
    token = session(client)
    assert client.delete("/v1/sessions/current", headers=bearer(token)).status_code == 204
    refused = client.get("/v1/me", headers=bearer(token))
    assert refused.status_code == 401
    assert refused.get_json()["code"] == "INVALID_TOKEN"


def test_password_change_needs_the_current_one_and_ends_other_sessions(client):
    token = session(client)
    other = sign_in(client).get_json()["token"]
    wrong = client.post(
        "/v1/me/password", json={"current": "nope", "new": "battery staple"}, headers=bearer(token)
    )
    assert wrong.status_code == 401
    changed = client.post(
        "/v1/me/password", json={"current": "correct horse", "new": "battery staple"}, headers=bearer(token)
    )
    assert changed.status_code == 204
    assert client.get("/v1/me", headers=bearer(other)).status_code == 401
    assert client.get("/v1/me", headers=bearer(token)).status_code == 200
    assert sign_in(client).status_code == 401
    assert sign_in(client, password="battery staple").status_code == 201


def test_personal_tokens_are_listed_by_name_and_revoked(client):
    token = session(client)
    pat = personal_token(client, token, ["read"], name="scoreboard")
    assert pat.startswith("csp_")
    listed = client.get("/v1/me/tokens", headers=bearer(token)).get_json()["tokens"]
    assert [(t["name"], t["scopes"]) for t in listed] == [("scoreboard", ["read"])]
    assert listed[0]["last_used"] is None
    assert "token" not in listed[0] and pat not in str(listed)
    assert client.get("/v1/me", headers=bearer(pat)).status_code == 200
    listed = client.get("/v1/me/tokens", headers=bearer(token)).get_json()["tokens"]
    assert listed[0]["last_used"] is not None
    revoked = client.delete(f"/v1/me/tokens/{listed[0]['id']}", headers=bearer(token))
    assert revoked.status_code == 204
    assert client.get("/v1/me", headers=bearer(pat)).status_code == 401


def test_a_read_token_cannot_make_tokens(client):
    token = session(client)
    pat = personal_token(client, token, ["read", "play"])
    refused = client.post("/v1/me/tokens", json={"name": "x", "scopes": ["account"]}, headers=bearer(pat))
    assert refused.status_code == 403
    assert refused.get_json()["code"] == "INSUFFICIENT_SCOPE"


def test_last_use_writes_are_coalesced(app, client, redis_client):
    """A token used many times within a minute is written back once (not once per request)."""
    token = session(client)
    pat = personal_token(client, token, ["read"])
    accounts = app.extensions["account_service"]
    writes = []
    original = accounts.store.note_uses
    accounts.store.note_uses = lambda uses: (writes.append(uses), original(uses))[1]
    for _ in range(20):
        assert client.get("/v1/me", headers=bearer(pat)).status_code == 200
    accounts.flush_uses(force=True)
    written = [tid for uses in writes for times in uses.values() for tid in times]
    pat_id = pat.split(".")[1]
    assert written.count(pat_id) == 1


def test_a_bot_account_is_marked(client):
    assert sign_up(client, "Robo", bot=True).status_code == 201
    assert client.get("/v1/players/robo").get_json()["bot"] is True


# -- seats claimed as an account -----------------------------------------------------------------


def test_claim_as_account_and_resume_from_another_client_without_the_seat_token(app, client):
    token = session(client)
    game = toy_game(client)  # seat 0 moves first
    claimed = client.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=bearer(token))
    assert claimed.status_code == 201, claimed.get_json()
    ann = claimed.get_json()
    assert ann["name"] == "Ann" and ann["token"].startswith("cst_")  # the seat token still comes
    assert client.post(f"/v1/games/{game}/seats", json={"name": "Bob"}).get_json()["started"]
    # A second client signs in (another session) and never saw the seat token.
    second = app.test_client()
    other = sign_in(second).get_json()["token"]
    listed = second.get("/v1/me/games", headers=bearer(other)).get_json()
    assert [(g["game_id"], g["your_turn"]) for g in listed["running"]] == [(game, True)]
    view = second.get(f"/v1/games/{game}/view", headers=bearer(other)).get_json()
    assert view["seat"] == 0
    assert view["view"]["hand"]  # the seat's own view, its hidden cards included
    move = view["view"]["legal_moves"][0]
    moved = second.post(f"/v1/games/{game}/moves", json={"command": move}, headers=bearer(other))
    assert moved.status_code == 200, moved.get_json()
    assert moved.get_json()["version"] == view["version"] + 1
    # The seat token still works too.
    assert client.get(f"/v1/games/{game}/view", headers=bearer(ann["token"])).get_json()["seat"] == 0


def started_game(client, token) -> tuple[str, dict, dict]:
    """A toy game where Ann (the account) holds seat 0, which moves first, and Bob seat 1."""
    game = toy_game(client)
    ann = client.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=bearer(token)).get_json()
    bob = client.post(f"/v1/games/{game}/seats", json={"name": "Bob", "seat": 1}).get_json()
    assert bob["started"]
    return game, ann, bob


def first_move(client, game, token) -> dict:
    return client.get(f"/v1/games/{game}/view", headers=bearer(token)).get_json()["view"]["legal_moves"][0]


def test_a_read_token_is_refused_play_with_a_problem_document(app, client, redis_client):
    """On both paths of a move: the Flask route and the WSGI fast path in front of it."""
    from tests.api.conftest import redis_dump

    token = session(client)
    game, ann, _ = started_game(client, token)
    reader = personal_token(client, token, ["read"])
    command = first_move(client, game, ann["token"])
    before = redis_dump(redis_client)
    for origin in ({}, {"Origin": "http://example.test"}):  # an Origin sends it through Flask
        refused = client.post(
            f"/v1/games/{game}/moves", json={"command": command}, headers={**bearer(reader), **origin}
        )
        assert refused.status_code == 403
        assert refused.headers["Content-Type"] == "application/problem+json"
        assert refused.get_json()["code"] == "INSUFFICIENT_SCOPE"
    assert redis_dump(redis_client) == before  # a refused request changes nothing
    # The read token does read the seat's view.
    assert client.get(f"/v1/games/{game}/view", headers=bearer(reader)).get_json()["seat"] == 0
    player = personal_token(client, token, ["play"], name="player")
    assert (
        client.post(f"/v1/games/{game}/moves", json={"command": command}, headers=bearer(player)).status_code
        == 200
    )


def test_another_accounts_token_cannot_play_or_see_the_seat(client):
    ann_token = session(client)
    game, _, _ = started_game(client, ann_token)
    eve_token = session(client, "Eve")
    refused = client.get(f"/v1/games/{game}/view", headers=bearer(eve_token))
    assert refused.status_code == 403 and refused.get_json()["code"] == "NOT_SEATED"
    assert "hand" not in str(refused.get_json())
    moved = client.post(
        f"/v1/games/{game}/moves", json={"command": {"type": "pass"}}, headers=bearer(eve_token)
    )
    assert moved.status_code == 403


def test_an_account_holds_one_seat_of_a_game(client):
    token = session(client)
    game = toy_game(client)
    assert client.post(f"/v1/games/{game}/seats", json={}, headers=bearer(token)).status_code == 201
    again = client.post(f"/v1/games/{game}/seats", json={}, headers=bearer(token))
    assert again.status_code == 409 and again.get_json()["code"] == "ALREADY_SEATED"


def test_the_seat_token_is_fetched_again_with_the_account_token(client):
    token = session(client)
    game, ann, _ = started_game(client, token)
    fetched = client.post(f"/v1/games/{game}/seats/0/token", headers=bearer(token))
    assert fetched.status_code == 200, fetched.get_json()
    new = fetched.get_json()["token"]
    assert new != ann["token"] and fetched.headers["Cache-Control"] == "no-store"
    assert client.get(f"/v1/games/{game}/view", headers=bearer(ann["token"])).status_code == 401
    assert client.get(f"/v1/games/{game}/view", headers=bearer(new)).get_json()["seat"] == 0
    assert client.post(f"/v1/games/{game}/seats/1/token", headers=bearer(token)).status_code == 403
    reader = personal_token(client, token, ["read"])
    refused = client.post(f"/v1/games/{game}/seats/0/token", headers=bearer(reader))
    assert refused.status_code == 403 and refused.get_json()["code"] == "INSUFFICIENT_SCOPE"


def test_account_tokens_appear_in_no_answer_of_the_game(client):
    token = session(client)
    game, ann, bob = started_game(client, token)
    pat = personal_token(client, token, ["play", "read"])
    secrets = [token.split(".")[-1], pat.split(".")[-1]]
    answers = [
        client.get(f"/v1/games/{game}"),
        client.get(f"/v1/games/{game}/view"),
        client.get(f"/v1/games/{game}/view", headers=bearer(bob["token"])),
        client.get(f"/v1/games/{game}/events"),
        client.get(f"/v1/games/{game}/events", headers=bearer(pat)),
        client.post(f"/v1/games/{game}/moves", json={"command": {"type": "nope"}}, headers=bearer(pat)),
        client.get("/v1/games"),
        client.get("/v1/players/ann"),
        client.get("/v1/me/games", headers=bearer(pat)),
        client.get("/v1/me/tokens", headers=bearer(token)),
    ]
    for answer in answers:
        for secret in secrets:
            assert secret not in answer.get_data(as_text=True), answer.request.path


def test_a_seats_export_job_is_served_to_its_account_and_not_to_another(client, run_jobs):
    """A running game's export made with the account's token is that seat's: another account's
    token is refused like another seat's (404, as for an unknown job), and no answer of the job
    carries a token."""
    token = session(client)
    game, ann, _ = started_game(client, token)
    eve = session(client, "Eve")
    started = client.post(f"/v1/games/{game}/exports", json={"format": "log"}, headers=bearer(token))
    assert started.status_code == 202, started.get_json()
    job = started.headers["Location"]
    run_jobs()
    mine = client.get(job, headers=bearer(token))
    assert mine.status_code == 200 and mine.get_json()["params"]["viewer"] == 0
    assert client.get(job, headers=bearer(eve)).status_code == 404
    assert client.get(job, headers=bearer(ann["token"])).status_code == 200  # the same seat
    result = client.get(f"{job}/result", headers=bearer(token))
    assert result.status_code == 200
    for answer in (started, mine, result):
        text = answer.get_data(as_text=True)
        assert token.split(".")[-1] not in text and ann["token"] not in text


def test_an_anonymous_claim_ignores_any_other_authorization_header_as_before(client):
    game = toy_game(client)
    for header in ("Basic dXNlcjpwYXNz", "Bearer cst_not-a-seat-of-this-game", "Bearer"):
        claimed = client.post(
            f"/v1/games/{game}/seats", json={"name": "Ann"}, headers={"Authorization": header}
        )
        assert claimed.status_code == 201, (header, claimed.get_json())
        game = toy_game(client)
    refused = client.post(f"/v1/games/{game}/seats", json={"name": "Ann"}, headers=bearer("csa_x.y.z"))
    assert refused.status_code == 401  # an account token that is not one is never ignored


def test_a_creation_killed_after_claiming_the_handle_frees_it_when_its_record_expires(
    app, client, redis_client
):
    """Sign-up writes the record (expiring), claims the handle, then keeps the record: a process
    killed in between leaves a handle naming a record that expires, which the next sign-up takes."""
    from service.accounts import fold_handle
    from store.accounts import PENDING_RECORD_SECONDS, account_keys

    store = app.extensions["account_service"].store
    store.write_pending("deadbeef" * 2 + "0000", {"handle": "Ann", "folded": "ann", "password": "x"})
    assert store.claim_handle(fold_handle("Ann"), "deadbeef" * 2 + "0000")  # ... then killed
    record = account_keys("deadbeef" * 2 + "0000").record
    assert 0 < redis_client.ttl(record) <= PENDING_RECORD_SECONDS
    assert sign_up(client).status_code == 409  # not yet: the record may still be confirmed
    redis_client.delete(record)  # what its expiry does
    assert sign_up(client).status_code == 201
    assert sign_in(client).status_code == 201


def test_an_account_token_follows_its_seats_streams_and_takes_stream_tickets(client):
    """The view stream, the event stream and a stream ticket with the account's token: the seat's
    own view (its hand), not the spectator's."""
    from tests.api.sse import read_messages

    token = session(client)
    game, ann, _ = started_game(client, token)
    stream = client.get(f"/v1/games/{game}/view/stream", headers=bearer(token), buffered=False)
    assert stream.status_code == 200, stream.get_json()
    first = next(m for m in read_messages(stream.response) if m.event == "view")
    stream.close()
    assert first.data["seat"] == 0 and first.data["view"]["hand"]
    ticket = client.post(f"/v1/games/{game}/stream-tickets", headers=bearer(token))
    assert ticket.status_code == 201, ticket.get_json()
    events = client.get(ticket.get_json()["stream"], buffered=False)
    assert events.status_code == 200
    events.close()


def test_two_sessions_of_one_account_play_its_seat_at_once_without_a_rotation(app, client):
    """An account-bound seat is the account's: two devices signed in (two sessions) both move it
    with the account's token, and the claim's seat token still works; nothing is rotated, so the
    log records no ``seat_token_rotated`` (nobody is told of anything)."""
    first = session(client)
    game, ann, bob = started_game(client, first)
    second_client = app.test_client()
    second = sign_in(second_client).get_json()["token"]
    for mover, token in (
        (client, first),
        (None, None),
        (second_client, second),
        (None, None),
        (client, ann["token"]),
    ):
        if mover is None:  # Bob's turn in between
            moved = client.post(
                f"/v1/games/{game}/moves",
                json={"command": first_move(client, game, bob["token"])},
                headers=bearer(bob["token"]),
            )
        else:
            moved = mover.post(
                f"/v1/games/{game}/moves",
                json={"command": first_move(mover, game, token)},
                headers=bearer(token),
            )
        assert moved.status_code == 200, moved.get_json()
    events = client.get(f"/v1/games/{game}/events?limit=500").get_json()
    kinds = [e["event"]["type"] if "event" in e else e.get("type") for e in events.get("events", [])]
    assert kinds and "seat_token_rotated" not in kinds, kinds
    for token in (first, second, ann["token"]):
        assert client.get(f"/v1/games/{game}/view", headers=bearer(token)).get_json()["seat"] == 0
