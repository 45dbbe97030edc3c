"""Bad input found from outside (issue 8, finding 5): every one is a 4xx problem+json with a stable
code, never a 500, and a refused request changes nothing in Redis."""

from __future__ import annotations

import unicodedata

import orjson
import pytest

from schemas.common import MAX_JSON_DEPTH, json_depth, too_deep
from tests.api.conftest import redis_dump
from tests.api.test_errors import assert_problem


def nested(depth: int) -> dict:
    command: dict = {"type": "play"}
    for _ in range(depth - 1):
        command = {"type": "play", "card": command}
    return command


@pytest.mark.parametrize("opener", ["[", "{"])
def test_too_deep_counts_brackets_and_braces_alike_and_walks_past_the_limit(opener):
    """The depth check counts a text's brackets and braces before it walks the value (a move's body
    opens three): a text nesting arrays or objects one level past MAX_JSON_DEPTH is too deep, one at
    the limit is not, and brackets inside strings never make a shallow value too deep."""
    for depth, expected in ((MAX_JSON_DEPTH, False), (MAX_JSON_DEPTH + 1, True)):
        text = ('{"a":' if opener == "{" else "[") * depth + "0" + ("}" if opener == "{" else "]") * depth
        value = orjson.loads(text)
        assert json_depth(value) == depth
        assert too_deep(text.encode(), value) is expected
    quoted = orjson.dumps({"name": "[{" * 100})
    assert not too_deep(quoted, orjson.loads(quoted))


@pytest.mark.parametrize("depth", [33, 253, 600])
def test_a_deeply_nested_command_is_refused_with_400_not_500(table, redis_client, depth):
    """Nesting past MAX_JSON_DEPTH (32) is refused before anything recurses over it (the move's
    fingerprint failed with a 500 at 253 levels)."""
    before = redis_dump(redis_client)
    assert_problem(table.move(0, nested(depth), expected_version=None), 400, "JSON_TOO_DEEP")
    assert_problem(table.move(0, nested(depth)), 400, "JSON_TOO_DEEP")
    assert redis_dump(redis_client) == before


@pytest.mark.parametrize("seat", [1.9, 2.589e-42, "1", True])
def test_a_seat_number_must_be_a_json_integer(client, redis_client, seat):
    """``"seat": 1.9`` claimed seat 1 and ``2.589e-42`` seat 0 (marshmallow truncated them)."""
    game_id = client.post("/v1/games", json={"game": "toy", "config": {"seed": 1}}).get_json()["id"]
    before = redis_dump(redis_client)
    response = client.post(f"/v1/games/{game_id}/seats", json={"name": "Ann", "seat": seat})
    body = assert_problem(response, 422, "VALIDATION_ERROR")
    assert "seat" in str(body["errors"])
    assert redis_dump(redis_client) == before


def test_a_number_without_fraction_is_the_integer_json_schema_says_it_is(client):
    """Issue 36: the OpenAPI document's ``"type": "integer"`` holds ``1.0`` (schemathesis sent
    ``"expected_version": 111364095.0``), so the server reads it as 1: seat 1 is claimed."""
    game_id = client.post("/v1/games", json={"game": "toy", "config": {"seed": 1}}).get_json()["id"]
    response = client.post(f"/v1/games/{game_id}/seats", json={"name": "Ann", "seat": 1.0})
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["seat"] == 1


def test_expected_version_must_be_a_json_integer(table, redis_client):
    before = redis_dump(redis_client)
    view = table.view(0)["view"]
    version = table.view(0)["version"]
    seat = view["awaiting"][0]
    move = table.view(seat)["view"]["legal_moves"][0]
    assert_problem(table.move(seat, move, expected_version=version + 0.5), 422, "VALIDATION_ERROR")
    assert_problem(table.move(seat, move, expected_version=str(version)), 422, "VALIDATION_ERROR")
    assert redis_dump(redis_client) == before


@pytest.mark.parametrize(
    "name",
    [
        "\u202eevil",  # right-to-left override
        "Ann\u2066",  # left-to-right isolate
        "Bob\u200f",  # right-to-left mark
        "\u200b\u200b",  # zero-width spaces only
        "\u3164",  # Hangul filler: a letter that draws nothing
        "\u00a0 \u2003",  # spaces only
        "\u0301",  # a lone combining mark
        "a\x00b",  # a control character
    ],
)
def test_display_names_with_bidi_controls_or_nothing_visible_are_refused(client, redis_client, name):
    game_id = client.post("/v1/games", json={"game": "toy", "config": {"seed": 1}}).get_json()["id"]
    before = redis_dump(redis_client)
    response = client.post(f"/v1/games/{game_id}/seats", json={"name": name})
    assert_problem(response, 422, "VALIDATION_ERROR")
    assert redis_dump(redis_client) == before


def test_display_names_are_normalised_to_nfc(client):
    game_id = client.post("/v1/games", json={"game": "toy", "config": {"seed": 1}}).get_json()["id"]
    decomposed = "Rene\u0301"  # e + combining acute accent
    assert client.post(f"/v1/games/{game_id}/seats", json={"name": decomposed}).status_code == 201
    names = [s["name"] for s in client.get(f"/v1/games/{game_id}").get_json()["seats"]]
    assert names[0] == unicodedata.normalize("NFC", decomposed) == "Ren\u00e9"


@pytest.mark.parametrize("name", ["%00", "%E2%80%AEevil", "%E2%80%8B"])
def test_player_statistics_of_a_name_no_claim_can_have_are_refused_before_any_job(client, redis_client, name):
    before = redis_dump(redis_client)
    assert_problem(client.get(f"/v1/stats/players/{name}"), 422, "VALIDATION_ERROR")
    assert redis_dump(redis_client) == before


@pytest.mark.parametrize("value", ["null", "maybe", "", "2"])
def test_health_deep_must_be_a_boolean(client, value):
    assert_problem(client.get(f"/v1/health?deep={value}"), 422, "VALIDATION_ERROR")


def test_health_deep_true_and_false(client):
    assert client.get("/v1/health?deep=true").get_json() == {"status": "ok", "redis": "ok"}
    assert client.get("/v1/health?deep=false").get_json() == {"status": "ok"}
    assert client.get("/v1/health").get_json() == {"status": "ok"}


@pytest.mark.parametrize("seed", [-1, str(2**128), "-1", "01", "1e3", 1.5, True, " 5", "seed", "7"])
def test_rl_10_seeds_out_of_range_or_not_integers_are_refused(client, redis_client, seed):
    """RL-10: a seed is an integer from 0 to 2**128 - 1 (a decimal string above 2**53 - 1, and only
    there: "7" stays refused)."""
    before = redis_dump(redis_client)
    response = client.post("/v1/games", json={"game": "condottiere", "config": {"players": 2, "seed": seed}})
    assert_problem(response, 422, "INVALID_SEED")
    assert redis_dump(redis_client) == before


@pytest.mark.parametrize("seed", [0, 2**53 - 1, str(2**53), str(2**128 - 1)])
def test_rl_10_seeds_in_range_are_accepted(client, seed):
    response = client.post("/v1/games", json={"game": "condottiere", "config": {"players": 2, "seed": seed}})
    assert response.status_code == 201, response.get_json()
