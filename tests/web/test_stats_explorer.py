"""The statistics page's filters and decision explorer (web/static/stats.js) at 1280 px and 390 px:
the filter form narrows the figures (the one grammar of service/filters.py), the explorer draws the
moves of a situation as bars with counts, win rates and mean placements, and its example links open
the game in the replay viewer."""

from __future__ import annotations

import os
import random
import re

import pytest

from games import get_game
from tests.bots.live import LiveServer
from tests.random_play import import_played, play_out
from tests.web.conftest import screenshot


@pytest.fixture(scope="module")
def archive(redis_server, tmp_path_factory):
    """Five imported Condottiere games (two of three players) in a live server's archive and
    analytical store (FACTS_DIR, read at each use)."""
    redis_server.client().flushall()
    before = os.environ.get("FACTS_DIR")
    os.environ["FACTS_DIR"] = str(tmp_path_factory.mktemp("facts"))
    engine = get_game("condottiere")
    ids = []
    for i, players in enumerate((2, 3, 2, 3, 2)):
        config = engine.configure({"players": players, "seed": 70 + i})
        events, state = play_out(engine, config, random.Random(i))
        import_played(
            redis_server.client(), engine, events, state, game_id=f"01web{i:015d}",
            players=["Ann", "Bob", "Cid"][:players], now=f"2026-0{1 + i % 2}-1{i}T10:00:00+00:00",
        )  # fmt: skip
        ids.append(f"01web{i:015d}")
    # One Rio de la Plata game: its explorer's moves are keys only its own web module can name.
    rio = get_game("rio_de_la_plata")
    events, state = play_out(rio, rio.configure({"players": 3, "seed": 5}), random.Random(0))
    import_played(
        redis_server.client(), rio, events, state, game_id="01webrio00000000000",
        players=["Ann", "Bob", "Cid"], now="2026-01-20T10:00:00+00:00",
    )  # fmt: skip
    server = LiveServer(redis_server.url, worker=False)
    yield server, ids
    server.stop()
    if before is None:
        os.environ.pop("FACTS_DIR", None)
    else:
        os.environ["FACTS_DIR"] = before


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_statistics_page_filters_and_explores(archive, context_for, size):
    live, ids = archive
    page = context_for(size).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # The replay an example opens asks for the game's analysis; 404 ANALYSIS_NOT_FOUND is how the
    # API says "not analysed yet" (the page then offers to request it), not an error.
    not_analysed = re.compile(r"/v1/games/[^/]+/analysis$")
    page.on(
        "response",
        lambda r: (
            errors.append(f"{r.status} {r.url}")
            if r.status >= 400 and not (r.status == 404 and not_analysed.search(r.url))
            else None
        ),
    )
    page.goto(f"{live.url}/stats?game=condottiere&players=3")
    try:
        page.wait_for_selector("li.move", timeout=30_000)
    except Exception:
        raise AssertionError(f"{errors} {page.locator('#app').inner_text()}") from None
    figures = page.locator("dl.figures").first.text_content()
    # The first-seat figure is the seat that moved first, not "Seat 1" of the chart beside it.
    assert "The player who moved first won" in figures and "First seat" not in figures
    # The explorer's way in near the top, shown on a phone only; the explorer's situation is a
    # short option, its sentence a paragraph that wraps.
    jump = page.locator(".explore-jump a", has_text="Explore decisions")
    assert jump.is_visible() == (size == "phone")
    assert page.locator("#explorer").count() == 1 and jump.get_attribute("href") == "#explorer"
    chosen = page.locator("#explorer-situation option:checked").text_content()
    assert len(chosen) < 30, chosen
    assert page.locator("#explorer-question").text_content().endswith(".")
    select_box, viewport = page.locator("#explorer-situation").bounding_box(), page.viewport_size
    assert select_box["x"] + select_box["width"] <= viewport["width"]
    assert "matching the filters" in page.locator("section h2").first.text_content()
    assert "Games2" in figures.replace(" ", "").replace("\n", "")  # the two three-player games
    assert page.locator("details.stats-filters").get_attribute("open") is not None
    assert page.get_by_label("Number of players").input_value() == "3"
    # The filter form narrows the figures: two players instead.
    page.get_by_label("Number of players").fill("2")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url("**players=2**")
    page.wait_for_selector("li.move", timeout=30_000)
    assert "Games3" in page.locator("dl.figures").first.text_content().replace(" ", "").replace("\n", "")
    # The explorer: a situation's moves as bars with their figures.
    page.get_by_label("Situation").select_option("first_battle_region")
    page.wait_for_url("**situation=first_battle_region**")
    page.wait_for_function(
        "() => /^3 decisions/.test(document.querySelector('.explorer-moves p')?.textContent || '')"
    )
    # The API's contexts count seats from 0, the page from 1: in the three two-player games the
    # region was chosen from seat index 1, the win-rate chart's "Seat 2", and is shown so.
    assert page.locator(".explorer-context h3").all_text_contents() == ["Seat 2"]
    assert "Seat 2" in page.locator("section[aria-label='Win rate by seat']").text_content()
    first = page.locator("li.move").first
    assert "won" in first.locator(".move-figures").text_content()
    assert "placement" in first.locator(".move-figures").text_content()
    assert first.locator(".move-fill").get_attribute("style").startswith("width:")
    assert "The region the condottiere chooses" in page.locator("#explorer-question").text_content()
    screenshot(page, f"stats-explorer-{size}")
    # Each example link names its own game (its id's tail), not "game 1" under every move.
    labels = page.locator(".move-examples a").all_text_contents()
    hrefs = page.locator(".move-examples a").evaluate_all("links => links.map((a) => a.getAttribute('href'))")
    assert len(set(labels)) == len(set(hrefs)) > 1, labels
    assert all(label.endswith(href[-6:]) for label, href in zip(labels, hrefs, strict=True)), labels
    # An example opens the game in the replay viewer.
    link = first.locator(".move-examples a").first
    href = link.get_attribute("href")
    assert href.startswith("/replay/") and href.rsplit("/", 1)[1] in ids
    link.click()
    page.wait_for_url(f"**{href}")
    # Rio de la Plata's placements in words its web module gives, not the keys "major", "cell"...
    page.goto(f"{live.url}/stats?game=rio_de_la_plata&players=3&situation=first_year_placement")
    page.wait_for_selector("li.move", timeout=30_000)
    names = page.locator(".move-name").all_text_contents()
    assert names and not {"major", "cell", "character"} & set(names), names
    assert {"A city cell", "A major building"} & set(names), names
    screenshot(page, f"stats-explorer-rio-{size}")
    # A filter matching nothing: an empty answer, not an error.
    page.goto(f"{live.url}/stats?game=condottiere&players=4")
    page.wait_for_selector("text=No game matches", timeout=30_000)
    assert errors == []
