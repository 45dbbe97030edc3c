"""A whole Rio de la Plata game (RIO-ROUND-1: 20 years, 1580 to 1599) followed on a seat's play page
from its first decision to its end, the page's text checked as it goes and at the end, when its log
holds every sentence of the game in the viewer's words: no "You is", "You plays", "1 regions" or a
raw "seat 2". The seat's own moves are sent through the API (random legal ones, never a trade
offer), the two other seats are bots; the page only follows (test_table.py clicks two years)."""

from __future__ import annotations

import random
import re
import time

import requests

from tests.web.conftest import open_play_page, screenshot

# Words a sentence in the second person or with a count may get wrong: a verb in the third person
# after "you" ("You takes"), a singular with a plural noun, a plural subject with "is", a raw seat.
WRONG = re.compile(
    r"\b[Yy]ou (?:is|has|was|[a-z]+[^s\W]s)\b"
    r"|\b1 (?:regions|cards|attackers|people|placements|years|goods|sections|groups|buildings|silvers)\b"
    r"|\b(?:roads|walls) is\b|\b[Ss]eat \d|\bnull\b|\bundefined\b"
)
FINISHED = "() => /Game over/.test(document.querySelector('.status')?.textContent || '')"


def _wrong(text: str) -> list[str]:
    return sorted({line for line in text.splitlines() if WRONG.search(line)})[:5]


def test_rio_round_1_a_whole_game_reads_right_on_the_page(live, context_for):
    """RIO-ROUND-1, RIO-END-1: every sentence the page showed over a whole game of 20 years (the
    log, the status, the moves, the end panel) has the verb of "you", plurals right and names, not
    seats; checked every 40 of the seat's moves and over the whole log at the end, at 1280x800, and
    again on the finished game at 390x844."""
    created = requests.post(
        f"{live.url}/v1/games",
        json={
            "game": "rio_de_la_plata",
            "config": {"players": 3, "seed": 17},
            "bots": {"1": "heuristic", "2": "random"},
        },
        timeout=10,
    ).json()
    game_id = created["id"]
    claim = requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": "Ann"}, timeout=10).json()
    seat, auth = claim["seat"], {"Authorization": f"Bearer {claim['token']}"}
    page, errors = open_play_page(context_for("desktop"), live.url, game_id, claim)
    rng = random.Random(17)
    moves = 0
    deadline = time.monotonic() + 1500
    while time.monotonic() < deadline:
        answer = requests.get(f"{live.url}/v1/games/{game_id}/view", headers=auth, timeout=10).json()
        view = answer["view"]
        if view.get("result"):
            break
        if seat not in view["awaiting"]:
            time.sleep(0.05)  # polling the bots' progress, bounded by the deadline above
            continue
        legal = [m for m in view["legal_moves"] if not m["type"].startswith("offer_") and m["type"] != "buy"]
        move = rng.choice(legal)
        sent = requests.post(
            f"{live.url}/v1/games/{game_id}/moves",
            json={"command": move, "expected_version": answer["version"]},
            headers=auth,
            timeout=10,
        )
        assert sent.status_code in (200, 409), sent.text
        moves += 1
        if moves % 40 == 0:
            text = page.locator("#app").inner_text()
            assert not _wrong(text), _wrong(text)
    else:
        raise AssertionError("the game did not end within 25 minutes")
    assert moves > 100
    page.wait_for_function(FINISHED, timeout=60_000)
    page.wait_for_selector(".end-panel:not([hidden])")
    log = page.locator("ol.log").inner_text()
    assert "The year 1599 begins." in log and "You " in log
    text = page.locator("#app").inner_text()
    assert not _wrong(text), _wrong(text)
    screenshot(page, "rio-whole-game-finished-desktop")
    phone, phone_errors = open_play_page(context_for("phone"), live.url, game_id, claim)
    phone.wait_for_function(FINISHED, timeout=30_000)
    phone.wait_for_function(
        "() => /The year 1599 begins/.test(document.querySelector('ol.log')?.innerText || '')"
    )
    text = phone.locator("#app").inner_text()
    assert not _wrong(text), _wrong(text)
    screenshot(phone, "rio-whole-game-finished-phone")
    assert not errors and not phone_errors, errors + phone_errors
