"""The games' part of the OpenAPI contract: every registered game that implements
``games.base.ContractHooks`` publishes its JSON Schemas (commands, events, views, configuration),
which are lifted into ``components/schemas`` under the game's prefix (``Condottiere`` +
``Command``...), and the engine-specific fields of the API's own schemas (``schemas.games``:
fields whose class names a ``contract_definition``) point at them.

Only the game knows its cards and regions; this module moves its schema documents around without
reading them."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import marshmallow as ma
from apispec import APISpec
from apispec.ext.marshmallow.field_converter import FieldConverterMixin

from bots import levels
from games import game_names, get_game
from games.base import contract_hooks
from schemas.games import BOT_SEAT_PATTERN

COMPONENTS = "#/components/schemas/"


def prefix(game_name: str) -> str:
    return "".join(part.capitalize() for part in game_name.replace("-", "_").split("_"))


def contract_games() -> list[str]:
    """Registered games that publish a contract, in name order (games without one stay untyped).
    Games registered from test code only (``tests.*`` modules) are left out, so the generated
    document does not depend on what a test process registered."""
    names = []
    for name in game_names():
        game = get_game(name)
        if contract_hooks(game) is not None and not type(game).__module__.startswith("tests."):
            names.append(name)
    return names


def _rewrite(node: Any, game_prefix: str) -> Any:
    """``#/$defs/X`` -> ``#/components/schemas/<prefix>X``, in references and discriminator mappings."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                out[key] = COMPONENTS + game_prefix + value.removeprefix("#/$defs/")
            elif key == "mapping" and isinstance(value, dict):
                out[key] = {
                    k: COMPONENTS + game_prefix + v.removeprefix("#/$defs/") if isinstance(v, str) else v
                    for k, v in value.items()
                }
            else:
                out[key] = _rewrite(value, game_prefix)
        return out
    if isinstance(node, list):
        return [_rewrite(item, game_prefix) for item in node]
    return node


def register_components(spec: APISpec) -> list[str]:
    """Add every contract game's definitions to ``spec``; returns the games' prefixes."""
    prefixes = []
    for name in contract_games():
        game_prefix = prefix(name)
        hooks = contract_hooks(get_game(name))
        assert hooks is not None  # the names are those with the hook
        document = hooks.contract()
        for definition, schema in document["$defs"].items():
            spec.components.schema(game_prefix + definition, _rewrite(schema, game_prefix))
        prefixes.append(game_prefix)
    return prefixes


def attribute_function(prefixes: list[str]) -> Callable[..., dict[str, Any]]:
    """An apispec attribute function: a field whose class sets ``contract_definition`` becomes a
    reference to that definition of the game (or an ``anyOf`` over the games, when several publish)."""

    def game_contract_field(
        self: FieldConverterMixin, field: ma.fields.Field[Any], ret: dict[str, Any], **kwargs: Any
    ) -> dict[str, Any]:
        if getattr(field, "game_name", False):
            return {"enum": contract_games()}
        definition = getattr(field, "contract_definition", None)
        if definition is None or not prefixes:
            return _key_pattern(field)
        for key in ("type", "additionalProperties", "propertyNames"):
            ret.pop(key, None)
        refs = [{"$ref": COMPONENTS + game_prefix + definition} for game_prefix in prefixes]
        if field.allow_none:
            return {"anyOf": [*refs, {"type": "null"}]}
        # anyOf, not oneOf: the games' unions may overlap (every game knows the server's
        # seat_token_rotated event; two games may both have a {"type": "pass"} command), and which
        # game a document belongs to is said by the resource (the game summary's `game`), not by it.
        return refs[0] if len(refs) == 1 else {"anyOf": refs}

    return game_contract_field


def _key_pattern(field: ma.fields.Field[Any]) -> dict[str, Any]:
    """A mapping whose keys the route checks against a pattern says so (``propertyNames``), so a
    client or a fuzzer never sends a key the schema allows and the route refuses."""
    keys = getattr(field, "key_field", None) if isinstance(field, ma.fields.Dict) else None
    for validator in getattr(keys, "validators", ()):
        if isinstance(validator, ma.validate.Regexp):
            return {"propertyNames": {"pattern": validator.regex.pattern}}
    return {}


def register_create_game_requests(spec: APISpec, converter: Any, schema: Any) -> str:
    """``CreateGameRequest`` as the document shows it: ``oneOf`` one request per contract game
    (``<Prefix>CreateGameRequest``), discriminated by ``game``, each with the game's own
    ``ConfigRequest`` and bot levels; the route still parses with ``schema`` (the engines check the
    configuration). Returns the component's reference for the route's ``requestBody``."""
    base = converter.schema2jsonschema(schema)
    variants: dict[str, str] = {}
    for name in contract_games():
        game_prefix = prefix(name)
        variant = copy.deepcopy(base)
        properties = variant["properties"]
        properties["game"] = {"type": "string", "const": name}
        properties["config"] = {
            "$ref": COMPONENTS + game_prefix + "ConfigRequest",
            "description": "The game's configuration (see its protocol document)",
        }
        bots = properties["bots"]
        bots["additionalProperties"] = {"type": "string", "enum": levels(name)}
        bots["propertyNames"] = {"pattern": BOT_SEAT_PATTERN}
        variant["required"] = sorted({*variant.get("required", []), "game", "config"})
        component = game_prefix + "CreateGameRequest"
        spec.components.schema(component, variant)
        variants[name] = COMPONENTS + component
    spec.components.schema(
        "CreateGameRequest",
        {
            "oneOf": [{"$ref": ref} for ref in variants.values()],
            "discriminator": {"propertyName": "game", "mapping": variants},
            "description": "A new game: which game, its configuration, bot seats and time control",
        },
    )
    return COMPONENTS + "CreateGameRequest"
