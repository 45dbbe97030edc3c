"""A game without a page module of its own still gets working pages: the generic module shows the
view the API sends to this reader and its legal moves as buttons. The game is the tests' toy engine
(tests/api/toy_game.py), registered in this process, where the live server runs: both real games
have page modules of their own."""

from __future__ import annotations

import json
import time

import pytest
import requests

from tests.api import toy_game
from tests.web.conftest import open_play_page, screenshot


@pytest.fixture()
def toy():
    with toy_game.registered():
        yield


def _toy_game(live) -> tuple[str, dict, dict]:
    created = requests.post(
        f"{live.url}/v1/games",
        json={"game": toy_game.NAME, "config": {"seed": 3, "hand_size": 10}},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    ann = requests.post(
        f"{live.url}/v1/games/{game_id}/seats", json={"name": "Ann", "seat": 0}, timeout=10
    ).json()
    bob = requests.post(
        f"{live.url}/v1/games/{game_id}/seats", json={"name": "Bob", "seat": 1}, timeout=10
    ).json()
    return game_id, ann, bob


def _bob_moves(live, game_id: str, bob: dict) -> None:
    """Bob (seat 1, played here over the API) answers with his first legal move when awaited."""
    auth = {"Authorization": f"Bearer {bob['token']}"}
    for _ in range(50):
        view = requests.get(f"{live.url}/v1/games/{game_id}/view", headers=auth, timeout=10).json()
        if bob["seat"] in view["view"]["awaiting"]:
            move = view["view"]["legal_moves"][0]
            answer = requests.post(
                f"{live.url}/v1/games/{game_id}/moves", json={"command": move}, headers=auth, timeout=10
            )
            assert answer.status_code == 200, answer.text
            return
        time.sleep(0.1)
    raise AssertionError("seat 1 was never awaited")


def test_a_game_without_a_page_module_is_played_and_watched_through_the_generic_module(
    live, context_for, toy
):
    game_id, claim, bob = _toy_game(live)
    module = requests.get(f"{live.url}/web/games/{toy_game.NAME}/renderer.js", timeout=10)
    assert module.status_code == 200 and "generic-view" in module.text
    page, errors = open_play_page(context_for("desktop"), live.url, game_id, claim)
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
        _bob_moves(live, game_id, bob)
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
