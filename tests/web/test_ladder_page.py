"""The bot ladder's page (/ladder?game=condottiere): the standings of GET /v1/ladder/{game} (here
the server's three levels, before any ladder game) with rating, games and wins, and the games in
play. At 1280x800 and 390x844: axe-core, no sideways scroll, screenshots (var/screenshots/ladder-*)."""

from __future__ import annotations

import pytest
import requests

from tests.web.test_table import check_page, new_page


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_ladder_page_lists_the_standings(live, browser, size):
    data = requests.get(f"{live.url}/v1/ladder/condottiere", timeout=10).json()
    context, page, errors = new_page(browser, size)
    try:
        page.goto(f"{live.url}/ladder?game=condottiere")
        page.wait_for_selector("table.ladder tbody tr")
        rows = page.locator("table.ladder tbody tr")
        assert rows.count() == len(data["standings"]) == 3
        names = [rows.nth(i).locator("th").inner_text() for i in range(rows.count())]
        assert names == [f"{row['player'][4:]} bot" for row in data["standings"]]
        assert "No ladder game in play." in page.inner_text("main")
        check_page(page, f"ladder-{size}")
        assert not errors, errors
    finally:
        context.close()
