"""The move's hot path in front of Flask (``api/edge/move_path.py``, issue 12): an ordinary move never
reaches Flask, and every request gets the very answer the Flask route gives (status, headers and
body, compared byte for byte against an app with ``MOVE_FAST_PATH`` off), refusals included, rate
limits counted in the same budget, and a store outage answered 503 the same way."""

from __future__ import annotations

import re

import pytest

from api import create_app
from launcher.embedded_redis import free_port
from tests import app_fixtures
from tests.api.conftest import Table
from tests.api.test_accounts import FAST_HASH, bearer, session
from tests.api.test_errors import assert_problem
from tests.redis_metrics import count_round_trips


@pytest.fixture()
def flask_only(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, SSE_HEARTBEAT_SECONDS=0.2, MOVE_FAST_PATH=False)


CORS_SETTINGS = ["*", "https://club.example"]


def _flask_route_recorded(app) -> list[str]:
    """Replace the Flask move route by one that records its calls and answers 299."""
    calls: list[str] = []

    def flask_route(game_id, **kwargs):
        calls.append(game_id)
        return "flask", 299

    app.view_functions["games.Moves"] = flask_route
    return calls


def test_an_ordinary_move_never_reaches_flask(app, client):
    """A well-formed move is answered without the Flask route; a request the hot path leaves
    alone (a browser's, with Origin) does reach it."""
    table = Table(client)
    calls = _flask_route_recorded(app)
    answered = table.move(0, {"type": "pass"}, headers={"Prefer": "return=minimal"})
    assert answered.status_code == 200, answered.get_json()
    assert answered.get_json()["version"] == table.view()["version"]
    assert calls == []
    assert table.move(1, {"type": "pass"}, headers={"Origin": "https://club.example"}).status_code == 299
    assert calls == [table.id]


def test_the_hot_path_is_off_with_its_setting(flask_only):
    table = Table(flask_only.test_client())
    calls = _flask_route_recorded(flask_only)
    assert table.move(0, {"type": "pass"}).status_code == 299
    assert calls == [table.id]


def _steps(table: Table, other_id: str) -> list[tuple[str, str, dict]]:
    """(label, path, request keywords) of a game played through every kind of answer. The toy
    game's hands depend only on the seed, so two tables of the same seed take the same steps."""
    moves = f"/v1/games/{table.id}/moves"
    hands = [table.view(seat)["view"]["hand"] for seat in (0, 1)]

    def move(seat, command, headers=None, **body):
        return {"json": {"command": command, **body}, "headers": {**table.auth(seat), **(headers or {})}}

    return [
        ("not your turn", moves, move(1, {"type": "pass"})),
        ("stale expected_version", moves, move(0, {"type": "pass"}, expected_version=0)),
        ("stale If-Match", moves, move(0, {"type": "pass"}, {"If-Match": '"1"'})),
        ("malformed If-Match", moves, move(0, {"type": "pass"}, {"If-Match": "soon"})),
        (
            "If-Match against the body",
            moves,
            move(0, {"type": "pass"}, {"If-Match": '"3"'}, expected_version=4),
        ),
        ("malformed Idempotency-Key", moves, move(0, {"type": "pass"}, {"Idempotency-Key": "a b"})),
        ("card not in hand", moves, move(0, {"type": "play", "card": hands[1][0]})),
        ("unknown command", moves, move(0, {"type": "fly"})),
        (
            "keyed minimal",
            moves,
            move(0, {"type": "pass"}, {"Idempotency-Key": "k1", "Prefer": "return=minimal"}),
        ),
        ("keyed retry", moves, move(0, {"type": "pass"}, {"Idempotency-Key": "k1"})),
        ("key reused", moves, move(0, {"type": "play", "card": hands[0][0]}, {"Idempotency-Key": "k1"})),
        ("whole answer", moves, move(1, {"type": "play", "card": hands[1][0]}, expected_version=4)),
        ("If-Match applied", moves, move(0, {"type": "play", "card": hands[0][0]}, {"If-Match": '"5.s1"'})),
        (
            "unknown token",
            moves,
            {"json": {"command": {"type": "pass"}}, "headers": {"Authorization": "Bearer x"}},
        ),
        ("no token", moves, {"json": {"command": {"type": "pass"}}}),
        (
            "malformed Authorization",
            moves,
            move(1, {"type": "pass"}, {"Authorization": "Bearer  two spaces"}),
        ),
        ("unknown game", "/v1/games/01m8qfgcy85e358f57an/moves", move(1, {"type": "pass"})),
        ("open game", f"/v1/games/{other_id}/moves", move(1, {"type": "pass"})),
        (
            "malformed JSON",
            moves,
            {"data": b'{"command":', "headers": table.auth(1), "content_type": "application/json"},
        ),
        ("schema refusal", moves, move(1, "pass")),
        (
            "token in the body",
            moves,
            {"json": {"command": {"type": "pass"}, "token": "x"}, "headers": table.auth(1)},
        ),
        ("not JSON", moves, {"data": b"pass", "headers": table.auth(1), "content_type": "text/plain"}),
        (
            "too deep",
            moves,
            {
                "data": b'{"command":{"a":' + b"[" * 200 + b"]" * 200 + b"}}",
                "headers": table.auth(1),
                "content_type": "application/json",
            },
        ),
        ("token in the query", moves + "?token=x", move(1, {"type": "pass"})),
        ("from a browser", moves, move(1, {"type": "pass"}, {"Origin": "https://club.example"})),
        *[
            (f"play out {n}", moves, move(seat, {"type": "play", "card": hands[seat][n]}))
            for n in (1, 2)
            for seat in (1, 0)
        ],
        ("after the end", moves, move(1, {"type": "pass"})),
    ]


def _answers(client) -> list[tuple[str, int, list[tuple[str, str]], bytes]]:
    table = Table(client)
    other = client.post("/v1/games", json={"game": "toy", "config": {"seed": 7}}).get_json()["id"]
    client.post(f"/v1/games/{other}/seats", json={"name": "Ann"})
    answers = []
    for label, path, request in _steps(table, other):
        response = client.post(path, **request)
        body = response.get_data().replace(table.id.encode(), b"GAME").replace(other.encode(), b"OTHER")
        headers = sorted((k, v) for k, v in response.headers.items() if k != "Content-Length")
        answers.append((label, response.status_code, headers, body))
    return answers


@pytest.mark.parametrize("origins", CORS_SETTINGS)
def test_every_answer_is_the_flask_routes_own(redis_client, redis_server, origins):
    """The same game, played through the hot path and through Flask alone, gets the same answers
    in every case: accepted moves (minimal, whole, keyed, retried, pinned by If-Match), rule
    refusals with their rule IDs (TOY-2, TOY-3), conflicts, bad tokens and headers, and the
    requests the hot path hands to Flask; CORS headers included, for an API open to every origin
    and for one open to a list."""
    hot_app, flask_app = (
        next(app_fixtures.make_app(redis_server, CORS_ORIGINS=origins, MOVE_FAST_PATH=fast))
        for fast in (True, False)
    )
    hot, flask = _answers(hot_app.test_client()), _answers(flask_app.test_client())
    assert [answer[1] for answer in hot].count(200) >= 7  # the accepted moves are compared too
    for mine, theirs in zip(hot, flask, strict=True):
        assert mine == theirs


def test_moves_count_against_one_rate_limit_budget_on_both_paths(redis_client, redis_server):
    """A seat's moves through the hot path and through Flask (a browser's, with Origin) share one
    budget, and the hot path's 429 is Flask's own (RATE_LIMIT_MOVE)."""
    settings = {"RATE_LIMITS_ENABLED": True, "RATE_LIMIT_MOVE": "3/hour"}
    app = create_app({"REDIS_URL": redis_server.url, "TESTING": True, **settings})
    try:
        table = Table(app.test_client())
        browser = {"Origin": "https://club.example"}
        assert table.move(0, {"type": "pass"}).status_code == 200
        assert table.move(0, {"type": "pass"}, headers=browser).status_code == 422  # counted by Flask
        assert table.move(0, {"type": "play", "card": "c000"}).status_code == 422
        refused = table.move(0, {"type": "pass"})
        problem = assert_problem(refused, 429, "TOO_MANY_REQUESTS")
        theirs = table.move(0, {"type": "pass"}, headers=browser)
        their_problem = assert_problem(theirs, 429, "TOO_MANY_REQUESTS")
        # The same window: the waits differ at most by the second that may have ticked in between.
        assert abs(problem.pop("retry_after") - their_problem.pop("retry_after")) <= 1
        assert (
            problem.pop("detail").split(" retry in ")[0] == their_problem.pop("detail").split(" retry in ")[0]
        )
        assert problem == their_problem
        assert abs(int(refused.headers["Retry-After"]) - int(theirs.headers["Retry-After"])) <= 1
        assert table.move(1, {"type": "pass"}).status_code == 200  # the other seat has its own budget
    finally:
        app.extensions["game_service"].live.close()
        app.extensions["game_service"].store.redis.close()


def test_a_store_outage_is_the_routes_503(redis_client):
    """Redis unreachable: the hot path answers 503 STORE_UNAVAILABLE with Retry-After, as the
    route does (the move may have committed: only the client's keyed retry can tell)."""
    dead = f"redis://127.0.0.1:{free_port()}/0"
    answers = []
    for fast in (True, False):
        app = create_app(
            {
                "REDIS_URL": dead,
                "TESTING": True,
                "RATE_LIMITS_ENABLED": False,
                "MOVE_FAST_PATH": fast,
                "REDIS_SOCKET_TIMEOUT": 0.5,
            }
        )
        response = app.test_client().post(
            "/v1/games/01m8qfgcy85e358f57an/moves",
            json={"command": {"type": "pass"}},
            headers={"Authorization": "Bearer abc"},
        )
        assert_problem(response, 503, "STORE_UNAVAILABLE")
        answers.append((sorted(response.headers.items()), response.get_data()))
    assert answers[0] == answers[1]


LIMITED = {"RATE_LIMITS_ENABLED": True, "RATE_LIMIT_MOVE": "1000/hour", "PASSWORD_HASH_PARAMETERS": FAST_HASH}


def _account_answers(app, scopes: list[str] | None) -> tuple[list, list[str]]:
    """A toy game whose seat 0 is Ann's account, played with an account token (her session's, or a
    personal token of ``scopes``), seat 1 with its seat token, rate limits on: every answer, and
    the steps the Flask move route answered."""
    client = app.test_client()
    ann = reader = session(client, "Ann")
    if scopes is not None:
        made = client.post("/v1/me/tokens", json={"name": "bot", "scopes": scopes}, headers=bearer(ann))
        assert made.status_code == 201, made.get_json()
        ann = made.get_json()["token"]
    game = client.post("/v1/games", json={"game": "toy", "config": {"seed": 7, "first": 0}}).get_json()["id"]
    assert client.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=bearer(ann)).status_code == 201
    bob = client.post(f"/v1/games/{game}/seats", json={"name": "Bob"}).get_json()["token"]
    hands = {
        seat: client.get(f"/v1/games/{game}/view", headers=bearer(token)).get_json()["view"]["hand"]
        for seat, token in ((0, reader), (1, bob))
    }
    calls = _flask_route_recorded_keeping(app)
    moves = f"/v1/games/{game}/moves"
    steps = [
        ("unknown command", ann, {"type": "fly"}, {}),
        ("card not in hand", ann, {"type": "play", "card": hands[1][0]}, {}),
        ("keyed minimal", ann, {"type": "pass"}, {"Idempotency-Key": "k1", "Prefer": "return=minimal"}),
        ("keyed retry", ann, {"type": "pass"}, {"Idempotency-Key": "k1"}),
        ("not your turn", ann, {"type": "play", "card": hands[0][0]}, {}),
        ("seat token", bob, {"type": "play", "card": hands[1][0]}, {}),
        ("whole answer", ann, {"type": "play", "card": hands[0][0]}, {"If-Match": '"3"'}),
        ("an unknown token", ann[:-4] + "AAAA", {"type": "pass"}, {}),
    ]
    answers, flask = [], []
    for label, token, command, headers in steps:
        before = len(calls)
        answer = client.post(moves, json={"command": command}, headers={**bearer(token), **headers})
        if len(calls) > before:
            flask.append(label)
        kept = sorted(
            (k, re.sub(r";t=\d+", ";t=T", v)) for k, v in answer.headers.items() if k != "Content-Length"
        )
        answers.append((label, answer.status_code, kept, answer.get_data().replace(game.encode(), b"GAME")))
    return answers, flask


def _flask_route_recorded_keeping(app) -> list[str]:
    """Record the games the Flask move route is asked for, and let it answer as ever."""
    calls: list[str] = []
    route = app.view_functions["games.Moves"]

    def recorded(game_id, **kwargs):
        calls.append(game_id)
        return route(game_id=game_id, **kwargs)

    app.view_functions["games.Moves"] = recorded
    return calls


@pytest.mark.parametrize("scopes", [None, ["play"]], ids=["session token", "play-only personal token"])
def test_account_tokens_take_the_hot_path_with_rate_limits_on_and_get_the_flask_routes_answers(
    redis_client, redis_server, scopes
):
    """With rate limits on, a move sent with an account token (a session's, or a bot's token of
    scope ``play`` alone) is answered in front of Flask, as a seat token's, counted in its seat's
    budget (the same RateLimit fields), and every answer is byte for byte the Flask route's."""
    hot_app = next(app_fixtures.make_app(redis_server, MOVE_FAST_PATH=True, **LIMITED))
    hot, hot_calls = _account_answers(hot_app, scopes)
    redis_client.flushall()
    flask_app = next(app_fixtures.make_app(redis_server, MOVE_FAST_PATH=False, **LIMITED))
    flask, flask_calls = _account_answers(flask_app, scopes)
    # The Redis server is shared with the tests that follow, which name seats "Ann": no account
    # may keep that handle.
    redis_client.flushall()
    assert [a[1] for a in hot].count(200) >= 3
    # The hot path answered all but the unknown token (counted against its address, by Flask).
    assert hot_calls == ["an unknown token"] and len(flask_calls) == len(flask)
    for mine, theirs in zip(hot, flask, strict=True):
        assert mine == theirs


def test_an_account_tokens_move_on_the_hot_path_reads_the_tokens_entry_once(redis_client, redis_server):
    """With rate limits on, the hot path checks an account token (its seat's budget is counted
    before the move) and the move reuses that check: one HGET of the token's entry per move, not
    one for the budget and another for the move. The scope still limits it: a token without
    ``play`` is refused (403) as before."""
    app = next(app_fixtures.make_app(redis_server, MOVE_FAST_PATH=True, **LIMITED))
    try:
        client = app.test_client()
        ann = session(client, "Onceread")
        made = client.post("/v1/me/tokens", json={"name": "r", "scopes": ["read"]}, headers=bearer(ann))
        reader = made.get_json()["token"]
        game = client.post("/v1/games", json={"game": "toy", "config": {"seed": 7, "first": 0}}).get_json()[
            "id"
        ]
        assert (
            client.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=bearer(ann)).status_code == 201
        )
        assert client.post(f"/v1/games/{game}/seats", json={"name": "Bob"}).status_code == 201
        assert client.get(f"/v1/games/{game}/view", headers=bearer(ann)).status_code == 200  # cached here
        flask_calls = _flask_route_recorded_keeping(app)
        moves = f"/v1/games/{game}/moves"
        refused = client.post(moves, json={"command": {"type": "pass"}}, headers=bearer(reader))
        assert_problem(refused, 403, "INSUFFICIENT_SCOPE")
        with count_round_trips(redis_client) as trips:
            moved = client.post(moves, json={"command": {"type": "pass"}}, headers=bearer(ann))
        assert moved.status_code == 200, moved.get_json()
        assert flask_calls == []  # both answered in front of Flask
        assert trips.names.count("HGET") == 1, trips.commands
        assert "RateLimit" in moved.headers
    finally:
        redis_client.flushall()  # no account may keep its handle for the tests that follow
        app.extensions["game_service"].live.close()
        app.extensions["game_service"].store.redis.close()
