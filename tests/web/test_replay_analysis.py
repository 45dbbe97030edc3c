"""The computer analysis on the replay page (web/static/replay-analysis.js): the win-chance graph
per seat with marks on the judged moves, "best was ..." in the game's words at the event of an
analysed move, accuracy and luck per seat; a link from the account's page to a mistake's event; a
running game's replay asks for no analysis. Screenshots at 1280x800 and 390x844."""

from __future__ import annotations

import json
import random
import secrets

import pytest
import requests

from bots.search import Budget
from games import get_game
from replays import analysis
from service.analysis import revision
from store import parts
from tests.analysis.test_analysis_api import _play
from tests.web.conftest import SIZES, screenshot

PASSWORD = "correct horse battery"
# A tiny search budget: a whole game analysed in a moment, with judgements noisy enough to mark some.
TINY = Budget(iterations=8, rollout_moves=8)


def _session(live) -> dict:
    handle = f"ann{secrets.token_hex(3)}"
    assert requests.post(
        f"{live.url}/v1/accounts", json={"handle": handle, "password": PASSWORD}, timeout=30
    ).ok
    made = requests.post(f"{live.url}/v1/sessions", json={"handle": handle, "password": PASSWORD}, timeout=30)
    assert made.status_code == 201, made.text
    return made.json()


def _analysed_game(live, session: dict) -> tuple[str, dict]:
    """A 2-player Condottiere game (seat 0 the account's) played at random to its end and analysed
    by the real analysis at a tiny budget, with a mistake or a blunder of seat 0 among its judgements."""
    svc = live.app.extensions["game_service"]
    for attempt in range(6):
        game_id = svc.create_game("condottiere", {"players": 2})["id"]
        first = requests.post(
            f"{live.url}/v1/games/{game_id}/seats",
            json={"seat": 0},
            headers={"Authorization": f"Bearer {session['token']}"},
            timeout=30,
        )
        assert first.ok, first.text
        tokens = [first.json()["token"], svc.claim_seat(game_id, name="Bob", seat=1).token]
        _play(svc, game_id, tokens, random.Random(attempt))
        log = parts.load_log(svc.store, game_id)
        game = get_game("condottiere")
        rows = analysis.analyse(game, log.events, TINY, seed="page")
        document = analysis.document(game, log.events, rows, 2)
        if any(d["judgement"] in ("mistake", "blunder") and d["seat"] == 0 for d in document["decisions"]):
            parts.analyses(svc.store).put(game_id, revision("condottiere"), analysis.encode(rows, 2))
            return game_id, document
    pytest.fail("no random game with a mistake in six")


def _page(browser, live, session: dict | None, size: str):
    context = browser.new_context(viewport=SIZES[size])
    context.set_default_timeout(30_000)
    if session is not None:
        stored = json.dumps(
            {"handle": session["handle"], "token": session["token"], "expires": session.get("expires")}
        )
        context.add_init_script(f"localStorage.setItem('account', {json.dumps(stored)})")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return context, page, errors


@pytest.mark.timeout(600)
def test_the_replay_shows_the_win_chance_graph_and_marks_a_mistake_at_both_sizes(live, browser):
    session = _session(live)
    game_id, document = _analysed_game(live, session)
    judged = [d for d in document["decisions"] if d["judgement"]]
    # Of seat 0's mistakes, the one with a judged move nearest after it: the later mark is drawn over
    # it when they are close (a phone's graph is 360 units wide), the case a click must still reach.
    mistakes = [d for d in judged if d["judgement"] in ("mistake", "blunder") and d["seat"] == 0]

    def gap_to_next(d: dict) -> float:
        return min((o["version"] - d["version"] for o in judged if o["version"] > d["version"]), default=9e9)

    mistake = min(mistakes, key=gap_to_next)
    event = mistake["version"] + 1
    for size in ("desktop", "phone"):
        context, page, errors = _page(browser, live, None, size)
        page.goto(f"{live.url}/replay/{game_id}")
        page.wait_for_selector('section.analysis[data-state="shown"]')
        assert page.locator("svg.win-chances polyline.chance").count() == 2  # one line per seat
        marks = page.locator("svg.win-chances circle.mark")
        assert marks.count() == len(judged)
        assert page.locator(f'svg.win-chances circle.mark[data-event="{event}"]').count() == 1
        assert page.locator("table.analysis-seats tbody tr").count() == 2
        # The move list marks the move too.
        assert page.locator(f'ol.move-list-replay button[data-version="{event}"] .judgement').count() == 1
        # A mark goes to its event and says what was best, in the game's words. The pointer goes
        # where the mark is drawn, as a person's would: a mark of a move a few events later may be
        # drawn over part of it, and the click still reaches the nearest mark.
        target = page.locator(f'svg.win-chances circle.mark[data-event="{event}"]')
        target.scroll_into_view_if_needed()
        box = target.bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_selector(f'#app[data-version="{event}"]')
        note = page.locator(".analysis-note").inner_text()
        assert mistake["judgement"].capitalize() in note and f"Best was {mistake['best_text']}" in note, note
        assert "{" not in note and '"type"' not in note  # words, not a raw command
        page.locator("section.analysis").scroll_into_view_if_needed()
        screenshot(page, f"replay-analysis-{size}")
        assert errors == [], errors
        context.close()

    # The account's page lists its biggest mistakes (a few, the biggest loss first), so seat 0's
    # biggest is there whichever was clicked above; its link opens the replay at that event.
    biggest = max(mistakes, key=lambda d: (d["loss"], -d["version"]))
    event = biggest["version"] + 1
    context, page, errors = _page(browser, live, session, "phone")
    page.goto(f"{live.url}/my-games")
    link = page.locator(f'ol.mistakes li[data-game="{game_id}"][data-event="{event}"] a')
    link.wait_for()
    screenshot(page, "my-games-mistakes-phone")
    link.click()
    page.wait_for_selector(f'#app[data-version="{event}"]')
    page.wait_for_selector('section.analysis[data-state="shown"]')
    assert f"Best was {biggest['best_text']}" in page.locator(".analysis-note").inner_text()
    assert errors == [], errors
    context.close()


def test_a_running_games_replay_asks_for_no_analysis(live, browser):
    """RL-10 (hidden hands): the analysis reads the real deals, so a running game has none, and its
    replay page does not even ask (nor offers to)."""
    svc = live.app.extensions["game_service"]
    game_id = svc.create_game("condottiere", {"players": 2})["id"]
    tokens = [svc.claim_seat(game_id, name=f"P{s}").token for s in range(2)]
    _play(svc, game_id, tokens, random.Random(1), moves=4)
    context, page, errors = _page(browser, live, _session(live), "desktop")
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "/analysis" in request.url else None)
    page.goto(f"{live.url}/replay/{game_id}")
    page.wait_for_selector('section.analysis[data-state="running-game"]')
    assert "once it is over" in page.locator("section.analysis").inner_text()
    assert page.get_by_role("button", name="Request analysis").count() == 0
    assert asked == [] and errors == [], (asked, errors)
    context.close()


@pytest.mark.timeout(600)
def test_a_signed_in_reader_requests_the_analysis_and_the_real_worker_makes_it(live, browser):
    """No analysis stored: a reader without an account is asked to sign in; a signed-in one gets
    the button, and the job, run by a real analysis worker process at a tiny budget, ends in the
    graph without a reload."""
    from tests.worker_processes import kill_worker, rq_worker

    svc = live.app.extensions["game_service"]
    game_id = svc.create_game("condottiere", {"players": 2})["id"]
    tokens = [svc.claim_seat(game_id, name=f"P{s}").token for s in range(2)]
    _play(svc, game_id, tokens, random.Random(9))

    context, page, errors = _page(browser, live, None, "phone")
    page.goto(f"{live.url}/replay/{game_id}")
    page.wait_for_selector('section.analysis[data-state="none"]')
    assert "Sign in" in page.locator("section.analysis").inner_text()
    assert page.get_by_role("button", name="Request analysis").count() == 0
    context.close()

    worker = rq_worker(
        live.redis_url, "rq.Worker", "analysis", env={"ANALYSIS_ITERATIONS": "3", "ANALYSIS_ROLLOUT": "3"}
    )
    try:
        context, page, errors = _page(browser, live, _session(live), "desktop")
        page.goto(f"{live.url}/replay/{game_id}")
        page.get_by_role("button", name="Request analysis").click()
        page.wait_for_selector('section.analysis[data-state="shown"]', timeout=240_000)
        assert page.locator("svg.win-chances polyline.chance").count() == 2
        assert page.locator("table.analysis-seats tbody tr").count() == 2
        assert errors == [], errors
        context.close()
    finally:
        kill_worker(worker)
    assert requests.get(f"{live.url}/v1/games/{game_id}/analysis", timeout=30).status_code == 200
