"""A play page whose seat stream is revoked (issue 30, item 4; the server's side: issue 35,
tests/api/test_stream_revocation.py): the stream's ``event: revoked`` stops the page from
reconnecting with a token that no longer holds the seat (it asks for no stream ticket again and never
says "Reconnecting..."), says in words why (the token was replaced: the seat moved to another
device; or a bot took the seat, RL-X19) and what can be done, and goes on as a spectator that
follows the game."""

from __future__ import annotations

import json

import requests

from tests.web.axe import assert_accessible, assert_no_sideways_scroll
from tests.web.conftest import SIZES, screenshot

TURN = "() => document.querySelector('.your-turn')"

# Every value the page's connection state takes, from now on (a banner shown and hidden again
# between two reads would be missed by reading it once).
WATCH_CONNECTION = """() => {
  window.connectionStates = [];
  new MutationObserver(() => window.connectionStates.push(document.body.dataset.connection))
    .observe(document.body, { attributes: true, attributeFilter: ["data-connection"] });
}"""


def _condottiere(live, clock: dict | None = None) -> tuple[str, dict]:
    body = {"game": "condottiere", "config": {"players": 2, "seed": 7}, "bots": {"1": "random"}}
    if clock:
        body["clock"] = clock
    created = requests.post(f"{live.url}/v1/games", json=body, timeout=10)
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    claim = requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": "Ann"}, timeout=10).json()
    return game_id, claim


def _open(context, live, game_id: str, claim: dict):
    """The play page holding ``claim``'s token, once its seat stream (opened with a stream ticket)
    is open: the server has answered the stream's request. Returns the page, its uncaught errors
    and the list of every stream ticket the page asks for from then on."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live.url + "/")
    seat = json.dumps({"seat": claim["seat"], "token": claim["token"]})
    page.evaluate(f"localStorage.setItem('seat:{game_id}', {json.dumps(seat)})")
    opened = lambda r: "/stream?ticket=" in r.url and r.status == 200  # noqa: E731
    with page.expect_response(opened, timeout=30_000):
        page.goto(f"{live.url}/play/{game_id}")
    page.wait_for_function(TURN)
    tickets: list[str] = []
    page.on("request", lambda r: tickets.append(r.url) if r.url.endswith("/stream-tickets") else None)
    page.evaluate(WATCH_CONNECTION)
    return page, errors, tickets


def test_a_replaced_token_stops_the_seat_stream_and_says_so_in_words(live, context_for):
    """Another device takes the seat (its token rotated, as a device link or a resume through the
    account does): the page's stream ends with ``event: revoked`` (token_rotated) and the page
    stops playing the seat at once, for good: no stream ticket is asked for with the old token, no
    "Reconnecting...", the token is forgotten, the words say the token was replaced and how to play
    here again; the page follows the game as a spectator (it shows the new holder's move)."""
    game_id, claim = _condottiere(live)
    page, errors, tickets = _open(context_for("desktop"), live, game_id, claim)

    rotated = requests.post(
        f"{live.url}/v1/games/{game_id}/token",
        headers={"Authorization": f"Bearer {claim['token']}"},
        timeout=10,
    )
    assert rotated.status_code == 200, rotated.text
    page.wait_for_selector(".seat-notice[data-lost='token_rotated']")
    notice = page.locator(".seat-notice").text_content()
    assert "token was replaced" in notice and "another device" in notice
    assert "Continue on another device" in notice, "says what to do to play here again"
    assert page.evaluate(f"localStorage.getItem('seat:{game_id}')") is None
    assert page.locator(".controls").is_hidden()
    assert "was you here" in page.locator(f'ul.players li[data-seat="{claim["seat"]}"]').text_content()
    assert "you hold no seat" in page.locator("#title").text_content()
    screenshot(page, "play-token-replaced-desktop")
    assert_accessible(page, "play-token-replaced-desktop")

    # The new holder moves; the page (a spectator now, on a stream of its own) shows it.
    new_token = rotated.json()["token"]
    view = requests.get(
        f"{live.url}/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {new_token}"}, timeout=10
    ).json()
    moved = requests.post(
        f"{live.url}/v1/games/{game_id}/moves",
        headers={"Authorization": f"Bearer {new_token}"},
        json={"command": view["view"]["legal_moves"][0], "expected_version": view["version"]},
        timeout=10,
    )
    assert moved.status_code in (200, 201), moved.text
    page.wait_for_function(
        f"() => Number(document.getElementById('app').dataset.version) >= {moved.json()['version']}"
    )
    assert tickets == [], f"the page asked for stream tickets with a token that holds no seat: {tickets}"
    shown = page.locator("#alert:not([hidden]), .toast.error, .inline-error")
    assert shown.count() == 0, f"a read cut short by the revocation is no error: {shown.all_text_contents()}"
    states = page.evaluate("window.connectionStates")
    assert "reconnecting" not in states, f"a revocation is not a dropped connection: {states}"
    page.set_viewport_size(SIZES["phone"])
    screenshot(page, "play-token-replaced-phone")
    assert_no_sideways_scroll(page, "play-token-replaced-phone")
    assert_accessible(page, "play-token-replaced-phone")
    assert not errors, errors


def test_a_seat_handed_to_a_bot_stops_the_seat_stream_and_says_so(live, context_for):
    """RL-X19: after its timeouts the seat is handed to a bot; the stream's ``event: revoked``
    (seat_handed_to_bot) stops the page's seat stream with no stream ticket asked for again, and
    the page says a bot plays the seat now (not that another device does)."""
    game_id, claim = _condottiere(live, {"move_seconds": 30, "bank_seconds": 0, "timeouts_to_bot": 1})
    page, errors, tickets = _open(context_for("phone"), live, game_id, claim)
    from service.games import now_ms

    # The clock enforcer's pass, as if the deadline were a minute ago (no waiting on real time).
    applied = live.app.extensions["game_service"].enforce_clock(game_id, now_ms() + 60_000)
    assert [a["seat"] for a in applied] == [claim["seat"]]
    page.wait_for_selector(".seat-notice[data-lost='seat_handed_to_bot']")
    notice = page.locator(".seat-notice").text_content()
    assert "A bot plays your seat now" in notice and "another device" not in notice
    assert "now a bot plays" in page.locator(f'ul.players li[data-seat="{claim["seat"]}"]').text_content()
    summary = requests.get(f"{live.url}/v1/games/{game_id}", timeout=10).json()
    page.wait_for_function(
        f"() => Number(document.getElementById('app').dataset.version) >= {summary['version']}"
    )
    assert tickets == [], tickets
    assert "reconnecting" not in page.evaluate("window.connectionStates")
    screenshot(page, "play-seat-to-bot-phone")
    assert_no_sideways_scroll(page, "play-seat-to-bot-phone")
    assert not errors, errors
