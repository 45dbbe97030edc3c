"""Validate what the engine produces against the contract it publishes (games.base.ContractHooks):
the property tests call these on every event (as each viewer receives it), view and legal move of
their random games, so the published schemas cannot drift from the engine (issue 15).

jsonschema_rs (the Rust validator schemathesis depends on) does the bulk work: about 3,000 times
faster than the pure-Python jsonschema here, which would otherwise dominate the property tests;
jsonschema explains a failure."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator

from games import get_game
from games.base import ContractHooks, contract_hooks


def _contract(game_name: str) -> dict[str, Any]:
    hooks = contract_hooks(get_game(game_name))
    assert hooks is not None, f"{game_name} publishes no contract"
    return hooks.contract()


@cache
def _schema(game_name: str, definition: str) -> dict[str, Any]:
    document = _contract(game_name)
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


def first_problem(game_name: str, definition: str, instance: Any, found: list[str]) -> None:
    """Add to ``found`` what is wrong with ``instance``, explained for the first five only (the
    explanation is the slow pure-Python validator's: thousands of broken documents would take
    minutes to explain)."""
    if _fast(game_name, definition).is_valid(instance):
        return
    found.append(problems(game_name, definition, instance)[0] if len(found) < 5 else f"{definition}: invalid")


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


class Coverage:
    """Which closed objects (``additionalProperties: false``) of a game's contract the checked
    documents reached, and which of their properties they showed. A contract test that validates
    documents only proves something about the shapes it met: issue 35 found Rio's ship with two
    fields its closed schema does not list, in every state after a launch, which the random games
    of the contract test never reached. :meth:`missing` names what no document exercised."""

    def __init__(self, game_name: str):
        self.game_name = game_name
        self.document = _contract(game_name)
        self.defs = self.document["$defs"]
        self.seen: dict[str, set[str]] = {}
        self._validators: dict[int, Any] = {}

    def add(self, definition: str, instance: Any) -> None:
        self._walk(self.defs[definition], instance, definition)

    def _matches(self, schema: dict[str, Any], instance: Any) -> bool:
        validator = self._validators.get(id(schema))
        if validator is None:
            validator = jsonschema_rs.validator_for({"$defs": self.defs, **schema})
            self._validators[id(schema)] = validator
        return bool(validator.is_valid(instance))

    def _walk(self, schema: dict[str, Any], instance: Any, where: str) -> None:
        if "$ref" in schema:
            name = schema["$ref"].removeprefix("#/$defs/")
            self._walk(self.defs[name], instance, name)
            return
        discriminator = schema.get("discriminator")
        if discriminator is not None and isinstance(instance, dict):
            target = discriminator["mapping"].get(instance.get(discriminator["propertyName"]))
            if target is not None:
                self._walk({"$ref": target}, instance, where)
            return
        for keyword in ("anyOf", "oneOf"):
            for branch in schema.get(keyword, ()):
                if branch != {"type": "null"} and self._matches(branch, instance):
                    self._walk(branch, instance, where)
                    break
        if isinstance(instance, dict):
            properties = schema.get("properties", {})
            if schema.get("additionalProperties") is False:
                self.seen.setdefault(where, set()).update(instance)
            extra = schema.get("additionalProperties")
            for key, value in instance.items():
                if key in properties:
                    self._walk(properties[key], value, f"{where}.{key}")
                elif isinstance(extra, dict):
                    self._walk(extra, value, f"{where}[]")
        elif isinstance(instance, list) and isinstance(schema.get("items"), dict):
            for item in instance:
                self._walk(schema["items"], item, f"{where}[]")

    def closed_objects(self) -> dict[str, set[str]]:
        """Every closed object of the document reachable from its ``$defs``, by the name the walk
        gives it (its definition's, with the path inside it for an inline one) -> its properties."""
        found: dict[str, set[str]] = {}

        def visit(schema: Any, where: str) -> None:
            if not isinstance(schema, dict):
                return
            if schema.get("additionalProperties") is False:
                found[where] = set(schema.get("properties", {}))
            for key, value in schema.get("properties", {}).items():
                visit(value, f"{where}.{key}")
            if isinstance(schema.get("additionalProperties"), dict):
                visit(schema["additionalProperties"], f"{where}[]")
            if isinstance(schema.get("items"), dict):
                visit(schema["items"], f"{where}[]")
            for keyword in ("anyOf", "oneOf"):
                for branch in schema.get(keyword, ()):
                    if "$ref" not in branch:
                        visit(branch, where)

        for name, schema in self.defs.items():
            visit(schema, name)
        return found

    def missing(self, ignore: Iterable[str | tuple[str, str]] = ()) -> dict[str, list[str]]:
        """Closed objects no document reached (-> ``["<never reached>"]``), and those whose listed
        properties some never showed (-> those properties); ``ignore``: object names, or (object,
        property) pairs, not to ask for."""
        skipped = set(ignore)
        out: dict[str, list[str]] = {}
        for where, properties in self.closed_objects().items():
            if where in skipped:
                continue
            if where not in self.seen:
                out[where] = ["<never reached>"]
                continue
            unseen = sorted(p for p in properties - self.seen[where] if (where, p) not in skipped)
            if unseen:
                out[where] = unseen
        return out
