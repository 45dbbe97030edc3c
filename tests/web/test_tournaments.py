"""Tournaments in the browser: an organiser creates a Swiss from the form, enters it with the Join
button, two more accounts enter (through the API) and the organiser adds a server bot from the
page; the organiser starts it, and the page shows round 1's table in seat order, the "your table"
link to the game and the standings. The round is played through (the accounts by random legal moves
over the API, the bot by the worker): the standings move and round 2 is paired. At 1280x800 and
390x844: axe-core, no sideways scroll, screenshots (var/screenshots/tournament-*)."""

from __future__ import annotations

import random
import re
import time

import pytest
import requests

from tests.web.conftest import new_account, screenshot, signed_in
from tests.web.test_table import check_page


def _tournament(live, tid: str) -> dict:
    got = requests.get(f"{live.url}/v1/tournaments/{tid}", timeout=30)
    assert got.status_code == 200, got.text
    return got.json()


def _play_round(live, tid: str, tokens: dict[str, str], rng: random.Random) -> None:
    """Every table of the current round played to its end: the accounts' seats by random legal
    moves through the API with their own session tokens, the server bot's by the live worker."""
    view = _tournament(live, tid)
    for table in view["rounds"][view["round"] - 1]["tables"]:
        game_id = table["game"]
        deadline = time.monotonic() + 600
        while True:
            summary = requests.get(f"{live.url}/v1/games/{game_id}", timeout=30).json()
            if summary["status"] == "finished":
                break
            assert time.monotonic() < deadline, f"game {game_id} did not end"
            seats = {s["seat"]: s for s in summary["seats"]}
            ours = [s for s in summary["awaiting"] if seats[s].get("name") in tokens]
            if not ours:  # the bot's turn: the worker plays it
                time.sleep(0.1)
                continue
            auth = {"Authorization": f"Bearer {tokens[seats[ours[0]]['name']]}"}
            got = requests.get(f"{live.url}/v1/games/{game_id}/view", headers=auth, timeout=30).json()
            moves = got["view"]["legal_moves"]
            if not moves:
                continue
            moved = requests.post(
                f"{live.url}/v1/games/{game_id}/moves",
                json={"command": rng.choice(moves)},
                headers=auth,
                timeout=30,
            )
            assert moved.status_code in (200, 409), moved.text


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_create_join_start_play_a_round_and_see_the_standings(live, browser, size):
    ann, bob, cid = new_account(live, "ann"), new_account(live, "bob"), new_account(live, "cid")
    context, page, errors = signed_in(browser, live, ann, size)
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
        page.get_by_label("Players per table").fill("4")
        page.get_by_label("Rounds (Swiss)").fill("2")
        page.get_by_label("Who may enter").select_option("anyone")
        assert page.get_by_label("Bot accounts may enter").is_checked()
        check_page(page, f"tournament-create-{size}")
        page.get_by_role("button", name="Create tournament").click()
        page.wait_for_url(re.compile(r".*/tournaments/[0-9a-f]{16}$"))
        tid = page.url.rsplit("/", 1)[1]
        assert page.locator("h1").inner_text() == f"Friday Swiss {size}"

        # Ann enters with the button, Bob and Cid through the API, a server bot from the page
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
        page.get_by_label("Server bot").select_option("random")
        page.get_by_role("button", name="Add bot").click()
        page.locator(".entrants li", has_text="random bot").wait_for()
        assert page.locator(".entrants li").count() == 4
        assert page.get_by_role("button", name="Withdraw").count() == 1
        check_page(page, f"tournament-open-{size}")

        # The organiser starts it: round 1's table of 4, in seat order, and "your table"
        page.get_by_role("button", name="Start").click()
        page.locator("section.round[data-round='1']").wait_for()
        view = _tournament(live, tid)
        table = view["rounds"][0]["tables"][0]
        names = {e["account"]: e["name"] for e in view["entrants"]}
        shown = page.locator("section.round[data-round='1'] ol.seats li").all_inner_texts()
        assert [s.replace(" (you)", "") for s in shown] == [names[p] for p in table["players"]]
        assert page.get_by_role("button", name="Start").count() == 0
        box = page.locator(".your-table-box")
        assert "Round 1, table 1" in box.inner_text()
        link = box.get_by_role("link", name="Your table: play")
        link.wait_for()  # the table's game exists once the round has started
        assert (
            link.get_attribute("href") == f"/play/{_tournament(live, tid)['rounds'][0]['tables'][0]['game']}"
        )
        rows = page.locator("table.standings tbody tr")
        assert rows.count() == 4 and page.locator("table.standings tr.me").count() == 1
        check_page(page, f"tournament-round-1-{size}")

        # The link leads to Ann's seat at the table
        link.click()
        page.wait_for_url("**/play/*")
        page.locator(".status").first.wait_for()
        screenshot(page, f"tournament-your-table-{size}")
        page.go_back()
        page.locator("section.round[data-round='1']").wait_for()

        # The round is played through; its results move the standings and round 2 is paired
        tokens = {u["handle"]: u["token"] for u in (ann, bob, cid)}
        _play_round(live, tid, tokens, random.Random(size))
        page.reload()
        page.locator("section.round[data-round='2']").wait_for()
        view = _tournament(live, tid)
        assert sum(s["score"] for s in view["standings"]) == pytest.approx(13)
        shown_points = [
            float(x) for x in page.locator("table.standings tbody tr td.num:nth-of-type(2)").all_inner_texts()
        ]
        assert shown_points == [pytest.approx(s["score"], abs=0.01) for s in view["standings"]]
        assert shown_points[0] > 0 and shown_points == sorted(shown_points, reverse=True)
        places = page.locator("section.round[data-round='1'] ol.seats li").all_inner_texts()
        assert all(re.search(r" · [1-4](st|nd|rd|th)=?$", p) for p in places), places
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
