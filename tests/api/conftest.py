from __future__ import annotations

import pytest

from tests import app_fixtures
from tests.api import toy_game

# The shared API fixtures (tests/app_fixtures.py), which pytest finds here by these names.
client = app_fixtures.client
svc = app_fixtures.svc
run_jobs = app_fixtures.run_jobs


@pytest.fixture(autouse=True)
def toy_registered():
    with toy_game.registered():
        yield


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, SSE_HEARTBEAT_SECONDS=0.2)


class Table:
    """A started toy game: its id and the seats' tokens."""

    def __init__(self, client, hand_size: int = 3, seed: int = 7, first: int = 0):
        created = client.post(
            "/v1/games",
            json={"game": "toy", "config": {"hand_size": hand_size, "seed": seed, "first": first}},
        )
        assert created.status_code == 201, created.get_json()
        self.client = client
        self.id = created.get_json()["id"]
        self.tokens = []
        for name in ("Ann", "Bob"):
            claimed = client.post(f"/v1/games/{self.id}/seats", json={"name": name})
            assert claimed.status_code == 201, claimed.get_json()
            self.tokens.append(claimed.get_json()["token"])

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def view(self, seat: int | None = None) -> dict:
        headers = self.auth(seat) if seat is not None else {}
        response = self.client.get(f"/v1/games/{self.id}/view", headers=headers)
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def move(self, seat: int, command: dict, **kwargs):
        headers = {**self.auth(seat), **kwargs.pop("headers", {})}
        return self.client.post(
            f"/v1/games/{self.id}/moves", json={"command": command, **kwargs}, headers=headers
        )


@pytest.fixture()
def table(client):
    return Table(client)


def redis_dump(redis_client) -> dict:
    """Every key with its type and content: compared before/after a refused request."""
    dump = {}
    for key in sorted(redis_client.keys("*")):
        kind = redis_client.type(key)
        if kind == b"string":
            value = redis_client.get(key)
        elif kind == b"hash":
            value = redis_client.hgetall(key)
        elif kind == b"stream":
            value = redis_client.xrange(key)
        elif kind == b"zset":
            value = redis_client.zrange(key, 0, -1, withscores=True)
        elif kind == b"list":
            value = redis_client.lrange(key, 0, -1)
        elif kind == b"set":
            value = sorted(redis_client.smembers(key))
        else:
            value = kind
        dump[key] = (kind, value)
    return dump
