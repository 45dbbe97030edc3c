"""The one module of the product that uses flask-cors's undocumented API (the adapter rule;
docs/architecture.md, "Private APIs of dependencies"). Tested with flask-cors 6.0 (pyproject.toml
pins ``flask-cors>=6.0,<6.1``; tests/test_dependency_pins.py fails on another version).

It uses ``flask_cors.core.get_cors_options`` and ``flask_cors.core.get_cors_headers``, which the
package does not export. Why: the move fast path (``api.edge.move_path``) answers in front of Flask,
where flask-cors does not run, and must add exactly the headers flask-cors would; asking flask-cors
itself, once at start-up, keeps the two paths from differing. No gain per move is measured (asked
once); without it the fast path could not answer as Flask would. Tests: tests/api/test_move_worker.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask


def headers_without_origin(app: Flask, cors_options: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """What flask-cors, configured on ``app`` with ``cors_options``, adds to the answer of a POST
    without ``Origin`` (the only kind the move fast path answers)."""
    from flask_cors.core import get_cors_headers, get_cors_options
    from werkzeug.datastructures import Headers

    cors = get_cors_headers(get_cors_options(app, cors_options), Headers(), "POST")
    return list(cors.items(multi=True))
