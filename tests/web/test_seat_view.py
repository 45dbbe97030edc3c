"""The replay page's "See as ..." (issue 34): a finished game shown as one seat saw it, version by
version (the seat's hand as it was served, GET /replay?as=), and the toggle that lists what that
seat did not know (the other hands, the deck's order). Screenshots at both sizes."""

from __future__ import annotations

import random
import re

import requests

from tests.web.conftest import SIZES, screenshot


def _finished_game(live) -> str:
    base = live.url
    game_id = requests.post(
        f"{base}/v1/games", json={"game": "condottiere", "config": {"players": 2}}, timeout=10
    ).json()["id"]
    tokens = [
        requests.post(f"{base}/v1/games/{game_id}/seats", json={"name": name}, timeout=10).json()["token"]
        for name in ("Ann", "Bob")
    ]
    rng = random.Random(34)
    while True:
        summary = requests.get(f"{base}/v1/games/{game_id}", timeout=10).json()
        if summary["status"] == "finished":
            return game_id
        seat = rng.choice(summary["awaiting"])
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        view = requests.get(f"{base}/v1/games/{game_id}/view", headers=auth, timeout=10).json()["view"]
        move = requests.post(
            f"{base}/v1/games/{game_id}/moves",
            json={"command": rng.choice(view["legal_moves"])},
            headers=auth,
            timeout=10,
        )
        assert move.status_code == 200, move.text


def test_the_replay_page_shows_a_finished_game_as_a_seat_saw_it(live, context_for):
    game_id = _finished_game(live)
    battles = requests.get(f"{live.url}/v1/games/{game_id}/battles", timeout=10).json()
    version = battles["chapters"][0]["end"]
    page = context_for("desktop").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live.url}/replay/{game_id}")
    page.locator(f'ol.move-list-replay button[data-version="{version}"]').click()  # the list of every move
    page.wait_for_selector(f'#app[data-version="{version}"]')
    assert page.locator("[data-hand] .cd-card").count() == 0  # the whole game: no one seat's hand
    page.select_option("#see-as", "1")
    as_bob = requests.get(f"{live.url}/v1/games/{game_id}/replay?version={version}&as=1", timeout=10).json()
    # The viewer's line first: when seat 1 holds no card at this version, the hand's count below is
    # already met by the whole game's page, before the seat's view has been drawn.
    page.wait_for_function("() => (document.querySelector('.viewer')?.textContent || '').includes('seat 1')")
    page.wait_for_function(
        "n => document.querySelectorAll('[data-hand] .cd-card').length === n",
        arg=len(as_bob["state"]["hand"]),
    )
    assert "seat 1" in page.locator(".viewer").text_content()
    assert page.locator(".not-known li").count() == 0
    page.check("#not-known")
    page.wait_for_selector(".not-known li")
    listed = page.locator(".not-known").text_content()
    assert "deck" in listed  # the draws to come
    # Sentences ("Ann's hand: 4, 10, Winter"), never the state's paths or JSON.
    assert not DEVELOPER_OUTPUT.search(page.locator("#app").inner_text()), listed
    screenshot(page, "replay-see-as-desktop")
    page.set_viewport_size(SIZES["phone"])
    screenshot(page, "replay-see-as-phone")
    page.select_option("#see-as", "")
    page.wait_for_function("() => document.querySelectorAll('[data-hand] .cd-card').length === 0")
    assert page.locator(".not-known li").count() == 0 and page.locator("#not-known").is_disabled()
    assert not errors, errors


# What a reader must never see on a replay: a blank drawn as a word, or the data it was read from.
DEVELOPER_OUTPUT = re.compile(r"\bnull\b|\bundefined\b|\{\"|\":|\bconfig\.|\bplayers\.\d|\[\"")


def test_a_running_rio_games_replay_shows_no_null_and_no_raw_json_at_both_sizes(live, context_for):
    """A running game's replay has no "See" selector (a seat's view would show what a player still
    holds): nothing stands in its place, not a literal null; the page's words are sentences, never
    the view's JSON; on a phone no help about arrow keys."""
    created = requests.post(
        f"{live.url}/v1/games",
        json={
            "game": "rio_de_la_plata",
            "config": {"players": 3, "seed": 5},
            "bots": {"1": "random", "2": "random"},
        },
        timeout=10,
    ).json()
    requests.post(f"{live.url}/v1/games/{created['id']}/seats", json={"name": "Ann"}, timeout=10)
    errors: list[str] = []
    for size in ("desktop", "phone"):
        page = context_for(size).new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{live.url}/replay/{created['id']}")
        page.wait_for_selector("#app[data-version] svg.rio-city")
        text = page.locator("#app").inner_text()
        assert not DEVELOPER_OUTPUT.search(text), DEVELOPER_OUTPUT.search(text)
        assert page.locator("#see-as").count() == 0
        if size == "phone":
            assert not page.get_by_text("Arrow keys").is_visible()
        screenshot(page, f"replay-running-rio-{size}")
        assert not errors, errors
