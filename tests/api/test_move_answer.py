"""The move's hot path (issue 12, item 3): the move body is read without the marshmallow round trip
but refused exactly as the schema refuses it; ``Prefer: return=minimal`` answers only the version
(the seat's view stream brings the view); a whole answer's view is the very document the seat's
stream sends."""

from __future__ import annotations

import json

import orjson
import pytest
from marshmallow import ValidationError

from api.games import _move_body
from schemas.games import MAX_VERSION, MoveRequest
from tests.api.conftest import Table, redis_dump
from tests.api.sse import read_messages
from tests.api.test_errors import assert_problem
from tests.api.test_view_stream import view_stream

PLAY = {"type": "pass"}


@pytest.mark.parametrize(
    "body",
    [
        {"command": PLAY},
        {"command": PLAY, "expected_version": 0},
        {"command": PLAY, "expected_version": MAX_VERSION},
        {"command": PLAY, "expected_version": 12.0},  # an integral float is that integer (issue 36)
        {"command": {"type": "play", "card": 3, "extra": [1, {"a": None}]}, "expected_version": 12},
    ],
)
def test_a_well_formed_move_body_reads_as_the_schema_reads_it(app, body):
    with app.test_request_context(
        "/v1/games/x/moves", method="POST", data=orjson.dumps(body), content_type="application/json"
    ):
        assert _move_body() == MoveRequest().load(body)


@pytest.mark.parametrize(
    "body",
    [
        {},
        [],
        {"command": "pass"},
        {"command": None},
        {"command": []},
        {"command": PLAY, "extra": 1},
        {"command": PLAY, "expected_version": None},
        {"command": PLAY, "expected_version": -1},
        {"command": PLAY, "expected_version": MAX_VERSION + 1},
        {"command": PLAY, "expected_version": True},
        {"command": PLAY, "expected_version": 1.5},
        {"command": PLAY, "expected_version": "3"},
        {"expected_version": 3},
    ],
)
def test_a_malformed_move_body_is_refused_with_the_schemas_own_errors(table, redis_client, body):
    """Every body the quick check does not accept goes through the schema: a 422 whose ``errors``
    are the schema's messages, and nothing changes."""
    with pytest.raises(ValidationError) as refused:
        MoveRequest().load(body)
    before = redis_dump(redis_client)
    response = table.client.post(f"/v1/games/{table.id}/moves", json=body, headers=table.auth(0))
    problem = assert_problem(response, 422, "VALIDATION_ERROR")
    assert problem["errors"] == {"json": refused.value.messages}
    assert redis_dump(redis_client) == before


def awaited_seat(table: Table) -> tuple[int, dict]:
    seat = table.view()["view"]["turn"]
    return seat, table.view(seat)


def a_move(view: dict) -> dict:
    hand = view["view"]["hand"]
    return {"type": "play", "card": hand[0]} if hand else PLAY


@pytest.mark.parametrize(
    "prefer", ["return=minimal", 'RETURN = "minimal"', "respond-async, return=minimal; x=1"]
)
def test_prefer_return_minimal_answers_only_the_new_version(table, prefer):
    seat, view = awaited_seat(table)
    response = table.move(seat, a_move(view), expected_version=view["version"], headers={"Prefer": prefer})
    assert response.status_code == 200, response.get_json()
    version = view["version"] + 1
    assert response.get_json() == {"game_id": table.id, "version": version}
    assert response.headers["Preference-Applied"] == "return=minimal"
    assert response.headers["ETag"] == f'"{version}.s{seat}"'
    assert response.headers["Cache-Control"] == "no-store"
    assert table.view(seat)["version"] == version  # the move was applied all the same


def test_without_prefer_minimal_the_answer_is_whole(table):
    seat, view = awaited_seat(table)
    response = table.move(seat, a_move(view), headers={"Prefer": "return=representation"})
    assert response.status_code == 200
    answer = response.get_json()
    assert set(answer) == {"game_id", "version", "events", "view"}
    assert "Preference-Applied" not in response.headers
    assert answer["view"] == table.view(seat)


def test_a_minimal_answer_with_an_idempotency_key_stores_the_whole_answer(table):
    """A key's retry gets the first answer; the answer kept for it is the whole one, so a retry
    that does not ask for a minimal answer still gets the view."""
    seat, view = awaited_seat(table)
    key = {"Idempotency-Key": "minimal-then-whole"}
    first = table.move(seat, a_move(view), headers={**key, "Prefer": "return=minimal"})
    assert first.status_code == 200 and set(first.get_json()) == {"game_id", "version"}
    again = table.move(seat, a_move(view), headers=key)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["version"] == first.get_json()["version"]
    assert again.get_json()["view"]["seat"] == seat and "events" in again.get_json()
    minimal_again = table.move(seat, a_move(view), headers={**key, "Prefer": "return=minimal"})
    assert minimal_again.get_json() == first.get_json()
    assert minimal_again.headers["ETag"] == first.headers["ETag"]


def test_the_whole_answers_view_is_the_document_the_seats_stream_sends(client):
    """The move encodes the seat's view once and its view stream sends those bytes: the same
    document as the answer's ``view`` (and as GET /view)."""
    table = Table(client, hand_size=3)
    seat, view = awaited_seat(table)
    answer = table.move(seat, a_move(view)).get_json()
    encoded = client.application.extensions["game_service"].queries.encoded
    assert json.loads(encoded[(table.id, answer["version"], seat)]) == answer["view"]  # before any stream
    stream = view_stream(client, table.id, headers=table.auth(seat), query=f"?after={view['version']}")
    first = next(m for m in read_messages(stream.response) if m.event == "view")
    stream.close()
    assert first.id == answer["version"]
    assert first.data == answer["view"] == table.view(seat)


def test_a_browser_may_ask_for_the_minimal_answer_and_read_that_it_got_it(table, client):
    """CORS: ``Prefer`` is an allowed request header and ``Preference-Applied`` an exposed one."""
    preflight = client.options(
        f"/v1/games/{table.id}/moves",
        headers={
            "Origin": "https://client.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, prefer",
        },
    )
    allowed = {h.strip().lower() for h in preflight.headers["Access-Control-Allow-Headers"].split(",")}
    assert "prefer" in allowed
    seat, view = awaited_seat(table)
    response = table.move(
        seat, a_move(view), headers={"Origin": "https://client.example", "Prefer": "return=minimal"}
    )
    exposed = {h.strip().lower() for h in response.headers["Access-Control-Expose-Headers"].split(",")}
    assert "preference-applied" in exposed and response.headers["Preference-Applied"] == "return=minimal"
