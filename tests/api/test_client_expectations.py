"""What a client author expects from the HTTP edge (issue 15): tokens only in Authorization and
compared exactly, CORS for browser clients on other origins, docs served offline, a ``servers``
entry and one timestamp format."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from api import create_app
from tests.api.conftest import redis_dump

RFC3339_MS_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


# -- tokens go in Authorization, and nowhere else -------------------------------------------------


@pytest.mark.parametrize("parameter", ["token", "access_token", "Token"])
def test_a_token_in_the_query_string_is_refused_not_ignored(table, client, parameter):
    response = client.get(f"/v1/games/{table.id}/view?{parameter}={table.tokens[0]}")
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    problem = response.get_json()
    assert problem["code"] == "TOKEN_NOT_IN_HEADER"
    assert "Authorization: Bearer" in problem["detail"]
    assert table.tokens[0] not in response.get_data(as_text=True)


def test_a_move_with_its_token_in_the_query_string_changes_nothing(table, client, redis_client):
    before = redis_dump(redis_client)
    card = table.view(0)["view"]["hand"][0]
    response = client.post(
        f"/v1/games/{table.id}/moves?token={table.tokens[0]}",
        json={"command": {"type": "play", "card": card}},
        headers=table.auth(0),
    )
    assert response.status_code == 400 and response.get_json()["code"] == "TOKEN_NOT_IN_HEADER"
    assert redis_dump(redis_client) == before


def test_a_token_in_the_request_body_is_refused(table, client):
    card = table.view(0)["view"]["hand"][0]
    response = client.post(
        f"/v1/games/{table.id}/moves",
        json={"command": {"type": "play", "card": card}, "token": table.tokens[0]},
    )
    assert response.status_code == 400
    assert response.get_json()["code"] == "TOKEN_NOT_IN_HEADER"
    assert "request body" in response.get_json()["detail"]


def test_other_query_parameters_still_work(table, client):
    response = client.get(f"/v1/games/{table.id}/events?after=1&limit=1", headers=table.auth(0))
    assert response.status_code == 200 and len(response.get_json()["events"]) == 1


@pytest.mark.parametrize(
    "header",
    [
        "Bearer {token} ",  # trailing space
        "Bearer {token}\t",
        "Bearer \t{token}",
        "Bearer {token}x",
        "Bearer x{token}",
        "Bearer {token} {token}",
        "Bearer",
        "Basic {token}",
    ],
)
def test_a_token_is_compared_exactly_never_trimmed(table, client, header):
    response = client.get(
        f"/v1/games/{table.id}/view", headers={"Authorization": header.format(token=table.tokens[0])}
    )
    assert response.status_code == 401
    assert response.get_json()["code"] == "INVALID_TOKEN"


@pytest.mark.parametrize("header", ["Bearer {token}", "bearer {token}", "Bearer   {token}"])
def test_the_rfc_6750_forms_are_accepted(table, client, header):
    """RFC 6750 2.1: the scheme is case-insensitive and followed by one or more spaces."""
    response = client.get(
        f"/v1/games/{table.id}/view", headers={"Authorization": header.format(token=table.tokens[0])}
    )
    assert response.status_code == 200 and response.get_json()["seat"] == 0


# -- CORS -----------------------------------------------------------------------------------------


def test_cors_preflight_allows_a_move_from_another_origin(table, client):
    response = client.options(
        f"/v1/games/{table.id}/moves",
        headers={
            "Origin": "https://client.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, idempotency-key, if-match",
        },
    )
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    allowed = {h.strip().lower() for h in response.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key", "if-match"} <= allowed
    assert "POST" in response.headers["Access-Control-Allow-Methods"]
    assert int(response.headers["Access-Control-Max-Age"]) > 0
    # Credentials travel in Authorization only: no cookies, so no credentialed CORS.
    assert "Access-Control-Allow-Credentials" not in response.headers


def test_cors_actual_request_exposes_the_headers_clients_read(table, client):
    card = table.view(0)["view"]["hand"][0]
    response = client.post(
        f"/v1/games/{table.id}/moves",
        json={"command": {"type": "play", "card": card}},
        headers={**table.auth(0), "Origin": "https://client.example", "Idempotency-Key": "k1"},
    )
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    exposed = {h.strip().lower() for h in response.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"etag", "location", "retry-after", "idempotent-replayed", "www-authenticate"} <= exposed
    replay = client.post(
        f"/v1/games/{table.id}/moves",
        json={"command": {"type": "play", "card": card}},
        headers={**table.auth(0), "Origin": "https://client.example", "Idempotency-Key": "k1"},
    )
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert replay.headers["Access-Control-Allow-Origin"] == "*"


def test_cors_on_problem_answers_too(client):
    """A browser can read a refusal's problem document only if the error answer carries CORS."""
    response = client.get("/v1/games/nope/view", headers={"Origin": "https://client.example"})
    assert response.status_code == 404
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_cors_origins_are_configurable(redis_server, redis_client):
    app = create_app(
        {
            "REDIS_URL": redis_server.url,
            "TESTING": True,
            "CORS_ORIGINS": "https://a.example, https://b.example",
        }
    )
    try:
        client = app.test_client()
        allowed = client.get("/v1/health", headers={"Origin": "https://b.example"})
        assert allowed.headers["Access-Control-Allow-Origin"] == "https://b.example"
        assert "Origin" in allowed.headers["Vary"]
        other = client.get("/v1/health", headers={"Origin": "https://evil.example"})
        assert other.status_code == 200
        assert "Access-Control-Allow-Origin" not in other.headers
        preflight = client.options(
            "/v1/games",
            headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
        )
        assert "Access-Control-Allow-Origin" not in preflight.headers
    finally:
        app.extensions["game_service"].store.redis.close()
        app.extensions["game_service"].live.close()


# -- docs and contract metadata ------------------------------------------------------------------


class _Resources(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.urls.append(value)


def test_docs_page_needs_nothing_from_another_host(client):
    page = client.get("/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    parser = _Resources()
    parser.feed(html)
    assert len(parser.urls) >= 3  # the stylesheet and two scripts
    for url in parser.urls:
        assert url.startswith("/"), url  # same origin: works offline and behind a strict firewall
        asset = client.get(url)
        assert asset.status_code == 200, url
        assert len(asset.get_data()) > 1000, url
    assert "https://" not in html and "http://" not in html
    assert '"validatorUrl": null' in html  # no third-party validator badge
    assert '"/v1/openapi.json"' in html
    assert client.get("/docs/assets/../../api/__init__.py").status_code == 404


def test_swagger_ui_licence_is_served_beside_it(client):
    licence = client.get("/docs/assets/LICENSE")
    assert licence.status_code == 200 and "Apache License" in licence.get_data(as_text=True)


def test_the_contract_names_its_servers(client):
    spec = client.get("/v1/openapi.json").get_json()
    assert spec["servers"][0]["url"] == "/"
    assert all(server["url"] for server in spec["servers"])


# -- one timestamp format --------------------------------------------------------------------------


def test_game_summaries_use_one_timestamp_format(table, client):
    summary = client.get(f"/v1/games/{table.id}").get_json()
    for field in ("created", "updated", "started"):
        assert RFC3339_MS_UTC.match(summary[field]), (field, summary[field])
