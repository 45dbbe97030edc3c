"""What an account token may obtain, and what ends with it, over HTTP.

Scopes follow the capability, not the route: whatever hands out a seat credential (a device link,
the seat-token route) needs ``play``, a stream ticket ``read``, and no token makes a token with a
scope it lacks. Revoking an account token (by its owner, a password change, the account's
deletion) ends, within one heartbeat and in every web process, every stream it opened (with
``event: revoked``), and voids the stream tickets and device links it took. The account's
personal tokens are capped by refusal, never by silently dropping the oldest. An out-of-range
``Last-Event-ID`` on the account's stream is refused before the stream opens."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from service.account_tokens import MOST_PERSONAL_TOKENS
from tests import app_fixtures
from tests.api.conftest import redis_dump
from tests.api.sse import Message, read_messages
from tests.api.test_accounts import FAST_HASH, bearer, personal_token, session, started_game
from tests.api.test_errors import assert_problem

pytestmark = pytest.mark.timeout(300)

HEARTBEAT = 0.2
# How long a revoked stream may take to say so: one heartbeat (0.2 s) on an idle machine; a loaded
# one is given much longer (the bound only ends a broken test, it orders nothing).
REVOCATION_BOUND_SECONDS = 30
CONFIG = {"SSE_HEARTBEAT_SECONDS": HEARTBEAT, "PASSWORD_HASH_PARAMETERS": FAST_HASH}


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, **CONFIG)


@pytest.fixture()
def other(redis_client, redis_server):
    """A second web process on the same Redis (its own live reader, cache and connections)."""
    yield from app_fixtures.make_app(redis_server, **CONFIG)


class Stream:
    """One SSE stream of a Flask test client, read message by message."""

    def __init__(self, client, path: str, headers: dict[str, str]):
        self.response = client.get(path, headers=headers, buffered=False)
        assert self.response.status_code == 200, self.response.get_data()
        self.messages: list[Message] = []
        self._reader: Iterator[Message] = read_messages(self.response.response)

    def until(self, done, bound: float = REVOCATION_BOUND_SECONDS) -> Message:
        """Read until ``done(message)``; fails after ``bound`` seconds (heartbeats keep it reading)."""
        deadline = time.monotonic() + bound
        for message in self._reader:
            self.messages.append(message)
            if done(message):
                return message
            assert time.monotonic() < deadline, f"nothing ended the stream: {self.messages[-5:]}"
        raise AssertionError(f"the stream closed without saying why: {self.messages[-5:]}")

    def assert_revoked(self, what: str, reasons: tuple[str, ...] = ("account_token_revoked",)) -> None:
        last = self.until(lambda m: m.event in ("revoked", "end"))
        assert last.event == "revoked", f"{what} went on after the revocation: {last}"
        # The account's stream names the event in its data too (AccountStreamEvent's `type`).
        named = {"type": "revoked"} if what == "account stream" else {}
        assert last.data in [{**named, "reason": reason} for reason in reasons], (what, last.data)
        assert list(self._reader) == [], f"{what} sent something after saying it was revoked"
        self.response.close()


def open_seat_streams(web, game: str, token: str) -> dict[str, Stream]:
    """The seat's view stream and event stream, and the account's own stream, each read past its
    first message, in the web process ``web``."""
    streams = {
        "view stream": Stream(web, f"/v1/games/{game}/view/stream", bearer(token)),
        "event stream": Stream(web, f"/v1/games/{game}/stream", bearer(token)),
        "account stream": Stream(web, "/v1/me/stream", bearer(token)),
    }
    streams["view stream"].until(lambda m: m.event == "view")
    streams["event stream"].until(lambda m: m.id is not None)
    streams["account stream"].until(lambda m: m.event == "open_games")
    return streams


# -- scopes follow the capability ---------------------------------------------------------------


def test_a_read_token_cannot_make_a_device_link_that_would_hand_over_the_seat(client, redis_client):
    """A device link's redemption gives a new seat token (and kills the owner's): making one needs
    ``play``, which a ``read`` token lacks; refused with a problem, nothing stored."""
    owner = session(client)
    game, _, _ = started_game(client, owner)
    reader = personal_token(client, owner, ["read"])
    before = redis_dump(redis_client)
    refused = client.post(f"/v1/games/{game}/device-links", headers=bearer(reader))
    assert_problem(refused, 403, "INSUFFICIENT_SCOPE")
    assert refused.get_json()["scope"] == "play"
    assert redis_dump(redis_client) == before
    player = personal_token(client, owner, ["play"], name="player")
    assert client.post(f"/v1/games/{game}/device-links", headers=bearer(player)).status_code == 201


def test_a_play_token_alone_fetches_its_seat_token_and_a_read_token_cannot(client):
    owner = session(client)
    game, _, _ = started_game(client, owner)
    reader = personal_token(client, owner, ["read"], name="reader")
    for path in ("seats/0/token", "token"):
        assert_problem(
            client.post(f"/v1/games/{game}/{path}", headers=bearer(reader)), 403, "INSUFFICIENT_SCOPE"
        )
    player = personal_token(client, owner, ["play"], name="player")
    fetched = client.post(f"/v1/games/{game}/seats/0/token", headers=bearer(player))
    assert fetched.status_code == 200, fetched.get_json()
    assert fetched.get_json()["token"].startswith("cst_")


def test_a_play_token_alone_gets_what_play_grants_with_the_rate_limits_on(redis_client, redis_server):
    """The rate limits find a request's seat before the route runs; a ``play`` token (no
    ``read``) must still fetch its seat token, rotate it and make a device link there."""
    for limited in app_fixtures.make_app(redis_server, RATE_LIMITS_ENABLED=True, **CONFIG):
        client = limited.test_client()
        owner = session(client)
        game, _, _ = started_game(client, owner)
        player = personal_token(client, owner, ["play"], name="player")
        for path in ("seats/0/token", "token", "device-links"):
            answer = client.post(f"/v1/games/{game}/{path}", headers=bearer(player))
            assert answer.status_code in (200, 201), (path, answer.get_json())


def test_a_stream_ticket_needs_read_which_a_play_token_lacks(client):
    owner = session(client)
    game, _, _ = started_game(client, owner)
    player = personal_token(client, owner, ["play"], name="player")
    assert_problem(
        client.post(f"/v1/games/{game}/stream-tickets", headers=bearer(player)), 403, "INSUFFICIENT_SCOPE"
    )
    reader = personal_token(client, owner, ["read"], name="reader")
    assert client.post(f"/v1/games/{game}/stream-tickets", headers=bearer(reader)).status_code == 201


def test_a_token_cannot_mint_a_token_with_a_scope_it_lacks(client):
    owner = session(client)
    manager = personal_token(client, owner, ["account"], name="manager")
    for scopes in (["play"], ["account", "read"], ["webhooks"]):
        made = client.post("/v1/me/tokens", json={"name": "x", "scopes": scopes}, headers=bearer(manager))
        assert_problem(made, 403, "INSUFFICIENT_SCOPE")
    assert (
        client.post(
            "/v1/me/tokens", json={"name": "y", "scopes": ["account"]}, headers=bearer(manager)
        ).status_code
        == 201
    )
    listed = client.get("/v1/me/tokens", headers=bearer(owner)).get_json()["tokens"]
    assert sorted(t["name"] for t in listed) == ["manager", "y"]


# -- revocation reaches what the credential opened ----------------------------------------------


def test_revoking_a_personal_token_ends_its_streams_tickets_and_links_in_another_process(app, other):
    """Streams opened in another web process with a personal token (the seat's view stream, its
    event stream, the account's stream) end with ``event: revoked`` within a heartbeat of the
    token's revocation; a stream ticket and a device link it took before open and move nothing."""
    web, far = app.test_client(), other.test_client()
    owner = session(web)
    game, _, _ = started_game(web, owner)
    token = personal_token(web, owner, ["read", "play"])
    streams = open_seat_streams(far, game, token)
    opened = web.post(f"/v1/games/{game}/stream-tickets", headers=bearer(token)).get_json()["ticket"]
    streams["view stream by ticket"] = Stream(far, f"/v1/games/{game}/view/stream?ticket={opened}", {})
    streams["view stream by ticket"].until(lambda m: m.event == "view")
    tickets = {
        (client, path): web.post(f"/v1/games/{game}/stream-tickets", headers=bearer(token)).get_json()[
            "ticket"
        ]
        for client in (web, far)
        for path in ("stream", "view/stream")
    }
    code = web.post(f"/v1/games/{game}/device-links", headers=bearer(token)).get_json()["code"]
    token_id = next(t["id"] for t in web.get("/v1/me/tokens", headers=bearer(owner)).get_json()["tokens"])

    assert web.delete(f"/v1/me/tokens/{token_id}", headers=bearer(owner)).status_code == 204

    for what, stream in streams.items():
        stream.assert_revoked(what)
    for (client, path), ticket in tickets.items():
        assert_problem(client.get(f"/v1/games/{game}/{path}?ticket={ticket}"), 401, "INVALID_TICKET")
    version = web.get(f"/v1/games/{game}").get_json()["version"]
    assert_problem(
        far.post(f"/v1/games/{game}/device-links/redeem", json={"code": code}), 401, "INVALID_DEVICE_LINK"
    )
    assert web.get(f"/v1/games/{game}").get_json()["version"] == version  # the seat did not move


def test_a_revocation_is_announced_to_every_web_process_before_the_next_heartbeat(redis_client, redis_server):
    """With heartbeats a minute apart, the streams a personal token opened in another web process
    (its view stream and its event stream) still end at once when the token is revoked: the
    revocation is announced, and each process's live reader wakes them; no heartbeat comes first."""
    slow = {**CONFIG, "SSE_HEARTBEAT_SECONDS": 60.0}
    for here in app_fixtures.make_app(redis_server, **slow):
        for there in app_fixtures.make_app(redis_server, **slow):
            web, far = here.test_client(), there.test_client()
            owner = session(web)
            game, _, _ = started_game(web, owner)
            reader = personal_token(web, owner, ["read"])
            streams = {
                "view stream": Stream(far, f"/v1/games/{game}/view/stream", bearer(reader)),
                "event stream": Stream(far, f"/v1/games/{game}/stream", bearer(reader)),
            }
            streams["view stream"].until(lambda m: m.event == "view")
            streams["event stream"].until(lambda m: m.id is not None)
            tokens = web.get("/v1/me/tokens", headers=bearer(owner)).get_json()["tokens"]
            assert web.delete(f"/v1/me/tokens/{tokens[0]['id']}", headers=bearer(owner)).status_code == 204
            revoked_at = time.monotonic()
            for what, stream in streams.items():
                stream.assert_revoked(what)
                # Half a heartbeat: far beyond a wake on a loaded machine, far below the fallback.
                waited = time.monotonic() - revoked_at
                assert waited < slow["SSE_HEARTBEAT_SECONDS"] / 2, f"{what} waited {waited:.1f} s"


def test_a_busy_game_does_not_keep_a_revoked_tokens_stream_open(app, other):
    """Moves that come faster than the heartbeat leave a stream no idle moment to beat in: its
    check of the account token is due by time, not by idleness, so the stream opened with a
    revoked token still ends (``event: revoked``) while the game goes on, long before it ends."""
    web, far = app.test_client(), other.test_client()
    owner = session(web)
    created = web.post("/v1/games", json={"game": "toy", "config": {"seed": 7, "hand_size": 50}})
    game = created.get_json()["id"]
    tokens = [
        web.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=bearer(owner)).get_json()["token"],
        web.post(f"/v1/games/{game}/seats", json={"name": "Bob", "seat": 1}).get_json()["token"],
    ]
    reader = personal_token(web, owner, ["read"])
    stream = Stream(far, f"/v1/games/{game}/view/stream", bearer(reader))
    stream.until(lambda m: m.event == "view")
    token_id = next(t["id"] for t in web.get("/v1/me/tokens", headers=bearer(owner)).get_json()["tokens"])
    assert web.delete(f"/v1/me/tokens/{token_id}", headers=bearer(owner)).status_code == 204

    for _ in range(100):  # the game's length: 50 cards a seat
        summary = web.get(f"/v1/games/{game}").get_json()
        assert summary["status"] == "active", "the game ended and the revoked token's stream never did"
        seat = summary["awaiting"][0]
        view = web.get(f"/v1/games/{game}/view", headers=bearer(tokens[seat])).get_json()
        moved = web.post(
            f"/v1/games/{game}/moves",
            json={"command": view["view"]["legal_moves"][0]},
            headers=bearer(tokens[seat]),
        )
        assert moved.status_code == 200, moved.get_json()
        message = stream.until(lambda m: m.event in ("view", "revoked"))
        if message.event == "revoked":
            assert message.data == {"reason": "account_token_revoked"}
            break
    else:
        raise AssertionError("the stream went on for the whole game")


def test_a_password_change_ends_the_other_sessions_streams_and_tickets(app, other):
    web, far = app.test_client(), other.test_client()
    owner = session(web)
    game, _, _ = started_game(web, owner)
    phone = web.post("/v1/sessions", json={"handle": "Ann", "password": "correct horse"}).get_json()["token"]
    streams = open_seat_streams(far, game, phone)
    ticket = web.post(f"/v1/games/{game}/stream-tickets", headers=bearer(phone)).get_json()["ticket"]
    changed = web.post(
        "/v1/me/password", json={"current": "correct horse", "new": "battery staple"}, headers=bearer(owner)
    )
    assert changed.status_code == 204, changed.get_json()
    for what, stream in streams.items():
        stream.assert_revoked(what)
    assert_problem(far.get(f"/v1/games/{game}/view/stream?ticket={ticket}"), 401, "INVALID_TICKET")
    # The session that changed the password follows the seat as before.
    Stream(far, f"/v1/games/{game}/view/stream", bearer(owner)).until(lambda m: m.event == "view")


def test_deleting_the_account_ends_its_streams_and_voids_its_device_links(app, other):
    web, far = app.test_client(), other.test_client()
    owner = session(web)
    game, _, _ = started_game(web, owner)
    streams = open_seat_streams(far, game, owner)
    code = web.post(f"/v1/games/{game}/device-links", headers=bearer(owner)).get_json()["code"]
    deleted = web.delete("/v1/me", json={"password": "correct horse"}, headers=bearer(owner))
    assert deleted.status_code == 204, deleted.get_data()
    # A deletion both revokes the account's tokens and hands its seats in running games to a bot
    # (last place, the ratings' rule): whichever a stream hears first ends it.
    for what, stream in streams.items():
        stream.assert_revoked(what, ("account_token_revoked", "seat_handed_to_bot"))
    assert_problem(
        far.post(f"/v1/games/{game}/device-links/redeem", json={"code": code}), 401, "INVALID_DEVICE_LINK"
    )


# -- the personal token cap ---------------------------------------------------------------------


def test_the_personal_token_beyond_the_cap_is_refused_naming_it_and_the_oldest_still_works(
    client, redis_client
):
    owner = session(client)
    first = personal_token(client, owner, ["read"], name="t0")
    for n in range(1, MOST_PERSONAL_TOKENS):
        personal_token(client, owner, ["read"], name=f"t{n}")
    before = redis_dump(redis_client)
    refused = client.post(
        "/v1/me/tokens", json={"name": "one more", "scopes": ["read"]}, headers=bearer(owner)
    )
    assert_problem(refused, 409, "TOO_MANY_TOKENS")
    assert refused.get_json()["limit"] == MOST_PERSONAL_TOKENS == 50
    assert "50" in refused.get_json()["detail"]
    assert redis_dump(redis_client) == before  # a refused request changes nothing
    assert client.get("/v1/me/games", headers=bearer(first)).status_code == 200  # the oldest works


# -- the account stream's Last-Event-ID ---------------------------------------------------------


@pytest.mark.parametrize(
    "last_event_id",
    [
        "18446744073709551616-0",
        "0-18446744073709551616",
        "99999999999999999999-1",
        "18446744073709551615-18446744073709551615",  # the largest id: nothing can come after it
    ],
)
def test_an_out_of_range_last_event_id_on_the_account_stream_is_refused_before_it_opens(
    client, last_event_id
):
    """Redis stream ids are two unsigned 64-bit integers: one beyond must be a 422, not a stream
    that opens and is dropped by Redis's error (which a browser reopens every 3 s)."""
    owner = session(client)
    refused = client.get("/v1/me/stream", headers={**bearer(owner), "Last-Event-ID": last_event_id})
    assert_problem(refused, 422, "VALIDATION_ERROR")
    # An id just below the largest is still one to resume after: the stream opens, reads its feed
    # after it, and lives on to its heartbeat.
    near = client.get(
        "/v1/me/stream",
        headers={**bearer(owner), "Last-Event-ID": "18446744073709551615-18446744073709551614"},
        buffered=False,
    )
    assert near.status_code == 200
    seen = list(read_messages(near.response, stop=lambda m: m.comment == "heartbeat"))
    assert [m.event for m in seen if m.comment is None] == ["open_games"] and seen[-1].comment == "heartbeat"
    near.close()
