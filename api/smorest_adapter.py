"""The one module of the product that uses flask-smorest's private API (the adapter rule;
docs/architecture.md, "Private APIs of dependencies"). Tested with flask-smorest 0.47
(pyproject.toml pins ``flask-smorest>=0.47,<0.48``; tests/test_dependency_pins.py fails on another
version). What it uses, and why:

- overrides ``Api._register_responses``: the default error responses of the OpenAPI document in the
  API's error media type (problem+json), with ``flask_smorest.utils.prepare_response``; and
  ``Api._register_swagger_ui_rule``: more rules on the docs blueprint (``/v1/openapi.yaml``,
  Swagger UI's assets served locally). None per move: the document and Swagger UI only
  (tests/platform/test_openapi.py).
- a view's ``_apidoc`` (the documentation flask-smorest's decorators collect) copied onto another
  callable (``copy_apidoc``), for ``api.common.Blueprint.hot``: a hot route skips flask-smorest's
  dozen wrappers and keeps its documentation. Measured 1.09 (median B/A web CPU per move, the Flask
  path) (tests/platform/test_openapi.py, tests/api/).
"""

from __future__ import annotations

import http
from collections.abc import Callable
from typing import Any

import flask_smorest
from flask import Blueprint
from flask_smorest.utils import prepare_response


def copy_apidoc(documented: Callable[..., Any], target: Callable[..., Any]) -> None:
    """Give ``target`` the OpenAPI documentation flask-smorest's decorators gave ``documented``."""
    target._apidoc = documented._apidoc  # type: ignore[attr-defined]


class Api(flask_smorest.Api):
    """flask-smorest's Api whose default error responses are documented as ``ERROR_MIME`` and whose
    docs blueprint gets ``add_docs_rules``' rules too."""

    ERROR_MIME = "application/json"

    def add_docs_rules(self, blueprint: Blueprint) -> None:
        """Add rules to the docs blueprint ("api-docs"), after flask-smorest's own."""

    def _register_swagger_ui_rule(self, blueprint: Blueprint) -> None:
        super()._register_swagger_ui_rule(blueprint)
        self.add_docs_rules(blueprint)

    def _register_responses(self) -> None:
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
                prepare_response(response, self.spec, self.ERROR_MIME)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, self.ERROR_MIME)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, response, lazy=True)
