"""A seat's streams last only as long as its token (issue 35, finding 1): after a token rotation
every stream opened with the old token, and every stream ticket taken with it, ends at once, in
every web process, on both stream paths (the view stream pushed by the live reader,
api/edge/view_push.py, and served through its iterator; the event stream), and the stream says why
(``event: revoked``). A seat handed to a bot loses its streams the same way. (A resignation ends
the game in both engines, RL-X17: every stream then ends with ``event: end``, the log public.)"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import requests

from api import create_app
from tests.api.sse import Message, read_messages
from tests.gunicorn_server import start_gunicorn, wait_until_serving
from worker.clocks import enforce_due

pytestmark = pytest.mark.timeout(300)

# How long a revoked stream may take to say so: the rotation reaches another process's live reader
# within a second on an idle machine; a loaded one is given much longer (the bound only ends a
# broken test, it orders nothing).
REVOCATION_BOUND_SECONDS = 60


@pytest.fixture()
def servers(redis_server, redis_client, tmp_path):
    """Two web processes (gunicorn, gevent) on one Redis: view streams pushed by the live reader in
    one, served through their iterator in the other."""
    yield from two_servers(redis_server, tmp_path)


# Heartbeats far apart: what ends a stream sooner than that is not its heartbeat's check.
SLOW_HEARTBEAT_SECONDS = 60


@pytest.fixture()
def slow_heartbeat_servers(redis_server, redis_client, tmp_path):
    yield from two_servers(redis_server, tmp_path, SSE_HEARTBEAT_SECONDS=str(SLOW_HEARTBEAT_SECONDS))


def two_servers(redis_server, tmp_path, **env: str):
    started = []
    try:
        for push in ("true", "false"):
            log = open(tmp_path / f"gunicorn-{push}.log", "wb")  # noqa: SIM115 - closed below
            process, base = start_gunicorn(redis_server.url, log, VIEW_STREAM_PUSH=push, **env)
            started.append((process, base, log))
        for process, base, _ in started:
            wait_until_serving(process, base)
        yield {"pushed": started[0][1], "iterated": started[1][1]}
    finally:
        for process, _, log in started:
            process.terminate()
            process.wait(timeout=10)
            log.close()


class Stream:
    """One SSE stream read message by message (each read waits at most the socket timeout)."""

    def __init__(self, url: str, headers: dict[str, str] | None = None):
        self.response = requests.get(url, headers=headers or {}, stream=True, timeout=(10, 30))
        assert self.response.status_code == 200, self.response.text
        self.messages: list[Message] = []
        self._reader: Iterator[Message] = read_messages(self.response.iter_content(chunk_size=None))

    def until(self, done, bound: float = REVOCATION_BOUND_SECONDS) -> Message:
        """Read until ``done(message)``; fails after ``bound`` seconds (heartbeats keep it reading)."""
        deadline = time.monotonic() + bound
        for message in self._reader:
            self.messages.append(message)
            if done(message):
                return message
            assert time.monotonic() < deadline, f"nothing ended the stream: {self.messages[-5:]}"
        raise AssertionError(f"the stream closed without saying why: {self.messages[-5:]}")

    def close(self) -> None:
        self.response.close()


def toy_game(base: str) -> tuple[str, list[str]]:
    game = requests.post(f"{base}/v1/games", json={"game": "toy", "config": {"hand_size": 4, "seed": 3}})
    assert game.status_code == 201, game.text
    game_id = game.json()["id"]
    tokens = [
        requests.post(f"{base}/v1/games/{game_id}/seats", json={"name": n}).json()["token"] for n in "AB"
    ]
    return game_id, tokens


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def ticket(base: str, game_id: str, token: str) -> str:
    issued = requests.post(f"{base}/v1/games/{game_id}/stream-tickets", headers=auth(token))
    assert issued.status_code == 201, issued.text
    return issued.json()["ticket"]


def open_streams(bases: dict[str, str], game_id: str, token: str, version: int) -> dict[str, Stream]:
    """Seat 0's view stream and event stream on every web process, each read up to ``version``."""
    streams = {}
    for name, base in bases.items():
        streams[f"{name} view"] = Stream(f"{base}/v1/games/{game_id}/view/stream", auth(token))
        streams[f"{name} events"] = Stream(f"{base}/v1/games/{game_id}/stream", auth(token))
    for stream in streams.values():
        stream.until(lambda m: m.id is not None and m.id >= version)
    return streams


def assert_all_revoked(streams: dict[str, Stream], rotated_at: int) -> None:
    for name, stream in streams.items():
        last = stream.until(lambda m: m.event in ("revoked", "end") or (m.id or 0) >= rotated_at)
        assert last.event == "revoked", f"{name} went on after the rotation: {last}"
        assert last.data == {"reason": "token_rotated"}, name
        leaked = [m for m in stream.messages if m.id is not None and m.id >= rotated_at]
        assert leaked == [], f"{name} sent the old token something after the rotation: {leaked}"
        # The stream is over: the server ends the response right after saying so.
        assert list(stream.response.iter_content(chunk_size=None)) == [], name
        stream.close()


def test_a_rotation_ends_the_old_tokens_streams_and_tickets_in_every_web_process(servers):
    """Rotate seat 0's token through one process: its view streams (pushed and iterated) and event
    streams in both processes end with ``event: revoked`` before sending anything of the new
    version, and stream tickets taken with the old token before the rotation open nothing after
    it. Then the same again with the rotation through the other process."""
    pushed, iterated = servers["pushed"], servers["iterated"]
    game_id, tokens = toy_game(pushed)
    token = tokens[0]
    for rotate_through in (pushed, iterated):
        version = requests.get(f"{pushed}/v1/games/{game_id}").json()["version"]
        streams = open_streams(servers, game_id, token, version)
        tickets = {
            (base, path): ticket(base, game_id, token)
            for base in servers.values()
            for path in ("stream", "view/stream")
        }
        rotated = requests.post(f"{rotate_through}/v1/games/{game_id}/token", headers=auth(token))
        assert rotated.status_code == 200, rotated.text
        rotated_at, token = rotated.json()["version"], rotated.json()["token"]

        assert_all_revoked(streams, rotated_at)
        for (base, path), old_ticket in tickets.items():
            refused = requests.get(
                f"{base}/v1/games/{game_id}/{path}?ticket={old_ticket}", stream=True, timeout=10
            )
            assert refused.status_code == 401, (base, path, refused.status_code)
            assert refused.json()["code"] == "INVALID_TICKET"
        # The new token follows the seat as before, in both processes.
        for base in servers.values():
            fresh = Stream(f"{base}/v1/games/{game_id}/view/stream", auth(token))
            first = fresh.until(lambda m: m.event == "view")
            assert first.data["seat"] == 0 and first.id == rotated_at
            fresh.close()


def test_a_seat_handed_to_a_bot_ends_its_streams_in_another_process(client, svc, redis_server):
    """RL-X19: after too many timeouts the seat is handed to the random bot and its old token
    follows it no more: its event stream and view stream in another web process end with ``event:
    revoked`` (``seat_handed_to_bot``) while the game goes on, and no new stream or ticket opens."""
    created = client.post(
        "/v1/games",
        json={
            "game": "condottiere",
            "config": {"players": 2, "seed": 42},
            "clock": {"move_seconds": 60, "timeouts_to_bot": 1},
        },
    )
    game_id = created.get_json()["id"]
    tokens = [
        client.post(f"/v1/games/{game_id}/seats", json={"name": n}).get_json()["token"]
        for n in ("Ann", "Bob")
    ]
    other = create_app({"REDIS_URL": redis_server.url, "TESTING": True, "SSE_HEARTBEAT_SECONDS": 0.2})
    other_client = other.test_client()
    summary = client.get(f"/v1/games/{game_id}").get_json()
    version, deadline_ms = summary["version"], summary["clock"]["seats"][1]["deadline_ms"]
    streams = []
    for path in ("stream", "view/stream"):
        response = other_client.get(f"/v1/games/{game_id}/{path}", headers=auth(tokens[1]), buffered=False)
        assert response.status_code == 200
        messages = read_messages(response.response)
        for message in messages:
            if message.id == version:
                break
        streams.append((path, response, messages))

    assert [t["seat"] for t in enforce_due(svc, now_ms=deadline_ms)] == [1]
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "active"
    for path, response, messages in streams:
        deadline = time.monotonic() + REVOCATION_BOUND_SECONDS
        for message in messages:
            assert message.id is None or message.id <= version, f"{path} went on after the handover"
            if message.event == "revoked":
                assert message.data == {"reason": "seat_handed_to_bot"}
                break
            assert time.monotonic() < deadline, f"{path} went on after the handover"
        else:
            raise AssertionError(f"{path} closed without saying why")
        response.close()
    for web in (client, other_client):
        refused = web.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(tokens[1]))
        assert refused.status_code == 401 and refused.get_json()["code"] == "INVALID_TOKEN"


def test_a_revoked_personal_token_ends_its_pushed_and_iterated_streams_in_every_web_process(
    slow_heartbeat_servers,
):
    """The same for an account's personal token: its view streams (pushed by the live reader in one
    process, iterated in the other) and event streams end with ``event: revoked``
    (``account_token_revoked``) as soon as it is revoked (announced to every process's live reader;
    well before their heartbeat, a minute here, when each would check it anyway), though the
    seat's own token is unchanged, while the game goes on."""
    servers = slow_heartbeat_servers
    pushed, iterated = servers["pushed"], servers["iterated"]
    password = "correct horse battery"
    assert (
        requests.post(f"{pushed}/v1/accounts", json={"handle": "Ann", "password": password}).status_code
        == 201
    )
    session = requests.post(f"{pushed}/v1/sessions", json={"handle": "Ann", "password": password}).json()[
        "token"
    ]
    made = requests.post(
        f"{pushed}/v1/me/tokens", json={"name": "bot", "scopes": ["read", "play"]}, headers=auth(session)
    ).json()
    game = requests.post(f"{pushed}/v1/games", json={"game": "toy", "config": {"hand_size": 4, "seed": 3}})
    game_id = game.json()["id"]
    assert requests.post(
        f"{pushed}/v1/games/{game_id}/seats", json={"seat": 0}, headers=auth(made["token"])
    ).ok
    bob = requests.post(f"{pushed}/v1/games/{game_id}/seats", json={"name": "Bob", "seat": 1}).json()
    version = requests.get(f"{pushed}/v1/games/{game_id}").json()["version"]
    streams = open_streams(servers, game_id, made["token"], version)

    revoked = requests.delete(f"{iterated}/v1/me/tokens/{made['id']}", headers=auth(session))
    assert revoked.status_code == 204
    revoked_at = time.monotonic()
    for name, stream in streams.items():
        last = stream.until(lambda m: m.event in ("revoked", "end"))
        waited = time.monotonic() - revoked_at
        assert waited < SLOW_HEARTBEAT_SECONDS / 2, f"{name} waited {waited:.1f} s: its heartbeat's check"
        assert last.event == "revoked", f"{name} went on after the revocation: {last}"
        assert last.data == {"reason": "account_token_revoked"}, name
        assert list(stream.response.iter_content(chunk_size=None)) == [], name
        stream.close()
    assert requests.get(f"{pushed}/v1/games/{game_id}").json()["status"] == "active"
    assert requests.get(f"{iterated}/v1/games/{game_id}/view", headers=auth(bob["token"])).ok
