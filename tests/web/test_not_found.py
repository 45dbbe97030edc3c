"""The pages a browser gets for addresses that name nothing (issue 30): an HTML 404 page, never a
page that says "Loading..." forever, nor a raw JSON document; API clients keep their problem
documents under /v1."""

from __future__ import annotations

from tests.app_fixtures import app, client  # noqa: F401 - fixtures, found by name

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def test_a_game_page_for_a_game_that_does_not_exist_is_an_html_404(client):  # noqa: F811
    for page in ("play", "watch", "replay", "continue"):
        response = client.get(f"/{page}/00000000000000000000", headers=BROWSER)
        assert response.status_code == 404, page
        assert response.mimetype == "text/html"
        assert 'data-page="notfound"' in response.get_data(as_text=True)


def test_an_existing_game_page_is_served(client):  # noqa: F811
    created = client.post("/v1/games", json={"game": "condottiere", "config": {"players": 2}}).get_json()
    for page in ("play", "watch", "replay", "continue"):
        response = client.get(f"/{page}/{created['id']}", headers=BROWSER)
        assert response.status_code == 200, page
        assert f'data-page="{"play" if page == "watch" else page}"' in response.get_data(as_text=True)


def test_an_unknown_address_is_an_html_404_for_a_browser_and_a_problem_for_api_clients(client):  # noqa: F811
    page = client.get("/no/such/page", headers=BROWSER)
    assert page.status_code == 404 and page.mimetype == "text/html"
    assert "Page not found" in page.get_data(as_text=True)
    assert page.headers["Content-Security-Policy"].startswith("default-src 'self'")
    api_client = client.get("/no/such/page", headers={"Accept": "application/json"})
    assert api_client.status_code == 404 and api_client.mimetype == "application/problem+json"
    under_v1 = client.get("/v1/no/such/thing", headers=BROWSER)
    assert under_v1.status_code == 404 and under_v1.mimetype == "application/problem+json"
    assert under_v1.get_json()["code"] == "NOT_FOUND"
