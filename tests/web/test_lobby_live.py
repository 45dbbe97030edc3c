"""The lobby's open games follow GET /v1/lobby/stream: a game another client creates through the
API appears in the list and goes when it starts, with no polling of the open list (one read of it
when the page loads, none after, even with the page's timers moved two minutes on). Screenshots
at 1280x800 and 390x844 (var/screenshots/lobby-live-*)."""

from __future__ import annotations

import pytest
import requests

from tests.web.conftest import screenshot


def _open_game(live) -> str:
    created = requests.post(
        f"{live.url}/v1/games", json={"game": "condottiere", "config": {"players": 2}}, timeout=30
    )
    assert created.status_code == 201, created.text
    return created.json()["id"]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_an_open_game_comes_and_goes_by_the_stream_without_polling(live, context_for, size):
    page = context_for(size).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    reads: list[str] = []
    page.on("request", lambda r: reads.append(r.url) if "/v1/games?status=open" in r.url else None)
    streams: list[str] = []
    page.on("request", lambda r: streams.append(r.url) if r.url.endswith("/v1/lobby/stream") else None)
    page.clock.install()  # the page's timers, moved on below: a poll of any period would show
    page.goto(f"{live.url}/")
    page.locator("[data-list='open']").wait_for()
    game_id = _open_game(live)
    row = page.locator(f"[data-list='open'] li[data-game='{game_id}']")
    row.wait_for()
    assert "free seat" in row.inner_text()
    # A seat claimed: the row says who sits there (the stream's "changed").
    requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": "Ann"}, timeout=30)
    page.locator(f"[data-list='open'] li[data-game='{game_id}']", has_text="Ann").wait_for()
    screenshot(page, f"lobby-live-{size}")
    # The last seat starts it: it leaves the open list and shows among the running games.
    requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": "Bob"}, timeout=30)
    row.wait_for(state="detached")
    page.locator(f"[data-list='active'] li[data-game='{game_id}']").wait_for()
    # Two minutes of the page's timers at once: they ran (the running list is read every 30 s)...
    with page.expect_request(lambda r: "/v1/games?status=active" in r.url):
        page.clock.run_for(120_000)
    # ... and none of them read the open list again.
    assert len(reads) == 1, reads  # the first read only: every change came by the stream
    assert len(streams) == 1, streams
    assert errors == []


def test_a_refused_stream_falls_back_to_a_slow_poll(live, context_for):
    """The lobby stream answered 503 (EventSource gives up): the open list is read at once, then
    every 30 s of the page's clock, and a new game shows at the next round."""
    page = context_for("desktop").new_page()
    page.route("**/v1/lobby/stream", lambda route: route.fulfill(status=503, body="down"))
    reads: list[str] = []
    page.on("request", lambda r: reads.append(r.url) if "/v1/games?status=open" in r.url else None)
    first = _open_game(live)
    page.clock.install()
    page.goto(f"{live.url}/")
    page.locator(f"[data-list='open'] li[data-game='{first}']").wait_for()
    second = _open_game(live)
    with page.expect_request(lambda r: "/v1/games?status=open" in r.url):
        page.clock.run_for(30_000)
    page.locator(f"[data-list='open'] li[data-game='{second}']").wait_for()
    assert len(reads) == 2, reads
