"""Taking a placement back at the Rio de la Plata table (RIO-UNDO-1 .. RIO-UNDO-4 in
docs/rio-de-la-plata-protocol.md): the Undo control appears when the seat's view says what it would
take back, a click takes it back (the person is in the supply again, the count of placements left
is back), the log says so in the viewer's words; ending a turn with people left to place, which
cannot be taken back, is confirmed first."""

from __future__ import annotations

import pytest
import requests

from tests.web.conftest import SCREENSHOTS, open_play_page, screenshot

TURN_A = "() => /placements left/.test(document.querySelector('.your-turn')?.textContent || '')"
SETTLED = "() => !document.querySelector('.controls button:disabled')"


def _shots(page, name: str) -> None:
    """The whole page, and the screen the player sees (on a phone the whole page is 3,000 px)."""
    screenshot(page, name)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-screen.png"))


def _view(live, game_id: str, token: str) -> dict:
    answer = requests.get(
        f"{live.url}/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    return answer.json()["view"]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_rio_undo_1_rio_undo_2_a_placement_is_taken_back_from_the_table(live, context_for, size):
    """RIO-UNDO-1, RIO-UNDO-2, RIO-UNDO-3: place a person on a city cell by clicking it, see
    "Undo: place a person on cell (x, y)", click it: the person is off the cell and in the supply,
    "5 of 5 placements left" again, the view names nothing to take back, and the log says "You take
    back the placement on cell (x, y)". RIO-UNDO-1: "End your turn" with people left asks first."""
    created = requests.post(
        f"{live.url}/v1/games",
        json={
            "game": "rio_de_la_plata",
            "config": {"players": 3, "seed": 11},
            "bots": {"1": "random", "2": "random"},
        },
        timeout=10,
    ).json()
    game_id = created["id"]
    claim = requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": "Ann"}, timeout=10).json()
    seat, token = claim["seat"], claim["token"]
    page, errors = open_play_page(context_for(size), live.url, game_id, claim)
    page.wait_for_function(TURN_A, timeout=60_000)
    page.wait_for_function(SETTLED)
    before = _view(live, game_id, token)
    assert "undo" not in before and not page.locator(".moves button.undo").count()
    assert "5 of 5 placements left" in page.locator(".your-turn").inner_text()
    # A plain placement: the bots may already stand on a start cell, where a click displaces them.
    cell = next(
        m["cell"]
        for m in before["legal_moves"]
        if m["type"] == "place" and m.get("space") == "cell" and not m.get("displace")
    )
    key = f"{cell[0]},{cell[1]}"
    page.locator(f"svg.rio-city rect.rio-target[data-target='{key}']").click()
    person = f"svg.rio-city circle.rio-person[data-cell='{key}'][data-seat='{seat}']"
    page.wait_for_selector(person)
    undo = page.locator(".moves button.undo")
    undo.wait_for()
    assert undo.inner_text() == f"Undo: place a person on cell ({cell[0]}, {cell[1]})"
    assert "4 of 5 placements left" in page.locator(".your-turn").inner_text()
    assert _view(live, game_id, token)["undo"]["cell"] == cell
    if size == "phone":  # the control is on the first screen of the moves, not below the fold
        box = undo.bounding_box()
        assert box and box["height"] >= 40, box
    page.locator(".controls").scroll_into_view_if_needed()
    _shots(page, f"rio-undo-offered-{size}")

    undo.click()
    page.wait_for_selector(person, state="detached")
    page.wait_for_function(TURN_A)
    page.wait_for_function(SETTLED)
    after = _view(live, game_id, token)
    assert after["p"][seat] == before["p"][seat]  # the person is back in the supply
    assert key not in after["city"] or not after["city"][key]["ppl"][seat]
    assert "undo" not in after and not page.locator(".moves button.undo").count()
    assert "5 of 5 placements left" in page.locator(".your-turn").inner_text()
    # The Undo control is gone: the keyboard goes to the moves' box, never onto "End your turn".
    assert page.evaluate("() => document.activeElement.tagName") != "BUTTON"
    said = f"You take back the placement on cell ({cell[0]}, {cell[1]})."
    page.wait_for_function(f"() => document.querySelector('ol.log').innerText.includes({said!r})")
    page.locator(".controls").scroll_into_view_if_needed()
    _shots(page, f"rio-undo-taken-back-{size}")

    # Ending the turn with people left cannot be taken back: the page asks first; Back keeps it.
    page.get_by_role("button", name="End your turn", exact=True).click()
    warning = page.locator(".moves fieldset.warning")
    warning.wait_for()
    assert "cannot be taken back" in warning.inner_text()
    _shots(page, f"rio-end-turn-confirm-{size}")
    page.get_by_role("button", name="Back", exact=True).click()
    page.wait_for_function(TURN_A)
    assert seat in _view(live, game_id, token)["awaiting"]
    assert not errors, errors
