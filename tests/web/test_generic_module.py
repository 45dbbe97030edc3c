"""A game without a page module of its own (Rio de la Plata today) still gets working pages: the
generic module shows the view the API sends to this reader and its legal moves as buttons."""

from __future__ import annotations

import json

import requests

from tests.web.conftest import screenshot


def _rio_game_with_one_human(live) -> tuple[str, dict]:
    created = requests.post(
        f"{live.url}/v1/games",
        json={"game": "rio_de_la_plata", "config": {"players": 3}, "bots": {"1": "random", "2": "random"}},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    claim = requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": "Ann"}, timeout=10).json()
    return game_id, claim


def test_a_game_without_a_page_module_is_played_and_watched_through_the_generic_module(live, context_for):
    game_id, claim = _rio_game_with_one_human(live)
    assert requests.get(f"{live.url}/web/games/rio_de_la_plata/renderer.js", timeout=10).status_code == 200
    page = context_for("desktop").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live.url + "/")
    seat = json.dumps({"seat": claim["seat"], "token": claim["token"]})
    page.evaluate(f"sessionStorage.setItem('seat:{game_id}', {json.dumps(seat)})")
    page.goto(f"{live.url}/play/{game_id}")
    for _ in range(3):
        page.wait_for_function(
            "() => document.querySelector('.your-turn')"
            " || /Game over/.test((document.querySelector('.status') || {}).textContent || '')"
        )
        assert not errors, errors
        if "Game over" in page.locator(".status").text_content():
            break
        shown = json.loads(page.locator(".generic-view").text_content())
        own = requests.get(
            f"{live.url}/v1/games/{game_id}/view",
            headers={"Authorization": f"Bearer {claim['token']}"},
            timeout=10,
        ).json()
        assert shown["legal_moves"] == own["view"]["legal_moves"], "the page shows this seat's own view"
        page.locator(".moves button").first.click()
        page.wait_for_function("() => !document.querySelector('.moves button:disabled')")
    screenshot(page, "generic-play-desktop")
    watcher = context_for("phone").new_page()
    watcher.on("pageerror", lambda error: errors.append(str(error)))
    watcher.goto(f"{live.url}/watch/{game_id}")
    watcher.wait_for_function(
        "() => ((document.querySelector('.generic-view') || {}).textContent || '').includes('{')"
    )
    spectator = json.loads(watcher.locator(".generic-view").text_content())
    assert "legal_moves" not in spectator, "a spectator is shown no seat's moves"
    screenshot(watcher, "generic-watch-phone")
    assert not errors, errors
