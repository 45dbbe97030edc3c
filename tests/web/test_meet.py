"""The browser's ways to find each other: Ann challenges Bob from his profile page, Bob accepts from
the notice every page shows, both land at the table with a seat of their own, and a chat line
crosses the table. Screenshots at 1280x800 and 390x844 (var/screenshots/meet-*)."""

from __future__ import annotations

import json
import secrets

import requests

from tests.web.conftest import SIZES, screenshot

PASSWORD = "correct horse battery"


def _account(live, prefix: str) -> dict:
    handle = f"{prefix}{secrets.token_hex(3)}"
    assert requests.post(
        f"{live.url}/v1/accounts", json={"handle": handle, "password": PASSWORD}, timeout=30
    ).ok
    session = requests.post(
        f"{live.url}/v1/sessions", json={"handle": handle, "password": PASSWORD}, timeout=30
    )
    assert session.status_code == 201, session.text
    return session.json()


def _signed_in(browser, live, session: dict, size: str):
    context = browser.new_context(viewport=SIZES[size])
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live.url}/sign-in")
    stored = json.dumps(
        {"handle": session["handle"], "token": session["token"], "expires": session.get("expires")}
    )
    page.evaluate(f"localStorage.setItem('account', {json.dumps(stored)})")
    return context, page, errors


def test_a_challenge_from_a_profile_is_accepted_from_the_notice_and_both_sit_and_chat(live, browser):
    ann, bob = _account(live, "ann"), _account(live, "bob")
    first, page, errors = _signed_in(browser, live, ann, "desktop")
    second, other, other_errors = _signed_in(browser, live, bob, "phone")
    try:
        page.goto(f"{live.url}/ratings/players/{bob['handle']}")
        page.locator("#challenge-profile").click()
        dialog = page.locator("dialog.meet-dialog")
        dialog.get_by_label("Game").select_option("condottiere")
        screenshot(page, "meet-challenge-dialog-desktop")
        dialog.get_by_role("button", name="Send challenge").click()
        page.locator(".meet-item").wait_for()  # the outgoing challenge, with its Cancel

        other.goto(f"{live.url}/")
        accept = other.locator(".meet-item button.accept")
        accept.wait_for()
        assert ann["handle"] in other.locator(".meet-item").first.inner_text()
        screenshot(other, "meet-incoming-phone")
        accept.click()
        other.wait_for_url("**/play/*")
        page.wait_for_url("**/play/*")  # the challenger is taken to the table too
        game_id = other.url.rsplit("/", 1)[1]
        assert page.url.rsplit("/", 1)[1] == game_id
        for p in (page, other):
            assert p.evaluate(f"localStorage.getItem('seat:{game_id}')") is not None

        # The chat: open beside the board on the desktop, collapsed on the phone.
        panel = page.locator("details#chat")
        panel.wait_for()
        assert page.evaluate("document.getElementById('chat').open") is True
        other.locator("details#chat").wait_for()
        assert other.evaluate("document.getElementById('chat').open") is False
        other.locator("details#chat summary").click()
        other.get_by_label("Message").fill("good luck")
        other.get_by_role("button", name="Send").click()
        page.locator(".chat-messages li", has_text="good luck").wait_for()
        page.get_by_label("Message").fill("you too")
        page.get_by_role("button", name="Send").click()
        other.locator(".chat-messages li", has_text="you too").wait_for()
        screenshot(page, "meet-table-chat-desktop")
        screenshot(other, "meet-table-chat-phone")
        assert errors == [] and other_errors == []
    finally:
        first.close()
        second.close()


def test_play_now_pairs_two_browsers_at_one_table(live, browser):
    """Both press "Play now" for Condottiere; the matcher's pass (the janitor's, run here) pairs
    them, and each browser is taken to the table with a seat of its own."""
    from service.seeks import SeekService

    ann, bob = _account(live, "ann"), _account(live, "bob")
    first, page, errors = _signed_in(browser, live, ann, "desktop")
    second, other, other_errors = _signed_in(browser, live, bob, "phone")
    try:
        for p in (page, other):
            p.goto(f"{live.url}/")
            p.locator("#play-now summary").click()
            p.locator("#play-now button", has_text="Condottiere").click()
            p.locator(".meet-item.seeking").wait_for()
        screenshot(other, "meet-seeking-phone")
        assert SeekService(live.app.extensions["game_service"]).match()["games"] == 1
        page.wait_for_url("**/play/*")
        other.wait_for_url("**/play/*")
        game_id = page.url.rsplit("/", 1)[1]
        assert other.url.rsplit("/", 1)[1] == game_id
        for p in (page, other):
            assert p.evaluate(f"localStorage.getItem('seat:{game_id}')") is not None
        assert errors == [] and other_errors == []
    finally:
        first.close()
        second.close()
