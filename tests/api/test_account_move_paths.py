"""Moves with account tokens get the same answers on every path a move can take (issue 31): the
WSGI fast path (api/edge/move_path.py) and Flask's route, and under gunicorn this project's worker
(api/edge/move_worker.py, which answers from the parsed request) and gunicorn's own gevent worker. A
read-only token is refused with the same problem document everywhere, a play token's move is
accepted everywhere."""

from __future__ import annotations

import requests

from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH
from tests.api.test_move_worker import TAG, _Http, servers  # noqa: F401 - the fixture, by name


def _scenario(client, delete, suffix="") -> list[tuple[str, int, list[tuple[str, str]], bytes]]:
    """An account's toy game played with its tokens; every move's answer, ids replaced. ``suffix``
    makes the handles differ from another run's on the same Redis."""
    ann, eve_handle = f"Ann{suffix}", f"Eve{suffix}"
    for handle in (ann, eve_handle):
        assert (
            client.post("/v1/accounts", json={"handle": handle, "password": "correct horse"}).status_code
            == 201
        )
    session = client.post("/v1/sessions", json={"handle": ann, "password": "correct horse"}).get_json()
    eve = client.post("/v1/sessions", json={"handle": eve_handle, "password": "correct horse"}).get_json()
    eve = eve["token"]
    auth = {"Authorization": f"Bearer {session['token']}"}

    def token(scopes):
        made = client.post("/v1/me/tokens", json={"name": "t", "scopes": scopes}, headers=auth).get_json()
        return made["token"], made["id"]

    reader, _ = token(["read"])
    player, player_id = token(["play"])
    game = client.post("/v1/games", json={"game": "toy", "config": {"seed": 7, "hand_size": 2}}).get_json()[
        "id"
    ]
    client.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=auth)
    bob = client.post(f"/v1/games/{game}/seats", json={"name": "Bob", "seat": 1}).get_json()["token"]
    hand = client.get(f"/v1/games/{game}/view", headers=auth).get_json()["view"]["hand"]
    moves = f"/v1/games/{game}/moves"
    secrets = [t.split(".")[-1] for t in (session["token"], reader, player, eve)]

    def bearer(t):
        return {"Authorization": f"Bearer {t}"}

    steps = [
        ("read-only token", bearer(reader), {"type": "play", "card": hand[0]}),
        ("another account", bearer(eve), {"type": "play", "card": hand[0]}),
        ("play token", bearer(player), {"type": "play", "card": hand[0]}),
        ("not my turn", bearer(player), {"type": "pass"}),
        ("bob", bearer(bob), {"type": "pass"}),
        ("session token keyed", {**auth, "Idempotency-Key": "k"}, {"type": "play", "card": hand[1]}),
        ("retried", {**auth, "Idempotency-Key": "k"}, {"type": "play", "card": hand[1]}),
        ("revoked", None, {"type": "pass"}),
    ]
    answers = []
    for label, headers, command in steps:
        if headers is None:
            delete(f"/v1/me/tokens/{player_id}", auth)
            headers = bearer(player)
        response = client.post(moves, json={"command": command}, headers=headers)
        body = response.get_data() if hasattr(response, "get_data") else response.response.content
        for secret in secrets:
            assert secret.encode() not in body
        body = body.replace(game.encode(), b"GAME").replace(ann.encode(), b"ANN")
        kept = sorted((k, v) for k, v in response.headers.items() if k not in ("Date", "Content-Length", TAG))
        answers.append((label, response.status_code, kept, body))
    return answers


def test_the_fast_path_and_flask_answer_account_moves_alike(redis_client, redis_server):
    answers = []
    for fast in (True, False):
        redis_client.flushall()
        app = next(
            app_fixtures.make_app(redis_server, MOVE_FAST_PATH=fast, PASSWORD_HASH_PARAMETERS=FAST_HASH)
        )
        client = app.test_client()
        answers.append(_scenario(client, lambda path, headers, c=client: c.delete(path, headers=headers)))
    hot, flask = answers
    assert [a[1] for a in hot] == [403, 403, 200, 422, 200, 200, 200, 401]
    assert b'"code":"INSUFFICIENT_SCOPE"' in hot[0][3] and b'"code":"NOT_SEATED"' in hot[1][3]
    for mine, theirs in zip(hot, flask, strict=True):
        assert mine == theirs


def test_gunicorns_worker_and_wsgi_answer_account_moves_alike(redis_client, servers):  # noqa: F811
    answers = []
    for name in ("fast", "plain"):
        client = _Http(servers[name])
        base = servers[name]
        answers.append(
            _scenario(client, lambda path, headers, b=base: requests.delete(b + path, headers=headers), name)
        )
    fast, plain = answers
    assert [a[1] for a in fast] == [403, 403, 200, 422, 200, 200, 200, 401]
    for mine, theirs in zip(fast, plain, strict=True):
        assert mine == theirs
