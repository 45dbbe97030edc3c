"""A board document's values (section 21) and the checks of a single value (section 21.1).

Every datum of the document is a tagged value ``{"v": ..., "src": ..., "note": ...}`` whose ``src``
is one of ``SOURCES``; :class:`Reader` reads them by path and notes the provisional ones. The loader,
:class:`games.rio_de_la_plata.board.Board`, reads the document with these and checks how the values
fit together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.base import ConfigError

SOURCES = ("rulebook", "board", "provisional", "ruling")
GOODS = ("stone", "wood", "luxury")


class BoardError(ConfigError):
    """A board document the engine cannot use."""

    def __init__(self, message: str, code: str = "INVALID_BOARD"):
        super().__init__(code, message, "RIO-GAP-1")


def check_tags(node: Any, path: str, inside: bool) -> None:
    """Every leaf lies inside exactly one tagged value, and nothing inside a tagged value is tagged."""
    if isinstance(node, dict):
        if "v" in node and "src" in node:
            if inside:
                raise BoardError(f"{path}: a tagged value inside a tagged value")
            extra = set(node) - {"v", "src", "note"}
            if extra:
                raise BoardError(f"{path}: unknown key(s) {sorted(extra)} in a tagged value")
            if node["src"] not in SOURCES:
                raise BoardError(f"{path}.src: {node['src']!r} is not one of {list(SOURCES)}")
            if "note" in node and not isinstance(node["note"], str):
                raise BoardError(f"{path}.note: a note is text")
            check_tags(node["v"], path + ".v", True)
            return
        for key, value in node.items():
            check_tags(value, f"{path}.{key}", inside)
        return
    if isinstance(node, list):
        for i, value in enumerate(node):
            check_tags(value, f"{path}[{i}]", inside)
        return
    if not inside:
        raise BoardError(f"{path}: untagged datum {node!r} (section 21: every datum is a tagged value)")


class Reader:
    """Reads tagged values by path, with a clear error when one is missing or of the wrong type."""

    def __init__(self, doc: Mapping[str, Any]):
        self.doc = doc
        self.provisional: set[str] = set()

    def node(self, path: str) -> Any:
        node: Any = self.doc
        for part in path.split("."):
            if not isinstance(node, Mapping) or part not in node:
                raise BoardError(f"{path}: missing")
            node = node[part]
        return node

    def get(self, path: str, kind: type | tuple[type, ...] | None = None) -> Any:
        node = self.node(path)
        if not (isinstance(node, Mapping) and "v" in node and "src" in node):
            raise BoardError(f"{path}: expected a tagged value")
        return self.value(node, path, kind)

    def value(self, node: Mapping[str, Any], path: str, kind: Any = None) -> Any:
        if node["src"] == "provisional":
            self.provisional.add(path)
        value = node["v"]
        if kind is int and (not isinstance(value, int) or isinstance(value, bool)):
            raise BoardError(f"{path}: expected an integer, not {value!r}")
        if kind is not None and kind is not int and not isinstance(value, kind):
            raise BoardError(f"{path}: expected {kind}, not {type(value).__name__}")
        return value


def integer(value: Any, path: str, low: int | None = None, high: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise BoardError(f"{path}: expected an integer, not {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise BoardError(f"{path}: {value} is out of range")
    return value


def pair(value: Any, path: str) -> tuple[int, int]:
    if not (isinstance(value, list) and len(value) == 2):
        raise BoardError(f"{path}: expected [x, y], not {value!r}")
    return integer(value[0], path), integer(value[1], path)


def amounts(value: Any, path: str, allowed=("stone", "wood", "luxury", "silver", "vp")) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise BoardError(f"{path}: expected an object of amounts")
    for key, amount in value.items():
        if key not in allowed:
            raise BoardError(f"{path}: unknown good {key!r}")
        integer(amount, f"{path}.{key}", 0)
    return dict(value)


def check_min_players(lows: list[int], path: str) -> None:
    """Check 6 of section 21.1: a track or grid has spaces, each for 3, 4 or 5 players, one for 3."""
    if not lows:
        raise BoardError(f"{path}: no spaces")
    for low in lows:
        if low not in (3, 4, 5):
            raise BoardError(f"{path}: min_players {low} is not 3, 4 or 5")
    if 3 not in lows:
        raise BoardError(f"{path}: no space exists with 3 players")
