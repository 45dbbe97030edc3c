"""The move's hot path in front of Flask (``api/edge/move_path.py``, issue 12): an ordinary move never
reaches Flask, and every request gets the very answer the Flask route gives (status, headers and
body, compared byte for byte against an app with ``MOVE_FAST_PATH`` off), refusals included, rate
limits counted in the same budget, and a store outage answered 503 the same way."""

from __future__ import annotations

import pytest

from api import create_app
from launcher.embedded_redis import free_port
from tests import app_fixtures
from tests.api.conftest import Table
from tests.api.test_errors import assert_problem


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
