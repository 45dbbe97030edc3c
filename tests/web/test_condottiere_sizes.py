"""A whole Condottiere game played by clicking, at 1280x800 and again at 390x844 (issue 30, "Done
when": test_table.py's game changes size half-way, with a device link; here each size plays a game
from its first decision to its end panel). Cards of the hand and regions of the map are clicked,
buttons only for what the board does not show (Pass, keeping a hand). BAT-1..BAT-7, CARD-2:
shared/rules/condottiere.md."""

from __future__ import annotations

import pytest
import requests

from tests.web.axe import assert_no_sideways_scroll
from tests.web.conftest import open_play_page, screenshot
from tests.web.test_table import WRONG_WORDS, YOUR_TURN_SETTLED, cd_click, summary_status, synced_board


def _one_game(live, context_for, size: str, clicks: dict[str, int]) -> None:
    """One game from its first decision to its end panel, every decision clicked and checked."""
    created = requests.post(
        f"{live.url}/v1/games",
        json={"game": "condottiere", "config": {"players": 3}, "bots": {"1": "heuristic", "2": "random"}},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    claim = requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": "Ann"}, timeout=10).json()
    page, errors = open_play_page(context_for(size), live.url, game_id, claim)
    offered_regions = False
    regions_before = clicks.get("region", 0)
    for step in range(600):
        page.wait_for_function(YOUR_TURN_SETTLED)
        if "Game over" in page.locator(".status").text_content():
            break
        view, drawn, pickable = synced_board(live, page, game_id)
        moves = view["legal_moves"]
        if moves and all(m["type"] == "keep_cards" for m in moves):
            # RND-2 (the seat alone still holds cards at the round's end): every card of the hand
            # is tapped to choose the ones to keep.
            assert drawn == set(view["hand"])
        else:
            assert drawn == {m["card"] for m in moves if m["type"] == "play"}
        regions = {m["region"] for m in view["legal_moves"] if m["type"] == "place_token"}
        assert pickable == regions
        offered_regions = offered_regions or bool(regions)
        if step == 3:
            assert_no_sideways_scroll(page, f"play-condottiere-whole-{size}")
        text = page.locator("#app").inner_text()
        assert not WRONG_WORDS.search(text), WRONG_WORDS.search(text)  # every sentence of the whole game
        clicked = cd_click(page)
        clicks[clicked] = clicks.get(clicked, 0) + 1
    else:
        pytest.fail("the game does not end")
    assert summary_status(live, game_id) == "finished"
    page.wait_for_selector(".end-panel:not([hidden])")
    assert clicks.get("region", 0) > regions_before or not offered_regions, clicks
    text = page.locator("#app").inner_text()
    assert not WRONG_WORDS.search(text), WRONG_WORDS.search(text)
    assert "You" in page.locator("ol.log").inner_text()  # the viewer's own sentences are in the log
    screenshot(page, f"play-condottiere-whole-finished-{size}")
    assert_no_sideways_scroll(page, f"play-condottiere-whole-finished-{size}")
    assert not errors, errors


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_condottiere_a_whole_game_by_clicking_at_one_size(live, context_for, size):
    """Every decision from the first to the last at one size: the playable cards, and only those,
    can be clicked, the regions offered are the legal ones; the game ends with its end panel and
    the page never scrolls sideways; no sentence on the page, at any step of the whole game, says
    "You is", "You plays", "You wins" or "1 regions". The bots now and then win a game in a few
    battles, so a short game is followed by another (three at most) until five cards were clicked.
    RND-2: when the seat alone holds cards at a round's end, its whole hand is offered to choose
    the cards it keeps."""
    clicks: dict[str, int] = {}
    for _ in range(3):
        _one_game(live, context_for, size, clicks)
        if clicks.get("card", 0) >= 5:
            break
    assert clicks.get("card", 0) >= 5, clicks
