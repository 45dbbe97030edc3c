"""openapi.yaml: generated from the app, committed, current, valid OpenAPI 3.1, complete, served,
and honoured by the app under schemathesis (issue 3, item 3)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from openapi_spec_validator import validate

from launcher.openapi import build_app, spec_dict, spec_yaml

ROOT = Path(__file__).resolve().parents[2]
PROBLEM_JSON = "application/problem+json"
HTTP_METHODS = {"get", "put", "post", "delete", "patch"}


@pytest.fixture(scope="module")
def app(redis_server):
    return build_app(redis_server.url)


@pytest.fixture(scope="module")
def spec(app):
    return spec_dict(app)


def test_committed_openapi_yaml_is_current():
    committed = (ROOT / "openapi.yaml").read_text()
    assert committed == spec_yaml(), "openapi.yaml is stale: run ./run openapi and commit it"


def test_spec_is_valid_openapi_3_1(spec):
    assert spec["openapi"].startswith("3.1")
    validate(spec)  # raises on any violation of the OpenAPI 3.1 schema


def flask_rule_to_openapi_path(rule: str) -> str:
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule)


def v1_routes(app) -> set[tuple[str, str]]:
    routes = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/v1/"):
            continue
        if rule.endpoint.startswith("api-docs."):  # the spec itself and its UI pages
            continue
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routes.add((method.lower(), flask_rule_to_openapi_path(rule.rule)))
    return routes


def test_every_v1_route_is_in_the_spec(app, spec):
    documented = {
        (method, path)
        for path, operations in spec["paths"].items()
        for method in operations
        if method in HTTP_METHODS
    }
    routes = v1_routes(app)
    assert ("get", "/v1/health") in routes  # the route list itself is not empty or misread
    missing = sorted(routes - documented)
    assert not missing, f"routes missing from the OpenAPI document: {missing}"
    phantom = sorted(documented - routes)
    assert not phantom, f"documented operations the app does not serve: {phantom}"


def resolve(spec: dict, node: dict) -> dict:
    while "$ref" in node:
        target = spec
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def test_every_documented_error_is_problem_json(spec):
    """RFC 9457: every 4xx/5xx (and default) response of every operation is problem+json only."""
    checked = 0
    offenders = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method not in HTTP_METHODS:
                continue
            for status, response in operation.get("responses", {}).items():
                if not (status == "default" or str(status)[0] in "45"):
                    continue
                content = resolve(spec, response).get("content", {})
                checked += 1
                if set(content) != {PROBLEM_JSON}:
                    offenders.append(f"{method.upper()} {path} {status}: {sorted(content)}")
    assert checked > 0
    assert not offenders, "error responses that are not problem+json:\n" + "\n".join(offenders)


def test_app_serves_the_spec_and_a_docs_page(app, spec):
    client = app.test_client()
    served = client.get("/v1/openapi.json")
    assert served.status_code == 200
    assert served.get_json() == spec
    served_yaml = client.get("/v1/openapi.yaml")
    assert served_yaml.status_code == 200
    assert yaml.safe_load(served_yaml.get_data(as_text=True)) == spec
    docs = client.get("/docs")
    if docs.status_code in (301, 302, 308):
        docs = client.get(docs.headers["Location"])
    assert docs.status_code == 200
    assert "text/html" in docs.content_type
    assert "/v1/openapi.json" in docs.get_data(as_text=True)
