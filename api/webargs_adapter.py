"""The one module of the product that uses webargs' private API (the adapter rule;
docs/architecture.md, "Private APIs of dependencies"). Tested with webargs 8.7 (pyproject.toml pins
``webargs>=8.7,<8.8``; tests/test_dependency_pins.py fails on another version).

It overrides ``FlaskParser._raw_load_json``, the hook webargs reads a JSON body through. Why: one
body reader for every route (``api.common.load_json_body``: 413 however framed, 415, malformed or
too deep JSON, a token in the body refused, orjson parsing). Not a speed-up: the reader's refusals,
which the routes' answers depend on. Tests: tests/api/.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Request
from webargs.flaskparser import FlaskParser


class BodyReaderParser(FlaskParser):
    """webargs' Flask parser, reading every JSON body with ``load_json_body(request)`` (which
    returns ``webargs.core.missing`` for an empty body)."""

    def __init__(self, load_json_body: Callable[[Request], Any], **kwargs: Any):
        super().__init__(**kwargs)
        self.load_json_body = load_json_body

    def _raw_load_json(self, req: Request) -> Any:
        return self.load_json_body(req)
