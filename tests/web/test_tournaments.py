"""Tournaments in the browser: an organiser creates a Swiss from the form, enters it with the Join
button, two more accounts enter (through the API), the organiser starts it, and the page shows
round 1's table in seat order, the "your table" box (with the link to the game once the table has
one) and the standings; a finished table's result moves the standings. At 1280x800 and 390x844:
axe-core, no sideways scroll, screenshots (var/screenshots/tournament-*).

The table's result is recorded through the tournament service, as the finished game's follow-up
records it."""

from __future__ import annotations

import json
import re
import secrets

import pytest
import requests

from tests.web.conftest import SIZES
from tests.web.test_table import check_page

PASSWORD = "correct horse battery"


def _account(live, prefix: str) -> dict:
    handle = f"{prefix}{secrets.token_hex(3)}"
    made = requests.post(f"{live.url}/v1/accounts", json={"handle": handle, "password": PASSWORD}, timeout=60)
    assert made.status_code == 201, made.text
    session = requests.post(
        f"{live.url}/v1/sessions", json={"handle": handle, "password": PASSWORD}, timeout=60
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


def _tournament(live, tid: str) -> dict:
    got = requests.get(f"{live.url}/v1/tournaments/{tid}", timeout=30)
    assert got.status_code == 200, got.text
    return got.json()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_create_join_start_and_see_the_pairings_your_table_and_standings(live, browser, size):
    ann, bob, cid = _account(live, "ann"), _account(live, "bob"), _account(live, "cid")
    context, page, errors = _signed_in(browser, live, ann, size)
    try:
        # The list, reached from the site's navigation
        page.goto(f"{live.url}/")
        page.get_by_role("navigation", name="Site").get_by_role("link", name="Tournaments").click()
        page.wait_for_url("**/tournaments")
        page.locator("section[data-list='open']").wait_for()
        check_page(page, f"tournament-list-before-{size}")

        # The create form
        page.get_by_role("link", name="Organise a tournament").click()
        page.wait_for_url("**/tournaments/new")
        page.get_by_label("Title").fill(f"Friday Swiss {size}")
        page.get_by_label("Game", exact=True).select_option("condottiere")
        page.get_by_label("Players per table").fill("3")
        page.get_by_label("Rounds (Swiss)").fill("2")
        page.get_by_label("Who may enter").select_option("anyone")
        assert page.get_by_label("Bot accounts may enter").is_checked()
        check_page(page, f"tournament-create-{size}")
        page.get_by_role("button", name="Create tournament").click()
        page.wait_for_url(re.compile(r".*/tournaments/[0-9a-f]{16}$"))
        tid = page.url.rsplit("/", 1)[1]
        assert page.locator("h1").inner_text() == f"Friday Swiss {size}"

        # Ann enters with the button; Bob and Cid through the API
        page.get_by_role("button", name="Join").click()
        page.locator(".entrants li", has_text=ann["handle"]).wait_for()
        assert page.get_by_role("button", name="Join").count() == 0
        for other in (bob, cid):
            joined = requests.post(
                f"{live.url}/v1/tournaments/{tid}/join",
                json={},
                headers={"Authorization": f"Bearer {other['token']}"},
                timeout=30,
            )
            assert joined.status_code == 200, joined.text
        page.reload()
        page.locator(".entrants li", has_text=cid["handle"]).wait_for()
        assert page.locator(".entrants li").count() == 3
        assert page.get_by_role("button", name="Withdraw").count() == 1
        check_page(page, f"tournament-open-{size}")

        # The organiser starts it: round 1's one table of 3, in seat order, and "your table"
        page.get_by_role("button", name="Start").click()
        page.locator("section.round[data-round='1']").wait_for()
        seated = _tournament(live, tid)["rounds"][0]["tables"][0]["players"]
        names = {e["account"]: e["name"] for e in _tournament(live, tid)["entrants"]}
        shown = page.locator("section.round[data-round='1'] ol.seats li").all_inner_texts()
        assert [s.replace(" (you)", "") for s in shown] == [names[p] for p in seated]
        first_round = page.locator("section.round[data-round='1']")
        box = page.locator(".your-table-box")
        assert "Round 1, table 1" in box.inner_text()
        assert page.get_by_role("button", name="Start").count() == 0
        table = _tournament(live, tid)["rounds"][0]["tables"][0]
        if table.get("game"):  # the table is a real game: the box links to it
            link = box.get_by_role("link", name="Your table: play")
            assert link.get_attribute("href") == f"/play/{table['game']}"
        rows = page.locator("table.standings tbody tr")
        assert rows.count() == 3
        assert page.locator("table.standings tr.me").count() == 1
        check_page(page, f"tournament-round-1-{size}")

        # The table finishes (Cid, then Ann, then Bob): the standings follow.
        ids = {n: a for a, n in names.items()}
        live.app.extensions["tournament_service"].record_result(
            tid, 1, 0, [[ids[cid["handle"]]], [ids[ann["handle"]]], [ids[bob["handle"]]]]
        )
        page.reload()
        page.locator("table.standings tbody tr").first.wait_for()
        first = page.locator("table.standings tbody tr").first
        assert cid["handle"] in first.inner_text()
        assert first.locator("td.num").first.inner_text() == "7.43"  # 4 of 7 at a table of 3, x 13/7
        assert page.locator("table.standings tr.me td").first.inner_text() == "2"
        places = first_round.locator("ol.seats li").all_inner_texts()
        assert f"{cid['handle']} · 1st" in places and f"{ann['handle']} (you) · 2nd" in places
        check_page(page, f"tournament-standings-{size}")

        # The list shows it running
        page.goto(f"{live.url}/tournaments")
        page.locator(f"section[data-list='running'] li[data-tournament='{tid}']").wait_for()
        check_page(page, f"tournament-list-{size}")
        assert errors == []
    finally:
        context.close()


def test_a_tournament_that_does_not_exist_is_the_not_found_page(live):
    got = requests.get(f"{live.url}/tournaments/0000000000000000", timeout=30)
    assert got.status_code == 404
    assert "text/html" in got.headers["Content-Type"]
