"""A person plays a whole game in the browser by clicking (and by keyboard, every other move)."""

from __future__ import annotations

import requests

from tests.web.conftest import screenshot


def test_a_person_plays_a_whole_four_player_game_against_three_bots_by_clicking(live, context_for):
    page = context_for("desktop").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live.url + "/")
    page.get_by_label("Players").fill("4")
    page.get_by_label("Players").dispatch_event("change")
    for seat in (1, 2, 3):
        page.get_by_label(f"Seat {seat}", exact=True).select_option("heuristic")
    page.get_by_label("Your name (takes the first free seat)").fill("Ann")
    screenshot(page, "lobby-desktop")
    page.get_by_role("button", name="Create game").click()
    assets: dict[str, int] = {}
    page.on(
        "response",
        lambda r: assets.__setitem__(r.url, len(r.body())) if r.url.endswith((".js", ".css")) else None,
    )
    page.wait_for_url("**/play/*")
    game_id = page.url.rsplit("/", 1)[1]
    assert "token" not in page.url.lower()
    clicks = 0
    while True:
        page.wait_for_function(
            "() => document.querySelector('.your-turn')"
            " || /Game over/.test((document.querySelector('.status') || {}).textContent || '')"
        )
        if "Game over" in page.locator(".status").text_content():
            break
        if clicks == 3:
            screenshot(page, "play-desktop")
        buttons = page.locator(".moves button")
        if clicks % 2:
            # Keyboard: on your turn the first move has the focus; Enter plays it.
            page.wait_for_function("() => document.activeElement.closest('.moves') !== null")
            page.keyboard.press("Enter")
        else:
            buttons.first.click()
        clicks += 1
        if page.locator(".moves fieldset").count():
            # The second question (Bishop, Scarecrow) takes the focus too.
            page.wait_for_function("() => document.activeElement.closest('fieldset') !== null")
            page.keyboard.press("Enter")
        page.wait_for_function("() => !document.querySelector('.moves button:disabled')")
        assert clicks < 2000, "the game does not end"
    # The play page's weight: its scripts and style sheets (the game's module included).
    assert any(url.endswith("renderer.js") for url in assets) and any(url.endswith(".css") for url in assets)
    assert sum(assets.values()) < 150_000, assets
    summary = requests.get(f"{live.url}/v1/games/{game_id}", timeout=10).json()
    assert summary["status"] == "finished"
    assert clicks > 0
    screenshot(page, "play-finished-desktop")
    assert not errors, errors


def test_the_lobby_creates_a_timed_game_with_options_and_bots(live, context_for):
    """Every part of the creation request is reachable from the form: config, options, bots, clock."""
    page = context_for("phone").new_page()
    page.goto(live.url + "/")
    page.get_by_label("Players").fill("3")
    page.get_by_label("Players").dispatch_event("change")
    page.get_by_label("Ruleset").select_option("classic")
    page.get_by_label("Capturing").check()
    page.get_by_label("Points match: target").fill("12")
    page.get_by_label("Seed (optional)").fill("7")
    page.get_by_label("Seat 2", exact=True).select_option("random")
    page.get_by_label("Seconds per decision (empty: untimed)").fill("600")
    page.get_by_label("Reserve per seat, seconds").fill("60")
    screenshot(page, "lobby-filled-phone")
    page.get_by_role("button", name="Create game").click()
    page.wait_for_url("**/watch/*")
    game_id = page.url.rsplit("/", 1)[1]
    summary = requests.get(f"{live.url}/v1/games/{game_id}", timeout=10).json()
    assert summary["seat_count"] == 3 and summary["status"] == "open"
    assert summary["config"]["ruleset"] == "classic"
    assert summary["config"]["options"]["capturing"] is True
    assert summary["config"]["options"]["points_target"] == 12
    assert [s["kind"] for s in summary["seats"]][2] == "bot"
    assert summary["clock"]["control"]["move_seconds"] == 600
    assert summary["clock"]["control"]["bank_seconds"] == 60
    page.wait_for_function(
        "() => /Waiting for players/.test((document.querySelector('.status') || {}).textContent || '')"
    )
