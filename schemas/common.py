"""What the request schemas of every area share."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

import marshmallow as ma
from marshmallow import ValidationError, fields, validate

# Deepest JSON nesting a request body may have. A command or a configuration needs four levels;
# anything deep is refused before it reaches code that recurses over it (the move's
# fingerprint, an orjson.dumps, failed with a 500 on a command nested 253 levels deep).
MAX_JSON_DEPTH = 32


def json_depth(value: Any) -> int:
    """The nesting depth of a parsed JSON value (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children: Iterable[Any]
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_JSON_DEPTH:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest


def too_deep(raw: bytes, value: Any) -> bool:
    """Whether ``value``, parsed from the JSON text ``raw``, nests arrays and objects more than
    ``MAX_JSON_DEPTH`` levels deep. Every level opens a bracket or a brace in ``raw``, so a text
    with few of them (a move's body: three) is decided by counting, not by walking ``value``."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_JSON_DEPTH:
        return False
    return json_depth(value) > MAX_JSON_DEPTH


# Bidirectional formatting characters (Unicode's Bidi_Control property): they reorder the text
# around them, so a name carrying one can show as another player's name or hide its end.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Categories that draw nothing by themselves: separators, controls, format characters, unassigned,
# private use, lone combining marks.
_INVISIBLE_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn", "Mn", "Me"})
# Letters and symbols that render blank (Hangul fillers, the blank Braille pattern).
_BLANK_CHARACTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def display_name_problem(name: str) -> str | None:
    """Why ``name`` (already NFC-normalised) cannot be shown as a player's name, or None."""
    if any(c in BIDI_CONTROLS for c in name):
        return "Name must not contain bidirectional control characters."
    if any(unicodedata.category(c) == "Cc" for c in name):
        return "Name must be printable."
    if not any(
        unicodedata.category(c) not in _INVISIBLE_CATEGORIES and c not in _BLANK_CHARACTERS for c in name
    ):
        return "Name must contain a visible character."
    return None


DISPLAY_NAME_FORMAT = "display-name"


class DisplayName(fields.String):
    """A player's public name: normalised to Unicode NFC (so equal-looking names compare equal), at
    most ``max_length`` characters, refused when it shows nothing or carries bidirectional
    controls."""

    def __init__(self, max_length: int = 40, **kwargs: Any):
        # Documented as minLength/maxLength and the format "display-name" (what no JSON Schema
        # pattern without Unicode classes can say: a visible character, no bidi or control one).
        metadata = {"format": DISPLAY_NAME_FORMAT, "minLength": 1, "maxLength": max_length}
        kwargs["metadata"] = {**metadata, **kwargs.get("metadata", {})}
        super().__init__(**kwargs)
        self.max_length = max_length

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        name = unicodedata.normalize("NFC", super()._deserialize(value, attr, data, **kwargs))
        if not 1 <= len(name) <= self.max_length:
            raise ValidationError(f"Name has 1 to {self.max_length} characters.")
        problem = display_name_problem(name)
        if problem:
            raise ValidationError(problem)
        return name


class GameName(fields.String):
    """A game's name: documented as the enum of the games that publish a contract (api/contract.py
    fills it in when the document is built); the route refuses others itself (422 UNKNOWN_GAME)."""

    game_name = True

    def __init__(self, **kwargs: Any):
        kwargs.setdefault("validate", validate.Length(1, 64))
        super().__init__(**kwargs)


class StrictSchema(ma.Schema):
    """A request body or query that refuses unknown fields (422 VALIDATION_ERROR), so a misspelt
    option is an error rather than silently ignored."""

    class Meta:
        unknown = ma.RAISE


class _JSONInteger(fields.Integer):
    """An integer of a JSON body, as JSON Schema's ``"type": "integer"`` reads one: a number with no
    fractional part (``12`` or ``12.0``), never a string, a boolean or ``1.9``."""

    def _validated(self, value: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return super()._validated(value)


class BodyBoolean(fields.Boolean):
    """A boolean in a JSON body: ``true`` or ``false`` only (marshmallow's own also takes 0, 1, "yes"
    and more, which the document's ``"type": "boolean"`` does not: schemathesis sent
    ``"prearranged": 0``)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if type(value) is not bool:
            raise self.make_error("invalid", input=value)
        return value


def BodyInteger(**kwargs: Any) -> fields.Integer:  # noqa: N802 - a field factory reads like a field class
    """An integer in a JSON body: only JSON integers (marshmallow's default truncates 1.9 to 1 and
    reads "1" as 1, so ``"seat": 1.9`` claimed seat 1). ``12.0`` is the integer 12, as the OpenAPI
    document's JSON Schema says (schemathesis sent ``"expected_version": 111364095.0``)."""
    return _JSONInteger(strict=True, **kwargs)


# A digit followed by a point or an exponent: where a JSON text can hold a number orjson parses as a
# float. Any other body has none, and is not walked.
_FLOAT_SYNTAX = re.compile(rb"[0-9][.eE]")
_EXACT = 2**53 - 1


def integral_floats_as_ints(raw: bytes, value: Any) -> Any:
    """``value`` (parsed from ``raw``) with every number without a fractional part (``12.0``,
    ``1e3``) as an int, as JSON Schema's ``"type": "integer"`` reads them: the OpenAPI document's
    integers are then integers wherever the server reads one (schemathesis sent
    ``"expected_version": 111364095.0``, and the engines' commands and configurations hold integers
    only). A non-integral number stays a float, and is refused where an integer is due. Call it
    after the depth check (it recurses)."""
    if not _FLOAT_SYNTAX.search(raw):
        return value
    return _as_ints(value)


def _as_ints(value: Any) -> Any:
    if type(value) is float:
        # Only where a float is exact (a larger one stays a float: no integer there is valid anyway,
        # and a huge int would not even encode back to JSON).
        return int(value) if value.is_integer() and abs(value) <= _EXACT else value
    if type(value) is dict:
        return {key: _as_ints(item) for key, item in value.items()}
    if type(value) is list:
        return [_as_ints(item) for item in value]
    return value


# A Redis stream entry id (what Last-Event-ID and `after` resume from): two unsigned 64-bit parts. A
# larger part passes a digits pattern and makes Redis refuse the read (a dropped stream a browser
# opens again every few seconds, or a 500), and nothing comes after the very largest id.
STREAM_ID_PATTERN = r"^\d{1,20}-\d{1,20}$"
_STREAM_ID = re.compile(STREAM_ID_PATTERN)
_MOST_ID_PART = 2**64 - 1


def stream_id_ok(value: str) -> bool:
    """Whether ``value`` is an id a stream entry can have and a read can start after."""
    if not _STREAM_ID.match(value):
        return False
    parts = tuple(int(part) for part in value.split("-"))
    return max(parts) <= _MOST_ID_PART and parts != (_MOST_ID_PART, _MOST_ID_PART)
