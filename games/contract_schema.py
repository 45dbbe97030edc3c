"""JSON Schema (draft 2020-12, as OpenAPI 3.1 uses) building blocks that every engine's ``contract``
module writes its commands, events and views with, so the engines' contracts share one dialect:
closed objects (``additionalProperties: false``, so a field an engine adds without declaring it fails
the contract tests), versioned events, and ``oneOf`` unions with a ``type`` discriminator.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Schema = dict[str, Any]

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def ref(name: str) -> Schema:
    """A reference to ``$defs/<name>`` of the contract document."""
    return {"$ref": f"#/$defs/{name}"}


def obj(properties: dict[str, Schema], required: list[str] | None = None, **extra: Any) -> Schema:
    """A closed object; every property is required unless ``required`` names fewer."""
    schema: Schema = {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }
    schema.update(extra)
    return schema


def nullable(schema: Schema) -> Schema:
    """``schema`` or null (null where a value is redacted or not yet known)."""
    return {"anyOf": [schema, {"type": "null"}]}


def array(items: Schema, **extra: Any) -> Schema:
    """An array of ``items``; ``extra`` adds keywords such as ``minItems`` or ``description``."""
    return {"type": "array", "items": items, **extra}


def const(value: str) -> Schema:
    """The string ``value`` and nothing else."""
    return {"type": "string", "const": value}


def enum(values: Iterable[str], doc: str | None = None) -> Schema:
    """One of the strings ``values``, in their order."""
    schema: Schema = {"type": "string", "enum": list(values)}
    if doc:
        schema["description"] = doc
    return schema


def mapping(values: Schema, keys: Schema | None = None) -> Schema:
    """An object used as a map: any keys (or those ``keys`` allows) to ``values``."""
    schema: Schema = {"type": "object", "additionalProperties": values}
    if keys is not None:
        schema["propertyNames"] = keys
    return schema


def event(type_: str, properties: dict[str, Schema], optional: tuple[str, ...] = (), doc: str = "") -> Schema:
    """An event of version 1 with discriminator ``type_``; all its fields but ``optional`` required."""
    props = {"type": const(type_), "v": {"type": "integer", "const": 1}, **properties}
    required = [name for name in props if name not in optional]
    return obj(props, required=required, description=doc) if doc else obj(props, required=required)


# ``games.base.COMMITMENT``: the server's commitment to the seed, in the first event of a log it
# started (docs/fairness.md). Public: it hides the seed.
COMMITMENT: Schema = obj(
    {
        "scheme": {"type": "string", "const": "sha256-v1"},
        "digest": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "prearranged": {"type": "boolean"},
    },
    description="SHA-256 commitment to the game's seed, published at creation (docs/fairness.md)",
)


def union(members: dict[str, Schema], doc: str) -> Schema:
    """``oneOf`` the ``$defs`` named by ``members``, discriminated by their ``type`` constants."""
    discriminated = {
        member["properties"]["type"]["const"]: f"#/$defs/{name}" for name, member in members.items()
    }
    return {
        "oneOf": [ref(name) for name in members],
        "discriminator": {"propertyName": "type", "mapping": discriminated},
        "description": doc,
    }


def document(defs: dict[str, Schema]) -> Schema:
    """The contract document holding ``defs``."""
    return {"$schema": DRAFT, "$defs": defs}


# What a configuration's seed may be (``games.base.normalise_seed``): null (0), an integer (as the
# JSON parser reads it: at most 2**64 - 1), or a decimal string of a number above 2**53 - 1 (those
# with 17 to 38 digits, all below 2**128, say so exactly enough for a generator).
SEED_REQUEST: Schema = {
    "anyOf": [
        {"type": "integer", "minimum": 0, "maximum": 2**64 - 1},
        {"type": "string", "pattern": "^[1-9][0-9]{16,37}$"},
        {"type": "null"},
    ],
    "description": "Fixes every shuffle (the game is then prearranged); default: a secret one drawn",
}

# The platform's mark on a result (service/games.py): an aborted game is never rated.
RATED: Schema = {
    "type": "boolean",
    "const": False,
    "description": "Present (false) on an aborted game's result: no rating or statistic counts it",
}
