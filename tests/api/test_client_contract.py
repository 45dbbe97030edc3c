"""What a client of several games relies on, over HTTP: every view names its game, and the
contract's ClaimSeatRequest accepts the body the server accepts (`{}` with an account token)."""

from __future__ import annotations

import jsonschema
import pytest

from games import get_game
from games.base import contract_hooks
from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, session

CONFIGS = {"condottiere": {"players": 2}, "rio_de_la_plata": {"players": 3}, "toy": {"hand_size": 1}}


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH)


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_every_view_names_its_game(client, game):
    created = client.post("/v1/games", json={"game": game, "config": CONFIGS[game]})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    tokens = [
        client.post(f"/v1/games/{game_id}/seats", json={"name": f"P{i}"}).get_json()["token"]
        for i in range(created.get_json()["seat_count"])
    ]
    spectator = client.get(f"/v1/games/{game_id}/view").get_json()
    seat = client.get(f"/v1/games/{game_id}/view", headers=bearer(tokens[0])).get_json()
    assert spectator["view"]["game"] == seat["view"]["game"] == game
    contract = contract_hooks(get_game(game))
    if contract is not None:  # the engine's published view schema requires it too
        assert "game" in contract.contract()["$defs"]["View"]["required"]


def _resolved(spec: dict, schema: dict) -> dict:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def test_the_contract_accepts_the_empty_claim_the_server_accepts_with_an_account_token(client):
    spec = client.get("/v1/openapi.json").get_json()
    post = spec["paths"]["/v1/games/{game_id}/seats"]["post"]
    schema = _resolved(spec, post["requestBody"]["content"]["application/json"]["schema"])
    jsonschema.validate({}, schema)
    jsonschema.validate({"seat": 1}, schema)
    ann = session(client, "Ann")
    game_id = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}}).get_json()["id"]
    claimed = client.post(f"/v1/games/{game_id}/seats", json={}, headers=bearer(ann))
    assert claimed.status_code == 201 and claimed.get_json()["name"] == "Ann"
    # without an account token, `{}` names nobody: still refused by the route
    refused = client.post(f"/v1/games/{game_id}/seats", json={})
    assert refused.status_code == 422 and refused.get_json()["code"] == "NAME_REQUIRED"
