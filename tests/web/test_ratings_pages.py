"""Ratings in the browser (issue 32, item 6): the leaderboard page, a player's rating history with
head-to-head, the rating on a player's statistics, each seat's rating and chance to win at the
table, and in the lobby the chances of a game about to start if the signed-in person joins. At
1280x800 and 390x844: axe-core, no sideways scroll, screenshots (tests/web/test_table.check_page).

The rated archive is made as the archive step makes it: finished Condottiere games of three
accounts and the random bot (played out at random, stored as the service stores them), entered
through ``service.aggregates.enter_archive``, which rates them."""

from __future__ import annotations

import json
import random
import re

import pytest
import requests

from service.accounts import fold_handle
from service.aggregates import enter_archive
from service.ids import new_game_id
from store.accounts import AccountStore
from store.archive import Archive
from store.game_logs import load_log
from store.keys import game_keys
from tests.archive.test_ratings import store_finished
from tests.web.conftest import open_play_page
from tests.web.test_table import check_page, new_page

PASSWORD = "correct horse battery"
HANDLES = ["Ann", "Bob", "Cid"]
RATED_GAMES = 14


def _session(live, handle: str) -> dict:
    made = requests.post(f"{live.url}/v1/sessions", json={"handle": handle, "password": PASSWORD}, timeout=30)
    assert made.status_code == 201, made.text
    return made.json()


@pytest.fixture(scope="module")
def rated(live, redis_server):
    """Three accounts and RATED_GAMES rated 3-seat games (Ann in each) entered into the archive."""
    client = redis_server.client()
    ids = {}
    for handle in HANDLES:
        made = requests.post(
            f"{live.url}/v1/accounts", json={"handle": handle, "password": PASSWORD}, timeout=60
        )
        assert made.status_code == 201, made.text
        ids[handle] = AccountStore(client).account_for_handle(fold_handle(handle))
    rng = random.Random(32)
    archive = Archive(client)
    games = []
    for i in range(RATED_GAMES):
        others = rng.sample(["Bob", "Cid", "bot"], 2)
        seats = [("account", ids["Ann"])] + [
            ("bot", "random") if o == "bot" else ("account", ids[o]) for o in others
        ]
        rng.shuffle(seats)
        game_id = new_game_id()
        store_finished(client, game_id, seats, 3200 + i, f"2026-11-{1 + i:02d}T12:00:00Z")
        names = {who: handle for handle, who in ids.items()}
        client.hset(
            game_keys(game_id).meta,
            mapping={f"name:{s}": names.get(who, "random bot") for s, (_, who) in enumerate(seats)},
        )
        added, _ = enter_archive(archive, load_log(client, game_id))
        assert added
        games.append(game_id)
    client.close()
    return {"ids": ids, "games": games}


def _api(live, path: str) -> dict:
    answer = requests.get(live.url + path, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_leaderboard_a_player_s_history_and_statistics_show_the_ratings(live, browser, rated, size):
    board = _api(live, "/v1/ratings/condottiere")
    context, page, errors = new_page(browser, size)
    try:
        page.goto(f"{live.url}/ratings?game=condottiere")
        page.wait_for_selector("table.leaderboard tbody tr")
        nav = page.locator("header nav a", has_text="Ratings")
        assert nav.get_attribute("aria-current") == "page" and nav.get_attribute("href") == "/ratings"
        rows = page.locator("table.leaderboard tbody tr")
        assert rows.count() == len(board["leaders"]) == 4  # three accounts and the random bot
        for i, leader in enumerate(board["leaders"]):
            cells = rows.nth(i).locator("td, th").all_inner_texts()
            shown = f"{leader['ordinal']:.1f}" + ("?" if leader["provisional"] else "")
            name = "random bot" if leader["player"] == "bot:random" else leader["player"]
            assert [cells[0], cells[1], cells[3]] == [str(i + 1), name, str(leader["games"])], cells
            # the figure as seen, and "provisional" in words for a screen reader
            assert cells[2].split("\n")[0] == shown and ("provisional" in cells[2]) == leader["provisional"]
        assert any(row["provisional"] for row in board["leaders"])  # Bob and Cid: under 10 games
        assert "provisional" in page.locator("#app").inner_text()
        check_page(page, f"ratings-leaderboard-{size}")

        # Ann's page, from her row: each game's rating before and after, and against whom.
        page.locator("table.leaderboard a", has_text="Ann").click()
        page.wait_for_url("**/ratings/players/Ann?game=condottiere")
        page.wait_for_selector("li.rating-entry")
        history = _api(live, "/v1/ratings/condottiere/players/Ann?limit=50")
        entries = page.locator("li.rating-entry")
        assert entries.count() == len(history["history"]) == RATED_GAMES
        newest = history["history"][0]
        first = entries.nth(0)
        assert first.get_attribute("data-game") == newest["game_id"]
        text = first.inner_text()
        assert f"{newest['before']['ordinal']:.1f}" in text and f"{newest['after']['ordinal']:.1f}" in text
        for other in newest["against"]:
            name = "random bot" if other["player"] == "bot:random" else other["player"]
            assert f"{name} {other['ordinal']:.1f}" in text
        assert page.locator(".rating-now").inner_text().startswith(f"{history['rating']['ordinal']:.1f}")
        assert page.locator("svg.trend polyline").count() == 1

        # Head to head with Bob, as GET /v1/h2h says.
        (together,) = _api(live, "/v1/h2h/Ann/Bob")["games"]
        page.get_by_label("Compare with").fill("Bob")
        page.get_by_role("button", name="Head to head").click()
        page.wait_for_selector(".h2h li")
        said = page.locator(".h2h li").inner_text()
        assert f"{together['games']} rated games together" in said
        assert f"Ann finished ahead {together['first_ahead']}, Bob {together['second_ahead']}" in said
        check_page(page, f"ratings-player-{size}")

        # Ann's statistics carry her rating and link to the history.
        page.goto(f"{live.url}/stats/players/Ann?game=condottiere")
        page.wait_for_selector("section.rating-summary")
        assert f"{history['rating']['ordinal']:.1f}" in page.locator("section.rating-summary").inner_text()
        check_page(page, f"stats-player-rating-{size}")
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_table_and_the_lobby_show_each_seat_s_rating_and_chance_to_win(live, browser, rated, size):
    ann, bob = _session(live, "Ann"), _session(live, "Bob")
    # At the table: Ann against the random bot, both rated, so the game predicts (seat 0 of seed 5
    # decides first: the game waits for Ann while the page is looked at).
    game_id = requests.post(
        f"{live.url}/v1/games",
        json={"game": "condottiere", "config": {"players": 2, "seed": 5}, "bots": {"1": "random"}},
        timeout=10,
    ).json()["id"]
    auth = {"Authorization": f"Bearer {ann['token']}"}
    claim = requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"seat": 0}, headers=auth, timeout=10)
    assert claim.status_code == 201, claim.text
    chances = _api(live, f"/v1/games/{game_id}")["predict_win"]
    ratings = _api(live, f"/v1/games/{game_id}/ratings")
    context, page, errors = new_page(browser, size)
    try:
        context.add_init_script(f"localStorage.setItem('account', {json.dumps(json.dumps(ann))})")
        play, play_errors = open_play_page(context, live.url, game_id, claim.json())
        play.wait_for_function("() => document.querySelectorAll('ul.players .seat-rating').length === 2")
        for seat in (0, 1):
            note = play.locator(f'ul.players li[data-seat="{seat}"] .seat-rating').inner_text()
            assert f"rating {ratings['seats'][seat]['rating']['ordinal']:.1f}" in note
            assert f"{round(chances[seat] * 100)}% to win" in note
        check_page(play, f"play-ratings-{size}")

        # A finished rated game's table: each seat's rating before and after it.
        done = rated["games"][-1]
        finished = _api(live, f"/v1/games/{done}/ratings")
        play.goto(f"{live.url}/watch/{done}")
        play.wait_for_function("() => document.querySelectorAll('ul.players .seat-rating').length === 3")
        for row in finished["seats"]:
            note = play.locator(f'ul.players li[data-seat="{row["seat"]}"] .seat-rating').inner_text()
            assert re.search(rf"{row['before']['ordinal']:.1f}\??\s→\s{row['after']['ordinal']:.1f}", note), (
                note
            )
            assert "to win" not in note
        check_page(play, f"watch-finished-ratings-{size}")
        assert not play_errors, play_errors

        # The lobby: Bob waits with the random bot for a third player; signed in as Ann, the row
        # gives the chances if she joins, as GET /v1/games/{id}/ratings?joining=Ann computes them.
        open_game = requests.post(
            f"{live.url}/v1/games",
            json={"game": "condottiere", "config": {"players": 3}, "bots": {"1": "random"}},
            timeout=10,
        ).json()["id"]
        bob_auth = {"Authorization": f"Bearer {bob['token']}"}
        assert requests.post(
            f"{live.url}/v1/games/{open_game}/seats", json={"seat": 0}, headers=bob_auth, timeout=10
        ).ok
        joining = _api(live, f"/v1/games/{open_game}/ratings?joining=Ann")
        assert joining["joining_seat"] == 2
        page.goto(f"{live.url}/")
        line = page.locator(f'li[data-game="{open_game}"] .rating-line[data-predict="true"]')
        line.wait_for()
        said = line.inner_text()
        bob_row = joining["seats"][0]
        assert f"Bob {bob_row['rating']['ordinal']:.1f}" in said
        # Provisional is said in words on the lobby's line, never as a bare "?".
        assert "?" not in said.split("If you join")[0], said
        provisional = any(s["rating"]["provisional"] for s in joining["seats"] if s["rating"])
        assert ("(provisional)" in said) == provisional, said
        expected = ", ".join(
            f"{['Bob', 'random bot', 'you'][s]} {round(p * 100)}%"
            for s, p in enumerate(joining["predict_win"])
        )
        assert f"If you join: {expected}" in said, said
        check_page(page, f"lobby-ratings-{size}")
        assert not errors, errors
    finally:
        context.close()


def _bobs_challenge_to_ann_cancelled(live, bob: dict) -> dict:
    """The one challenge from Bob that Ann's account sees, cancelled by Bob (the next test starts
    with none), as it was made."""
    ann = _session(live, "Ann")
    mine = requests.get(
        f"{live.url}/v1/challenges", headers={"Authorization": f"Bearer {ann['token']}"}, timeout=10
    ).json()
    (made,) = [c for c in mine["incoming"] if c["challenger"] == "Bob"]
    cancelled = requests.post(
        f"{live.url}/v1/challenges/{made['id']}/cancel",
        headers={"Authorization": f"Bearer {bob['token']}"},
        timeout=10,
    )
    assert cancelled.status_code == 200, cancelled.text
    return made


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_leaderboard_s_challenge_button_sends_a_challenge(live, browser, rated, size):
    """Signed in as Bob: a "Challenge" button beside every account on the leaderboard but his own
    (none beside the server bot, which takes no challenges); Ann's opens the dialog, and sending it
    leaves Ann a challenge from Bob."""
    bob = _session(live, "Bob")
    context, page, errors = new_page(browser, size)
    try:
        context.add_init_script(f"localStorage.setItem('account', {json.dumps(json.dumps(bob))})")
        page.goto(f"{live.url}/ratings?game=condottiere")
        page.wait_for_selector("table.leaderboard tbody tr .challenge-button")
        rows = page.locator("table.leaderboard tbody tr")
        with_button = {
            rows.nth(i).locator("a").first.inner_text(): rows.nth(i).locator(".challenge-button").count()
            for i in range(rows.count())
        }
        assert with_button == {"Ann": 1, "Bob": 0, "Cid": 1, "random bot": 0}, with_button
        check_page(page, f"ratings-leaderboard-challenge-{size}")
        page.locator("table.leaderboard tr", has_text="Ann").locator(".challenge-button").click()
        dialog = page.locator("dialog.meet-dialog")
        assert dialog.locator("h2").text_content() == "Challenge Ann"
        dialog.get_by_role("button", name="Send challenge").click()
        dialog.wait_for(state="detached")
        made = _bobs_challenge_to_ann_cancelled(live, bob)
        assert made["rated"] is True and made["seat_count"] == 2
        assert not errors, errors
    finally:
        context.close()


def test_a_challenge_sent_before_the_games_fields_have_loaded_waits_for_them(live, browser, rated):
    """The dialog's player count comes from the game's page module, loaded when the dialog opens; a
    "Send challenge" clicked before it has arrived (a slow network, a loaded machine) waits for it
    and makes the challenge, instead of sending the game without its player count (refused)."""
    bob = _session(live, "Bob")
    context, page, errors = new_page(browser, "desktop")
    held: list = []
    try:
        context.add_init_script(f"localStorage.setItem('account', {json.dumps(json.dumps(bob))})")
        page.route("**/web/games/condottiere/board.svg", lambda route: held.append(route))
        page.goto(f"{live.url}/ratings?game=condottiere")
        page.locator("table.leaderboard tr", has_text="Ann").locator(".challenge-button").click()
        dialog = page.locator("dialog.meet-dialog")
        dialog.get_by_role("button", name="Send challenge").click()
        for _ in range(200):  # the held request reaches the handler while the test talks to the page
            if held:
                break
            page.evaluate("() => 0")
        assert held, "the game's module was requested when the dialog opened"
        assert not dialog.locator(".inline-error:not([hidden])").count()
        for route in held:
            route.continue_()
        dialog.wait_for(state="detached")
        assert _bobs_challenge_to_ann_cancelled(live, bob)["seat_count"] == 2
        assert not errors, errors
    finally:
        context.close()
