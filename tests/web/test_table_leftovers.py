"""Smaller things a first-time player meets at the tables, each with a test of its own: Rio's
collections made in one click (RIO-ACT-2), a trade offer's draft shown where it is decided
(RIO-TRADE-1), the keyboard's focus on load (never on a move: Enter must not pass), Rio's city
zoomed to 40 px cells on a phone, and the way back from /docs."""

from __future__ import annotations

import re
import time

import requests

from tests.web.conftest import SCREENSHOTS, open_play_page, screenshot

SETTLED = "() => !document.querySelector('.controls button:disabled')"
YOUR_TURN = "() => document.querySelector('.your-turn')"


def _shots(page, name: str) -> None:
    screenshot(page, name)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-screen.png"))


def _rio(live, seed: int) -> tuple[str, dict]:
    created = requests.post(
        f"{live.url}/v1/games",
        json={
            "game": "rio_de_la_plata",
            "config": {"players": 3, "seed": seed},
            "bots": {"1": "random", "2": "random"},
        },
        timeout=10,
    ).json()
    claim = requests.post(
        f"{live.url}/v1/games/{created['id']}/seats", json={"name": "Ann"}, timeout=10
    ).json()
    return created["id"], claim


def _view(live, game_id: str, claim: dict) -> tuple[dict, int]:
    answer = requests.get(
        f"{live.url}/v1/games/{game_id}/view",
        headers={"Authorization": f"Bearer {claim['token']}"},
        timeout=10,
    ).json()
    return answer["view"], answer["version"]


def _send(live, game_id: str, claim: dict, move: dict, version: int) -> None:
    sent = requests.post(
        f"{live.url}/v1/games/{game_id}/moves",
        json={"command": move, "expected_version": version},
        headers={"Authorization": f"Bearer {claim['token']}"},
        timeout=10,
    )
    assert sent.status_code == 200, sent.text


def _awaited(live, game_id: str, claim: dict, step: str, bound: float = 120) -> tuple[dict, int]:
    """The seat's view once it is awaited in ``step`` (the bots play meanwhile), polled with a bound."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        view, version = _view(live, game_id, claim)
        if view["step"] == step and view["awaiting"][:1] == [claim["seat"]] and not view["due"]:
            return view, version
        time.sleep(0.05)
    raise AssertionError(f"the seat was not awaited in step {step} within {bound} s")


def test_rio_act_2_collections_are_made_in_one_click(live, context_for):
    """RIO-ACT-2, RIO-RES-2, RIO-FIELD-1: people on the mine, the forest and the fields are collected
    from in any order; the table offers one control, "Collect from the mine, the forest, the field",
    and one click makes every collection (no collect move is left; the stone and wood arrived)."""
    game_id, claim = _rio(live, 21)
    view, version = _awaited(live, game_id, claim, "A")
    for space in ("mine", "forest", "field"):
        move = {"type": "place", "space": space}
        if move in view["legal_moves"]:
            _send(live, game_id, claim, move, version)
            view, version = _view(live, game_id, claim)
    _send(live, game_id, claim, {"type": "end_turn"}, version)
    view, _ = _awaited(live, game_id, claim, "B")
    collects = [m for m in view["legal_moves"] if m["type"] == "collect"]
    assert len(collects) >= 2, view["legal_moves"]
    before = view["p"][claim["seat"]]
    page, errors = open_play_page(context_for("desktop"), live.url, game_id, claim)
    page.wait_for_function(YOUR_TURN)
    page.wait_for_function(SETTLED)
    button = page.get_by_role("button", name=re.compile(r"^Collect from the "))
    assert button.count() == 1
    assert all(m["space"] in button.inner_text() for m in collects), button.inner_text()
    button.click()
    page.wait_for_function(SETTLED)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        after, _ = _view(live, game_id, claim)
        if not any(m["type"] == "collect" for m in after.get("legal_moves") or []):
            break
        time.sleep(0.05)
    mine = after["p"][claim["seat"]]
    spaces = {m["space"] for m in collects}
    assert mine["stone"] > before["stone"] or "mine" not in spaces
    assert mine["wood"] > before["wood"] or "forest" not in spaces
    # The page hears of the last collection through its stream, which may come after the view read.
    page.get_by_role("button", name=re.compile(r"^Collect from")).wait_for(state="detached", timeout=30_000)
    assert not errors, errors


def test_rio_trade_1_a_draft_offer_is_shown_where_it_is_decided(live, context_for):
    """RIO-TRADE-1, RIO-RL-27: while Ann writes a trade offer, its terms so far are beside her moves
    ("Your trade offer to ... (draft, not sent yet): you give 1 ... for nothing"), not only in the
    log."""
    game_id, claim = _rio(live, 11)
    page, errors = open_play_page(context_for("phone"), live.url, game_id, claim)
    page.wait_for_function(YOUR_TURN, timeout=60_000)
    page.wait_for_function(SETTLED)
    page.get_by_role("button", name="Write a trade offer…").click()
    page.locator(".moves fieldset button:not(.secondary)").first.click()
    page.wait_for_function(SETTLED)
    page.get_by_role("button", name="Add an item to your offer…").click()
    page.locator(".moves fieldset button:not(.secondary)").first.click()
    line = page.locator(".decision-info .rio-offer")
    line.wait_for()
    page.wait_for_function("() => /you give 1 /.test(document.querySelector('.rio-offer').textContent)")
    offer = _view(live, game_id, claim)[0]["offer"]
    assert offer and offer["from"] == claim["seat"] and not offer["sent"]
    text = line.inner_text()
    assert re.fullmatch(
        r"Your trade offer to .+ \(draft, not sent yet\): you give 1 .+ for nothing\.", text
    ), text
    page.evaluate("window.scrollTo(0, 0)")
    _shots(page, "rio-offer-draft-phone")
    assert not errors, errors


def test_the_focus_on_load_is_on_the_moves_never_on_pass(live, context_for):
    """BAT-3: on a table's first load at the seat's turn the keyboard is in the moves' box, not on
    a move (Condottiere's first button is Pass, and Enter would pass); Tab reaches the first move."""
    created = requests.post(
        f"{live.url}/v1/games",
        json={
            "game": "condottiere",
            "config": {"players": 3, "seed": 2},
            "bots": {"1": "random", "2": "random"},
        },
        timeout=10,
    ).json()
    game_id = created["id"]
    claim = requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": "Ann"}, timeout=10).json()
    for size in ("desktop", "phone"):
        page, errors = open_play_page(context_for(size), live.url, game_id, claim)
        page.wait_for_function(YOUR_TURN, timeout=60_000)
        page.wait_for_function(SETTLED)
        focused = page.evaluate(
            "() => ({ tag: document.activeElement.tagName, cls: document.activeElement.className,"
            " text: document.activeElement.textContent.slice(0, 40) })"
        )
        assert focused["tag"] != "BUTTON" and "moves" in focused["cls"], focused
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.tagName") == "BUTTON"
        assert not errors, errors


def test_rio_city_3_the_city_zooms_to_40_px_cells_on_a_phone(live, context_for):
    """RIO-CITY-3: at 390x844 "Zoom in on the city" draws every cell that can be clicked at 40 px or
    more (the city scrolls in its own box, not the page), and a click on one places the person."""
    game_id, claim = _rio(live, 11)
    page, errors = open_play_page(context_for("phone"), live.url, game_id, claim)
    page.wait_for_function(YOUR_TURN, timeout=60_000)
    page.wait_for_function(SETTLED)
    small = page.locator("svg.rio-city rect.rio-target").first.bounding_box()
    assert small and small["width"] < 40, "the whole city's cells are small on a phone"
    page.get_by_role("button", name="Zoom in on the city").click()
    sizes = page.eval_on_selector_all(
        "svg.rio-city rect.rio-target",
        "els => els.map((e) => { const b = e.getBoundingClientRect(); return [b.width, b.height]; })",
    )
    assert sizes and min(min(s) for s in sizes) >= 40, sizes
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
    target = page.locator("svg.rio-city rect.rio-target").first
    key = target.get_attribute("data-target")
    target.scroll_into_view_if_needed()
    page.locator(".board").scroll_into_view_if_needed()
    _shots(page, "rio-city-zoomed-phone")
    target.click()
    page.wait_for_selector(f"svg.rio-city circle.rio-person[data-cell='{key}'][data-seat='{claim['seat']}']")
    assert page.get_by_role("button", name="Show the whole city").count() == 1  # the zoom stays
    assert not errors, errors


def test_docs_has_a_way_back_to_the_lobby(live, context_for):
    """/docs (the API's reference, reached from every page's menu) links back to the lobby and the
    archive; the link takes a player back."""
    page = context_for("desktop").new_page()
    page.goto(live.url + "/docs")
    back = page.get_by_role("link", name="Back to the lobby")
    back.wait_for(timeout=30_000)
    assert page.get_by_role("link", name="The game archive").count() == 1
    back.click()
    page.wait_for_url(live.url + "/")
    page.wait_for_selector("#new-game")


def test_end_1_the_archive_filters_by_outcomes_in_words(live, context_for):
    """VIC-1, RIO-END-7: the archive's outcome filter is a list of words the games give
    (games.base.OutcomeHooks: "won with adjacent regions", "most VP after the last year"), never
    codes such as most_regions; choosing one puts its code in the page's address."""
    for size in ("desktop", "phone"):
        page = context_for(size).new_page()
        page.goto(live.url + "/archive")
        select = page.locator("select#filter-outcome")
        select.wait_for()
        labels = select.locator("option").all_inner_texts()
        assert "won with adjacent regions" in labels and "most VP after the last year" in labels, labels
        assert not [label for label in labels if "_" in label], labels
        assert "most_regions" not in page.locator("#app").inner_text()
        select.select_option(label="won with adjacent regions")
        page.get_by_role("button", name="Search").click()
        page.wait_for_url("**/archive?*outcome=adjacent*")
        screenshot(page, f"archive-outcome-filter-{size}")


# The widest option of a select, drawn in the select's font, fits inside it (its arrow and padding
# taken as 40 px): a select cuts off its chosen text without a word.
SELECT_FITS = """(select) => {
  const probe = document.createElement("span");
  probe.style.cssText = "position:absolute;visibility:hidden;white-space:nowrap";
  probe.style.font = getComputedStyle(select).font;
  document.body.append(probe);
  const width = (o) => { probe.textContent = o.text; return probe.offsetWidth; };
  const widest = Math.max(...[...select.options].map(width));
  probe.remove();
  return [widest + 40, select.clientWidth];
}"""


def test_the_archive_filters_by_rulesets_and_options_in_the_games_words(live, context_for):
    """The archive's Ruleset and Options filters offer the games' own words (the create form's
    labels: "2006 edition", "Bigger kingdoms"), never codes such as bigger_kingdoms, and send the
    codes: the page's address and the API's filters keep them. "How it ended" shows its words
    whole at 1280 px."""
    for size in ("desktop", "phone"):
        page = context_for(size).new_page()
        page.goto(live.url + "/archive")
        ruleset = page.locator("select#filter-ruleset")
        ruleset.wait_for()
        labels = ruleset.locator("option").all_inner_texts()
        assert "2006 edition" in labels and "Classic" in labels, labels
        options = page.locator("#filter-option label").all_inner_texts()
        assert "Bigger kingdoms" in [o.strip() for o in options], options
        assert not [text for text in labels + options if "_" in text], (labels, options)
        if size == "desktop":
            widest, width = page.locator("select#filter-outcome").evaluate(SELECT_FITS)
            assert widest <= width, f"'How it ended' cuts off its words: {widest} px in {width} px"
        ruleset.select_option(label="Classic")
        page.get_by_label("Bigger kingdoms").check()
        page.get_by_label("Capturing").check()
        page.get_by_role("button", name="Search").click()
        page.wait_for_url("**/archive?*ruleset=classic*")
        assert "option=capturing" in page.url and "option=bigger_kingdoms" in page.url, page.url
        page.reload()
        page.locator("select#filter-ruleset").wait_for()
        assert page.get_by_label("Bigger kingdoms").is_checked(), "the address's options are checked again"
        screenshot(page, f"archive-ruleset-option-filters-{size}")
