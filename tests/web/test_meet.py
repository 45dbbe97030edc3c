"""The browser's ways to find each other: Ann challenges Bob from his profile page, Bob accepts from
the notice every page shows, both land at the table with a seat of their own, a chat line crosses
the table, they play the whole game and a rematch starts the next. Screenshots at 1280x800 and
390x844 (var/screenshots/meet-*)."""

from __future__ import annotations

import time

import requests
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.web.conftest import SIZES, new_account, screenshot, signed_in
from tests.web.test_table import SETTLED, TURN_OR_OVER, cd_click


def _server(live, game_id: str) -> dict:
    """The game as a spectator reads it: its version, status and the seats awaited."""
    data = requests.get(f"{live.url}/v1/games/{game_id}/view", timeout=30).json()
    return {
        "version": data["version"],
        "status": data["status"],
        "awaiting": data["view"].get("awaiting") or [],
    }


def _play_to_the_end(live, game_id: str, pages: dict[int, object]) -> dict[str, int]:
    """Every decision of the whole game, each clicked on the page of a seat the server awaits
    (cards of the hand, regions of the map, the buttons the board does not show: ``cd_click``),
    each click applied by the server before the next. The server is read again when the awaited
    page does not offer its turn yet (a simultaneous decision may already be on its way), so every
    wait is for a condition, bounded, never timed."""
    clicks: dict[str, int] = {}
    deadline = time.monotonic() + 1200
    while True:
        assert time.monotonic() < deadline, f"the game did not end: {clicks}"
        seen = _server(live, game_id)
        if seen["status"] == "finished":
            return clicks
        # A page offers its turn once it has drawn the version the server is at.
        offers = (
            f"() => Number(document.getElementById('app').dataset.version) >= {seen['version']}"
            f" && Boolean(({TURN_OR_OVER})()) && ({SETTLED})()"
        )
        ready = [s for s in seen["awaiting"] if pages[s].evaluate(offers)]
        if not ready:
            try:
                pages[seen["awaiting"][0]].wait_for_function(offers, timeout=10_000)
            except PlaywrightTimeout:
                pass
            continue
        clicked = cd_click(pages[ready[0]])
        clicks[clicked] = clicks.get(clicked, 0) + 1
        applied = time.monotonic() + 60
        while _server(live, game_id)["version"] <= seen["version"]:
            assert time.monotonic() < applied, "a click was never applied"
            time.sleep(0.05)


def _clear_of_the_header(page, toast) -> None:
    """A toast leaves the site header's links visible: its box does not overlap the header's."""
    header, box = page.locator("header.top").bounding_box(), toast.bounding_box()
    assert header is not None and box is not None
    apart = box["y"] >= header["y"] + header["height"] or box["y"] + box["height"] <= header["y"]
    assert apart, (header, box)


def test_a_challenge_from_a_profile_accepted_from_the_notice_is_played_whole_with_chat_and_a_rematch(
    live, browser
):
    """Ann (1280x800) challenges Bob (390x844) from his profile; Bob accepts from the notice; both
    play their seats with their accounts' own tokens (no seat token taken, nothing rotated, nobody
    told of a new token); a chat line each way; the whole Condottiere game by clicking (2 players,
    SET-1's smallest table; BAT-1..BAT-7); Ann offers a rematch at the end, Bob accepts it, and
    both pages go to the new game, seats rotated."""
    ann, bob = new_account(live, "ann"), new_account(live, "bob")
    first, page, errors = signed_in(browser, live, ann, "desktop")
    second, other, other_errors = signed_in(browser, live, bob, "phone")
    try:
        page.goto(f"{live.url}/ratings/players/{bob['handle']}")
        page.locator("#challenge-profile").click()
        dialog = page.locator("dialog.meet-dialog")
        dialog.get_by_label("Game").select_option("condottiere")
        screenshot(page, "meet-challenge-dialog-desktop")
        dialog.get_by_role("button", name="Send challenge").click()
        page.locator(".meet-item").wait_for()  # the outgoing challenge, with its Cancel
        sent = page.locator("#toasts .toast", has_text="Challenge sent")
        sent.wait_for(timeout=10_000)
        _clear_of_the_header(page, sent)
        screenshot(page, "meet-sent-desktop")

        other.goto(f"{live.url}/")
        accept = other.locator(".meet-item button.accept")
        accept.wait_for()
        assert ann["handle"] in other.locator(".meet-item").first.inner_text()
        notice = other.locator("#toasts .toast", has_text="challenges you")
        notice.wait_for(timeout=10_000)
        _clear_of_the_header(other, notice)
        screenshot(other, "meet-incoming-phone")
        accept.click()
        other.wait_for_url("**/play/*", timeout=60_000)
        page.wait_for_url("**/play/*", timeout=60_000)  # the challenger is taken to the table too
        game_id = other.url.rsplit("/", 1)[1]
        assert page.url.rsplit("/", 1)[1] == game_id
        # Each page plays its account's seat with the account's token: no seat token was taken.
        for p in (page, other):
            p.locator("#moves-title").wait_for()
            assert p.evaluate(f"localStorage.getItem('seat:{game_id}')") is None

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

        summary = requests.get(f"{live.url}/v1/games/{game_id}", timeout=30).json()
        assert summary["seat_count"] == 2
        by_name = {ann["handle"]: page, bob["handle"]: other}
        pages = {s["seat"]: by_name[s["name"]] for s in summary["seats"]}
        clicks = _play_to_the_end(live, game_id, pages)
        assert clicks.get("card", 0) >= 5, clicks
        for p in (page, other):
            p.locator(".end-panel:not([hidden])").wait_for(timeout=60_000)
        screenshot(page, "meet-game-over-desktop")
        screenshot(other, "meet-game-over-phone")
        # Nobody was told of a new token, and the log holds no rotation.
        log = requests.get(f"{live.url}/v1/games/{game_id}/annotations?limit=500", timeout=30).json()
        assert log["annotations"] and not [e for e in log["annotations"] if "new seat token" in e["text"]]
        store = live.app.extensions["game_service"].store
        assert not [e for e in store.read_events(game_id) if e.event.get("type") == "seat_token_rotated"]

        # The rematch, through the API: Ann offers, Bob's page says so and he accepts.
        page.get_by_role("button", name="Rematch (seats rotated)").click()
        page.locator(".rematch-status", has_text="Waiting for").wait_for()
        other.get_by_role("button", name="Accept the rematch").wait_for(timeout=60_000)
        assert ann["handle"] in other.locator(".rematch-status").inner_text()
        screenshot(page, "meet-rematch-offered-desktop")
        screenshot(other, "meet-rematch-offered-phone")
        other.get_by_role("button", name="Accept the rematch").click()
        other.wait_for_url(lambda url: "/play/" in url and game_id not in url, timeout=60_000)
        page.wait_for_url(lambda url: "/play/" in url and game_id not in url, timeout=60_000)
        new_id = page.url.rsplit("/", 1)[1]
        assert other.url.rsplit("/", 1)[1] == new_id
        rematch = requests.get(f"{live.url}/v1/games/{game_id}/rematch", timeout=30).json()
        assert rematch["rematch"] == new_id
        made = requests.get(f"{live.url}/v1/games/{new_id}", timeout=30).json()
        assert made["status"] == "active"
        assert {s["seat"]: s["name"] for s in made["seats"]} == {
            (s["seat"] + 1) % 2: s["name"] for s in summary["seats"]
        }  # seats rotated
        for p in (page, other):
            p.locator("#moves-title").wait_for()
        screenshot(page, "meet-rematch-table-desktop")
        screenshot(other, "meet-rematch-table-phone")
        assert errors == [] and other_errors == []
    finally:
        first.close()
        second.close()


def test_play_now_pairs_two_browsers_at_one_table(live, browser):
    """Both press "Play now" for Condottiere; the matcher's pass (the janitor's, run here) pairs
    them, and each browser is taken to the table with a seat of its own."""
    from service.seeks import SeekService

    ann, bob = new_account(live, "ann"), new_account(live, "bob")
    first, page, errors = signed_in(browser, live, ann, "desktop")
    second, other, other_errors = signed_in(browser, live, bob, "phone")
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
        # Each plays its account's seat with the account's token: no seat token taken, none rotated.
        for p in (page, other):
            p.locator("#moves-title").wait_for()
            assert p.evaluate(f"localStorage.getItem('seat:{game_id}')") is None
        assert errors == [] and other_errors == []
    finally:
        first.close()
        second.close()


def test_a_challenge_with_a_clock_and_chosen_seats_from_the_lobby_is_declined_with_a_reason(live, browser):
    """Bob waits at an open game in the lobby; Ann, signed in, finds a "Challenge" button beside his
    name there and challenges him to a casual 3-player game with a minute per decision, choosing the
    seats (Bob first, a random bot second, herself third). Bob (390x844) sees it on the lobby,
    declines it "Too fast for me", and Ann's page says so in those words."""
    ann, bob = new_account(live, "ann"), new_account(live, "bob")
    waiting = requests.post(
        f"{live.url}/v1/games", json={"game": "condottiere", "config": {"players": 3}}, timeout=30
    ).json()["id"]
    seated = requests.post(
        f"{live.url}/v1/games/{waiting}/seats",
        json={},
        headers={"Authorization": f"Bearer {bob['token']}"},
        timeout=30,
    )
    assert seated.status_code == 201, seated.text
    first, page, errors = signed_in(browser, live, ann, "desktop")
    second, other, other_errors = signed_in(browser, live, bob, "phone")
    try:
        page.goto(f"{live.url}/")
        row = page.locator(f"[data-list='open'] li[data-game='{waiting}']")
        row.locator(".challenge-button").wait_for()
        screenshot(page, "lobby-challenge-button-desktop")
        page.set_viewport_size(SIZES["phone"])
        screenshot(page, "lobby-challenge-button-phone")
        page.set_viewport_size(SIZES["desktop"])
        row.locator(".challenge-button").click()
        dialog = page.locator("dialog.meet-dialog")
        assert dialog.locator("h2").text_content() == f"Challenge {bob['handle']}"
        dialog.locator("#challenge-game").select_option("condottiere")
        dialog.locator("#challenge-players").fill("3")
        dialog.locator("#challenge-order").select_option("given")
        dialog.locator("#challenge-seat-0").select_option("them")
        dialog.locator("#challenge-seat-1").select_option("bot:random")
        dialog.locator("#challenge-seat-2").select_option("me")
        dialog.locator("#challenge-rated").uncheck()
        dialog.locator("details.challenge-clock summary").click()
        dialog.locator("#challenge-clock-move_seconds").fill("60")
        screenshot(page, "meet-challenge-options-desktop")
        dialog.get_by_role("button", name="Send challenge").click()
        dialog.wait_for(state="detached")
        page.locator(".meet-item", has_text=f"You challenge {bob['handle']}").wait_for()

        other.goto(f"{live.url}/")
        incoming = other.locator(".meet-item", has_text=f"{ann['handle']} challenges you")
        incoming.wait_for()
        assert "casual" in incoming.inner_text() and "60 s a move" in incoming.inner_text()
        made = requests.get(
            f"{live.url}/v1/challenges", headers={"Authorization": f"Bearer {bob['token']}"}, timeout=30
        ).json()["incoming"][0]
        assert made["seat_order"] == "given" and made["rated"] is False
        assert made["clock"]["move_seconds"] == 60
        assert [
            (s["seat"], s["kind"], s["name"] if s["kind"] == "account" else s["bot"]) for s in made["seats"]
        ] == [
            (0, "account", bob["handle"]),
            (1, "bot", "random"),
            (2, "account", ann["handle"]),
        ]
        incoming.get_by_label("Reason to decline").select_option("tooFast")
        screenshot(other, "meet-decline-reason-phone")
        incoming.get_by_role("button", name="Decline").click()
        incoming.wait_for(state="detached")
        page.locator("#toasts .toast", has_text="declined: too fast for me").wait_for()
        gone = requests.get(f"{live.url}/v1/challenges/{made['id']}", timeout=30).json()
        assert gone["status"] == "declined" and gone["reason"] == "tooFast"

        # The dialog on a phone: Bob challenges Ann back from her profile, every option open.
        other.goto(f"{live.url}/ratings/players/{ann['handle']}")
        other.locator("#challenge-profile").click()
        phone_dialog = other.locator("dialog.meet-dialog")
        phone_dialog.locator("#challenge-players").fill("4")
        phone_dialog.locator("#challenge-order").select_option("given")
        phone_dialog.locator("details.challenge-clock summary").click()
        screenshot(other, "meet-challenge-options-phone")
        phone_dialog.get_by_role("button", name="Send challenge").click()
        phone_dialog.wait_for(state="detached")  # sent: the defaults seat both people, bots the rest
        other.locator(".meet-item", has_text=f"You challenge {ann['handle']}").wait_for()
        assert errors == [] and other_errors == []
    finally:
        first.close()
        second.close()
