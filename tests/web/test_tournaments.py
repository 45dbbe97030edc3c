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

from tests.web.conftest import SIZES, new_account, screenshot, signed_in
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
        page.get_by_label("Rounds", exact=True).fill("2")
        page.get_by_label("Who may enter").select_option("anyone")
        assert page.get_by_label("Bot accounts may enter").is_checked()
        assert not page.get_by_label("Rated: the tables").is_checked()  # as the API's default
        assert not page.get_by_label("Duplicate rounds").is_checked()
        check_page(page, f"tournament-create-{size}")
        page.get_by_role("button", name="Create tournament").click()
        page.wait_for_url(re.compile(r".*/tournaments/[0-9a-f]{16}$"))
        tid = page.url.rsplit("/", 1)[1]
        # the page names itself once its tournament is read (a bounded wait, not a first read)
        page.locator("h1", has_text=f"Friday Swiss {size}").wait_for()
        assert page.locator(".terms-line").inner_text() == "Unrated games."

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


def _local_in(page, seconds: float) -> str:
    """The browser's local date and time ``seconds`` from now, as a datetime-local field takes it."""
    return page.evaluate(
        """(seconds) => {
            const at = new Date(Date.now() + seconds * 1000);
            const pad = (n) => String(n).padStart(2, "0");
            const day = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
            return `${day}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
        }""",
        seconds,
    )


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_form_gives_a_clock_a_start_time_and_invitations_by_name(live, browser, size):
    """The create form sends the clock (as the lobby's form gives one), a start time (the workers
    start it then: the janitor's tick, run here) and an invitation list by account name; a name no
    account has is shown beside the list (422 UNKNOWN_ACCOUNT) and nothing is created."""
    from tests.janitors import janitor_for

    org, guest = new_account(live, "org"), new_account(live, "inv")
    context, page, errors = signed_in(browser, live, org, size)
    try:
        page.goto(f"{live.url}/tournaments/new")
        page.get_by_label("Title").fill(f"Timed {size}")
        page.get_by_label("Game", exact=True).select_option("condottiere")
        page.get_by_label("Players per table").fill("3")
        page.get_by_label("Rounds", exact=True).fill("1")
        page.get_by_label("Who may enter").select_option("list")
        page.get_by_label("Players invited").fill(f"{guest['handle']}, nobody{size}x")
        page.get_by_label("Seconds per decision").fill("120")
        page.get_by_label("Timeouts before a bot takes the seat").fill("2")
        page.get_by_label("Rated: the tables").check()
        page.get_by_label("Duplicate rounds").check()
        page.get_by_label("Format").select_option("elimination")
        assert not page.get_by_label("Late entry").is_visible()  # a Swiss's option only
        page.get_by_label("Format").select_option("swiss")
        page.get_by_label("Late entry").check()
        assert page.get_by_label("Start time").is_disabled()
        page.get_by_label("By itself at a time").check()
        assert page.get_by_label("Start time").input_value()  # a suggestion, in the future
        check_page(page, f"tournament-create-timed-{size}")
        before = len(requests.get(f"{live.url}/v1/tournaments", timeout=30).json()["tournaments"])
        page.get_by_label("Start time").fill(_local_in(page, 30))
        page.get_by_role("button", name="Create tournament").click()
        error = page.locator(".invited-field + .inline-error")
        error.wait_for()
        assert error.inner_text() == f"No account has that handle: nobody{size}x"
        assert page.url.endswith("/tournaments/new")
        assert len(requests.get(f"{live.url}/v1/tournaments", timeout=30).json()["tournaments"]) == before
        check_page(page, f"tournament-create-unknown-name-{size}")

        page.get_by_label("Players invited").fill(guest["handle"])
        page.get_by_label("Start time").fill(_local_in(page, 6))
        page.get_by_role("button", name="Create tournament").click()
        page.wait_for_url(re.compile(r".*/tournaments/[0-9a-f]{16}$"))
        tid = page.url.rsplit("/", 1)[1]
        view = _tournament(live, tid)
        settings = view["settings"]
        assert settings["clock"]["move_seconds"] == 120 and settings["clock"]["timeouts_to_bot"] == 2
        guest_id = requests.get(
            f"{live.url}/v1/me", headers={"Authorization": f"Bearer {guest['token']}"}, timeout=30
        ).json()["account"]
        assert settings["accounts"] == [guest_id] and settings["starts_at"].endswith("Z")
        assert settings["rated"] and settings["duplicate"] and settings["late_entry"]
        page.locator(".start-line", has_text="Starts by itself").wait_for()
        assert page.locator(".terms-line").inner_text() == (
            "Rated games; duplicate rounds: every table of a round is dealt the same cards;"
            " late entry between rounds."
        )
        assert page.locator(".clock-line").inner_text().startswith("Clock: 120 s a decision")
        # the organiser is not on the list: no Join button, a word why
        assert page.get_by_role("button", name="Join").count() == 0
        assert page.locator(".not-invited").count() == 1
        for path, body, token in [
            ("join", {}, guest["token"]),
            ("bots", {"level": "random"}, org["token"]),
            ("bots", {"level": "random"}, org["token"]),
        ]:
            answer = requests.post(
                f"{live.url}/v1/tournaments/{tid}/{path}",
                json=body,
                headers={"Authorization": f"Bearer {token}"},
                timeout=30,
            )
            assert answer.status_code == 200, answer.text
        page.reload()
        page.locator(".entrants li", has_text=guest["handle"]).wait_for()
        check_page(page, f"tournament-timed-open-{size}")

        # At the start time the janitor's tick starts it (bounded wait; ticks before it start nothing)
        janitor = janitor_for(live.app.extensions["game_service"])
        deadline = time.monotonic() + 60
        while _tournament(live, tid)["status"] != "running":
            assert time.monotonic() < deadline, "not started by its start time"
            janitor.tick()
            time.sleep(0.2)
        page.reload()
        page.locator("section.round[data-round='1']").wait_for()
        assert page.locator(".start-line").count() == 0
        assert page.locator("table.standings tbody tr").count() == 3
        check_page(page, f"tournament-timed-started-{size}")
        assert errors == []
    finally:
        context.close()


def test_an_elimination_page_ranks_by_the_round_reached(live, browser):
    """A finished elimination (nine server bots at tables of 3, the winner of each goes on): the
    standings show the round each reached ("Final", "Round 1") and the place at that table, the
    final's places first, in the API's order; at both sizes."""
    org = new_account(live, "elim")
    auth = {"Authorization": f"Bearer {org['token']}"}
    body = {
        "game": "condottiere",
        "table_size": 3,
        "format": "elimination",
        "advance": 1,
        "title": "Knockout",
    }
    made = requests.post(f"{live.url}/v1/tournaments", json=body, headers=auth, timeout=30)
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    for _ in range(9):
        added = requests.post(
            f"{live.url}/v1/tournaments/{tid}/bots", json={"level": "random"}, headers=auth, timeout=30
        )
        assert added.status_code == 200, added.text
    assert (
        requests.post(f"{live.url}/v1/tournaments/{tid}/start", headers=auth, timeout=30).status_code == 200
    )
    deadline = time.monotonic() + 600
    while _tournament(live, tid)["status"] != "finished":  # the worker plays the bots' turns
        assert time.monotonic() < deadline, "the elimination did not finish"
        time.sleep(0.5)
    view = _tournament(live, tid)
    for size in SIZES:
        context, page, errors = signed_in(browser, live, org, size)
        try:
            page.goto(f"{live.url}/tournaments/{tid}")
            rows = page.locator("table.standings.knockout tbody tr")
            rows.first.wait_for()
            cells = [row.locator("td").all_inner_texts() for row in rows.all()]
            assert [c[1] for c in cells[:3]] == ["Final"] * 3 and {c[1] for c in cells[3:]} == {"Round 1"}
            final = view["rounds"][-1]["tables"][0]["placing"]
            assert [s["account"] for s in view["standings"][: len(final[0])]] == sorted(
                final[0], key=[s["account"] for s in view["standings"]].index
            )
            assert cells[0][2] in ("1st", "1st=")
            names = [row.locator("th").inner_text() for row in rows.all()]
            entrants = {e["account"]: e["name"] for e in view["entrants"]}
            assert names == [entrants[s["account"]] for s in view["standings"]]
            check_page(page, f"tournament-elimination-{size}")
            assert errors == []
        finally:
            context.close()


def test_a_rio_tournament_page_does_not_call_seat_1_the_first_player(live, browser):
    """Rio de la Plata draws its turn order (RIO-SETUP-4), so the tournament does not fix its first
    seat (``first_seat_starts`` false) and the account at seat 1 of its table reads no "first
    player"; at a Condottiere table, whose game starts with seat 1 (SET-2), that account does."""
    for game, first in (("rio_de_la_plata", False), ("condottiere", True)):
        org, *others = [new_account(live, "seat") for _ in range(3)]
        made = requests.post(
            f"{live.url}/v1/tournaments",
            json={"game": game, "table_size": 3, "rounds": 1, "title": f"Seats {game}"},
            headers={"Authorization": f"Bearer {org['token']}"},
            timeout=30,
        )
        assert made.status_code == 201, made.text
        tid = made.json()["id"]
        for who in (org, *others):
            joined = requests.post(
                f"{live.url}/v1/tournaments/{tid}/join",
                json={},
                headers={"Authorization": f"Bearer {who['token']}"},
                timeout=30,
            )
            assert joined.status_code == 200, joined.text
        started = requests.post(
            f"{live.url}/v1/tournaments/{tid}/start",
            headers={"Authorization": f"Bearer {org['token']}"},
            timeout=30,
        )
        assert started.status_code == 200, started.text
        assert started.json()["first_seat_starts"] is first
        seat_0 = started.json()["rounds"][0]["tables"][0]["players"][0]
        names = {e["account"]: e["name"] for e in started.json()["entrants"]}
        (at_seat_0,) = [u for u in (org, *others) if u["handle"] == names[seat_0]]
        context, page, errors = signed_in(browser, live, at_seat_0, "desktop")
        try:
            page.goto(f"{live.url}/tournaments/{tid}")
            box = page.locator(".your-table-box")
            box.get_by_role("link", name="Your table: play").wait_for()
            text = box.inner_text()
            assert "Round 1, table 1, seat 1" in text
            assert ("first player" in text) is first, text
            assert ("first player" in page.locator("#app").inner_text()) is first
            assert errors == []
        finally:
            context.close()
