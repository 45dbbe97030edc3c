"""The lobby's creation form (the whole game played by clicking is in test_table.py)."""

from __future__ import annotations

import requests

from tests.web.conftest import screenshot


def test_the_lobby_creates_a_timed_game_with_options_and_bots(live, context_for):
    """Every part of the creation request is reachable from the form: config, options, bots, clock."""
    page = context_for("phone").new_page()
    page.goto(live.url + "/")
    page.get_by_text("All options").click()
    page.get_by_label("Players").fill("4")
    page.get_by_label("Players").dispatch_event("change")
    page.get_by_label("Player 3", exact=True).select_option("random")
    # A bot chosen for a seat stays chosen when the number of players changes (issue 30).
    page.get_by_label("Players").fill("3")
    page.get_by_label("Players").dispatch_event("change")
    assert page.get_by_label("Player 3", exact=True).input_value() == "random"
    assert page.get_by_label("Player 4", exact=True).count() == 0
    page.get_by_label("Ruleset").select_option("classic")
    page.get_by_label("Capturing").check()
    page.get_by_label("Points match: target").fill("12")
    page.get_by_label("Seed (optional)").fill("7")
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
