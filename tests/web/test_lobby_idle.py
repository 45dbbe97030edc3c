"""The lobby's "Idle" list from the games' clocks (issue 30, item 7; the rule: web/static/idle.js
and docs/clients.md): a timed game is running while an awaited seat's deadline is ahead, however
far (a day per decision is no abandonment), and idle once every awaited deadline has passed by the
grace with nothing moved (no clock enforcer runs beside this test's server, so nothing moves them);
an untimed game is idle after an hour without a move. The browser's time is moved on (Playwright's
fixed clock), the server's games stay as they are."""

from __future__ import annotations

import time

import requests

from tests.web.axe import assert_accessible, assert_no_sideways_scroll
from tests.web.conftest import SIZES, screenshot

MINUTE_MS = 60_000


def _running_game(live, clock: dict | None) -> str:
    """A two-player Condottiere game of two people, started, nobody has moved."""
    body = {"game": "condottiere", "config": {"players": 2}}
    if clock:
        body["clock"] = clock
    created = requests.post(f"{live.url}/v1/games", json=body, timeout=10)
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for name in ("Ann", "Bob"):
        claimed = requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": name}, timeout=10)
        assert claimed.status_code == 201, claimed.text
    assert requests.get(f"{live.url}/v1/games/{game_id}", timeout=10).json()["status"] == "active"
    return game_id


def _lists(page, games: dict[str, str]) -> dict[str, str]:
    """Which of the lobby's lists ("active" or "idle") shows each game."""
    page.wait_for_selector("[data-list='idle']")
    found = {}
    for name, game_id in games.items():
        where = page.eval_on_selector_all(
            f"[data-list] li[data-game='{game_id}']",
            "els => els.map(e => e.closest('[data-list]').dataset.list)",
        )
        assert len(where) == 1, (name, where)
        found[name] = where[0]
    return found


def test_idle_games_leave_running_by_their_clocks_not_by_a_fixed_hour(live, context_for):
    """Untimed: running for an hour after its last move, then idle. Timed with a day per decision:
    running two hours on (and after its 24 h deadline plus the grace, idle). Timed with a minute per
    decision: idle half an hour on, since its deadline passed and nothing moved it; each idle row
    says why in words."""
    games = {
        "untimed": _running_game(live, None),
        "day": _running_game(live, {"move_seconds": 86_400, "timeouts_to_bot": 3}),
        "minute": _running_game(live, {"move_seconds": 60, "timeouts_to_bot": 3}),
    }
    start_ms = int(time.time() * 1000)
    expected = {
        0: {"untimed": "active", "day": "active", "minute": "active"},
        30 * MINUTE_MS: {"untimed": "active", "day": "active", "minute": "idle"},
        2 * 60 * MINUTE_MS: {"untimed": "idle", "day": "active", "minute": "idle"},
        (24 * 60 + 10) * MINUTE_MS: {"untimed": "idle", "day": "idle", "minute": "idle"},
    }
    context = context_for("phone")
    for later, lists in expected.items():
        page = context.new_page()
        if later:
            page.clock.set_fixed_time((start_ms + later) / 1000)  # seconds; timers run as usual
        page.goto(live.url + "/")
        assert _lists(page, games) == lists, f"{later // MINUTE_MS} minutes on"
        if later == 30 * MINUTE_MS:
            row = page.locator(f"[data-list='idle'] li[data-game='{games['minute']}']").text_content()
            assert "its clock ran out" in row, row
        if later == 2 * 60 * MINUTE_MS:
            row = page.locator(f"[data-list='idle'] li[data-game='{games['untimed']}']").text_content()
            assert "nobody has moved in it for over an hour" in row, row
            screenshot(page, "lobby-idle-phone")
            assert_no_sideways_scroll(page, "lobby-idle-phone")
            assert_accessible(page, "lobby-idle-phone")
            page.set_viewport_size(SIZES["desktop"])
            screenshot(page, "lobby-idle-desktop")
            assert_no_sideways_scroll(page, "lobby-idle-desktop")
        page.close()
