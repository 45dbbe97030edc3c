"""Validate what the engine produces against the contract it publishes (games.base.ContractHooks):
the property tests call these on every event (as each viewer receives it), view and legal move of
their random games, so the published schemas cannot drift from the engine (issue 15).

jsonschema_rs (the Rust validator schemathesis depends on) does the bulk work: about 3,000 times
faster than the pure-Python jsonschema here, which would otherwise dominate the property tests;
jsonschema explains a failure."""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator

from games import get_game
from games.base import ContractHooks, hook


@cache
def _schema(game_name: str, definition: str) -> dict[str, Any]:
    document = hook(get_game(game_name), "contract")()
    Draft202012Validator.check_schema(document)
    return {**document, "$ref": f"#/$defs/{definition}"}


@cache
def _fast(game_name: str, definition: str) -> Any:
    return jsonschema_rs.validator_for(_schema(game_name, definition))


def problems(game_name: str, definition: str, instance: Any) -> list[str]:
    if _fast(game_name, definition).is_valid(instance):
        return []
    explained = [
        f"{'/'.join(map(str, error.absolute_path)) or '<root>'}: {error.message}"
        for error in Draft202012Validator(_schema(game_name, definition)).iter_errors(instance)
    ]
    return explained or ["invalid (jsonschema_rs)"]


def check(definition: str, instance: Any, game_name: str = "condottiere") -> None:
    found = problems(game_name, definition, instance)
    assert not found, f"{definition} breaks the published contract: {found[:5]} in {instance!r:.500}"


def assert_valid_document(game: Any) -> None:
    """The game publishes a JSON Schema 2020-12 document holding what the API lifts into openapi.yaml."""
    assert isinstance(game, ContractHooks)
    document = game.contract()
    Draft202012Validator.check_schema(document)
    assert {"Command", "Event", "View", "Config"} <= set(document["$defs"])


def assert_discriminated_by_type(game: Any, union: str) -> None:
    """``union`` is a ``oneOf`` whose discriminator maps each member's ``type`` constant to it."""
    defs = game.contract()["$defs"]
    schema = defs[union]
    assert schema["discriminator"]["propertyName"] == "type"
    members = [ref["$ref"] for ref in schema["oneOf"]]
    mapping = schema["discriminator"]["mapping"]
    assert sorted(mapping.values()) == sorted(members)
    for type_, ref in mapping.items():
        member = defs[ref.removeprefix("#/$defs/")]
        assert member["properties"]["type"]["const"] == type_
        assert "type" in member["required"]
