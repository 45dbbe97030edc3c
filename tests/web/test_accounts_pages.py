"""The browser's accounts (issue 31, item 6; issue 30, item 4): sign up and sign in, a seat joined
from the lobby as the account (bound to it), resumed from "My games" in a second browser that holds
no seat token for the game, and a move played there. One live server for the module."""

from __future__ import annotations

import json
import secrets
import time

import pytest
import requests

from tests.web.conftest import SIZES, screenshot
from tests.web.test_table import ENABLED, TURN_OR_OVER, cd_click, check_page, token_in

PASSWORD = "correct horse battery"


def _handle(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(3)}"


def _session(page) -> dict | None:
    raw = page.evaluate("localStorage.getItem('account')")
    return json.loads(raw) if raw else None


def _me_games(live, token: str) -> dict:
    response = requests.get(
        f"{live.url}/v1/me/games", headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    assert response.status_code == 200, response.text
    return response.json()


def _game_with_a_bot(live) -> str:
    created = requests.post(
        f"{live.url}/v1/games",
        json={"game": "condottiere", "config": {"players": 2, "seed": 5}, "bots": {"1": "random"}},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    return created.json()["id"]


def _version(live, game_id: str) -> int:
    return requests.get(f"{live.url}/v1/games/{game_id}", timeout=10).json()["version"]


def _new(browser, size: str):
    context = browser.new_context(viewport=SIZES[size])
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return context, page, errors


def test_sign_up_join_as_the_account_then_play_the_seat_from_two_devices_at_once(live, browser):
    """An account-bound seat is the account's: a second browser signed in to the account plays it
    with the account's token ("Play" on My games), with no rotation and no sentence in the log;
    the first browser, holding the seat token, goes on playing it too (moves from both apply)."""
    handle = _handle("ann")
    game_id = _game_with_a_bot(live)
    first, page, errors = _new(browser, "desktop")
    second, other, other_errors = _new(browser, "phone")
    try:
        # Sign up: the account is made and signed in at once; the header says who.
        page.goto(f"{live.url}/sign-up")
        page.get_by_label("Handle").fill(handle)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Create the account").click()
        page.wait_for_url("**/my-games")
        assert handle in page.locator("#account-nav").inner_text()
        assert page.locator("#account-nav a", has_text="My games").get_attribute("href") == "/my-games"
        session = _session(page)
        assert session["handle"] == handle and session["token"].startswith("csa_")

        # Join from the lobby as the account: the claim binds the seat (GET /v1/me/games lists it).
        page.goto(f"{live.url}/")
        page.locator(f'li[data-game="{game_id}"] button', has_text=f"Join as {handle}").click()
        page.wait_for_url(f"**/play/{game_id}")
        seat = token_in(page, game_id)
        assert seat is not None
        deadline = time.monotonic() + 60
        while not any(g["game_id"] == game_id for g in _me_games(live, session["token"])["running"]):
            assert time.monotonic() < deadline, "the account's games never listed the joined game"
            time.sleep(0.1)
        page.wait_for_function(TURN_OR_OVER)

        # A second browser: a wrong password is said beside the password field, nothing stored.
        other.goto(f"{live.url}/sign-in")
        other.get_by_label("Handle").fill(handle)
        other.get_by_label("Password").fill("not the password")
        other.get_by_role("button", name="Sign in").click()
        error = other.locator("#password-error")
        error.wait_for()
        assert "Wrong handle or password" in error.inner_text()
        assert other.get_by_label("Password").get_attribute("aria-invalid") == "true"
        assert _session(other) is None
        check_page(other, "sign-in-wrong-password-phone")

        other.get_by_label("Password").fill(PASSWORD)
        other.get_by_role("button", name="Sign in").click()
        other.wait_for_url("**/my-games")
        row = other.locator(f'li[data-game="{game_id}"]')
        row.wait_for()
        assert token_in(other, game_id) is None
        # Seat 0 of seed 5 decides first: the game awaits me, and the badge says so.
        other.wait_for_function(
            f"() => document.querySelector('li[data-game=\"{game_id}\"]').dataset.yourTurn === 'true'"
        )
        assert row.locator(".badge.turn").inner_text() == "your turn"
        assert other.title().startswith("● Your turn (1)")
        assert "stops playing it" not in row.inner_text()  # nothing is rotated, nothing to warn of
        check_page(other, "my-games-phone")

        # "Play" on the second device: it plays the seat with the account's own token, stores no
        # seat token, and the first device's seat token is untouched.
        row.get_by_role("link", name="Play").click()
        other.wait_for_url(f"**/play/{game_id}")
        other.locator("#pref-sound").wait_for()  # the page plays the seat (its controls are there)
        assert token_in(other, game_id) is None
        # No device link for an account-played seat, and nothing (no "null") in its place.
        assert "null" not in other.locator("#app").inner_text().split()
        before = _version(live, game_id)
        other.wait_for_function(TURN_OR_OVER)
        other.wait_for_function(ENABLED)
        cd_click(other)
        deadline = time.monotonic() + 60
        while _version(live, game_id) <= before:
            assert time.monotonic() < deadline, "the second device's move was never applied"
            time.sleep(0.05)
        screenshot(other, "play-account-seat-second-device-phone")

        # The first device still plays it, with its own seat token: its next move is applied too.
        page.wait_for_function(TURN_OR_OVER)
        page.wait_for_function(ENABLED)
        assert token_in(page, game_id) == seat
        assert not page.locator(".seat-notice:not([hidden])").count()
        before = _version(live, game_id)
        if "Game over" not in page.locator(".status").text_content():
            cd_click(page)
            deadline = time.monotonic() + 60
            while _version(live, game_id) <= before:
                assert time.monotonic() < deadline, "the first device's move was never applied"
                time.sleep(0.05)
        # Nobody was told of a new token: the log has no such sentence.
        log = requests.get(f"{live.url}/v1/games/{game_id}/annotations?limit=500", timeout=10).json()[
            "annotations"
        ]
        assert not [e for e in log if "new seat token" in e["text"]]
        screenshot(page, "play-account-seat-first-device-desktop")

        # Sign out: the header says "Sign in" again and the session token no longer works.
        page.locator("#account-nav button", has_text="Sign out").click()
        page.wait_for_url("**/sign-in")
        assert _session(page) is None
        page.locator("#account-nav a", has_text="Sign in").wait_for()
        me = requests.get(
            f"{live.url}/v1/me", headers={"Authorization": f"Bearer {session['token']}"}, timeout=10
        )
        assert me.status_code == 401
        assert not errors and not other_errors, errors + other_errors
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_account_pages_are_accessible_fit_and_are_photographed(live, browser, size):
    """Sign-in, sign-up and "My games" (with a running game bound to the account, made through the
    API): axe-core finds nothing serious or critical, no sideways scroll at 390 px, screenshots."""
    handle = _handle("bea")
    assert requests.post(
        f"{live.url}/v1/accounts", json={"handle": handle, "password": PASSWORD}, timeout=30
    ).ok
    session = requests.post(
        f"{live.url}/v1/sessions", json={"handle": handle, "password": PASSWORD}, timeout=30
    ).json()
    game_id = _game_with_a_bot(live)
    claimed = requests.post(
        f"{live.url}/v1/games/{game_id}/seats",
        json={},
        headers={"Authorization": f"Bearer {session['token']}"},
        timeout=10,
    )
    assert claimed.status_code == 201, claimed.text
    # A finished game too: another bound seat, resigned (the list's "Finished" part and its result).
    resigned = _game_with_a_bot(live)
    auth = {"Authorization": f"Bearer {session['token']}"}
    assert requests.post(f"{live.url}/v1/games/{resigned}/seats", json={}, headers=auth, timeout=10).ok
    done = requests.post(f"{live.url}/v1/games/{resigned}/resign", headers=auth, timeout=10)
    assert done.ok, done.text
    context, page, errors = _new(browser, size)
    try:
        for path, name in (("/sign-in", "sign-in"), ("/sign-up", "sign-up")):
            page.goto(live.url + path)
            page.locator("form.account-form").wait_for()
            check_page(page, f"{name}-{size}")
        page.evaluate(f"localStorage.setItem('account', {json.dumps(json.dumps(session))})")
        page.goto(f"{live.url}/my-games")
        page.locator(f'li[data-game="{game_id}"]').wait_for()
        finished = page.locator(f'[data-list="finished"] li[data-game="{resigned}"]')
        finished.wait_for()
        assert "you did not win" in finished.inner_text() and "random bot" in finished.inner_text()
        check_page(page, f"my-games-{size}")
        page.goto(f"{live.url}/")
        page.locator(".lists").wait_for()
        check_page(page, f"lobby-signed-in-{size}")
        assert not errors, errors
    finally:
        context.close()
