"""Phone first: at 390x844, for every decision type met in a game of each, the prompt, what the
decision is made on (the map's regions, the hand and the battle lines, Rio's city cells) and what it
depends on (Rio's own stock) fit one screen: from the prompt's top to the last of them is at most
the viewport's height, and a screenshot of that screen is written for a person to look at (and one
of the same decision at 1280x800, `desktop-decision-*`).
Decision types: Condottiere place_token (BAT-1), battle (BAT-3), hand_discard (END-7, RL-12),
keep_cards (RND-2); Rio phase A placements (RIO-PLACE-1) and phase B actions (RIO-ACT-2), with the
question a cell asks. Rule IDs: shared/rules/condottiere.md, shared/rules/rio-de-la-plata.md."""

from __future__ import annotations

import re

import pytest
import requests

from tests.web.conftest import SIZES, open_play_page, screenshot
from tests.web.test_table import YOUR_TURN_SETTLED, cd_click, rio_click

HEIGHT = SIZES["phone"]["height"]

# The boxes of `selectors` (every match), in page coordinates.
BOXES = """(selectors) => selectors.flatMap((sel) => [...document.querySelectorAll(sel)])
  .filter((el) => el.getClientRects().length)
  .map((el) => el.getBoundingClientRect())
  .map((r) => [r.top + scrollY, r.bottom + scrollY, r.left, r.right])"""


# The things the prompt asks to click, in page coordinates: the board's highlighted things and the
# moves' buttons, but not the moves open whatever the decision (purchases, a trade offer, the end
# of the turn, an undo), unless nothing else is offered.
TO_CLICK = r"""() => {
  // (a folded list's buttons have boxes in Chromium, but nobody sees them)
  const shown = (el) => el.getClientRects().length && !el.closest("details:not([open])");
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.top + scrollY, r.bottom + scrollY]; };
  const free = /^(Buy 1 |Write a trade offer|End your turn|Undo)/;
  const buttons = [...document.querySelectorAll(".moves button")].filter(shown);
  const highlighted = ".pickable, svg .rio-target, svg .rio-target-edge";
  const board = [...document.querySelectorAll(highlighted)].filter(shown);
  const decision = [...board, ...buttons.filter((b) => !free.test(b.textContent.trim()))];
  return (decision.length ? decision : buttons).map((el) => [...box(el), el.outerHTML.slice(0, 80)]);
}"""


def assert_one_screen(page, name: str, prompt: str, needed: list[str]) -> None:
    """The prompt and every element of `needed` lie within one screen's height, side by side in
    the page's width, and so does at least one of the things the prompt asks to click; the page is
    scrolled to that screen and photographed."""
    boxes = page.evaluate(BOXES, [prompt, *needed])
    assert len(boxes) > 1, f"{name}: nothing to decide on was found ({needed})"
    top = min(b[0] for b in boxes)
    bottom = max(b[1] for b in boxes)
    if bottom - top > HEIGHT:
        screenshot(page, f"failure-{name}")  # the whole page, to see what spreads the decision
    assert bottom - top <= HEIGHT, f"{name}: the decision spans {bottom - top:.0f} px of a {HEIGHT} px screen"
    things = page.evaluate(TO_CLICK)
    assert things, f"{name}: nothing to click"
    assert any(b[0] >= top - 1 and b[1] <= top + HEIGHT + 1 for b in things), (
        f"{name}: nothing to click within the screen that starts at the prompt ({top:.0f} px): {things[:5]}"
    )
    assert all(b[2] >= -1 and b[3] <= SIZES["phone"]["width"] + 1 for b in boxes), f"{name}: cut at the side"
    page.evaluate(f"window.scrollTo(0, {max(0, top - 8)})")
    path = screenshot_viewport(page, name)
    assert path.exists()
    photograph_at_desktop_size(page, name.replace("phone-", "desktop-", 1), prompt)


def photograph_at_desktop_size(page, name: str, prompt: str) -> None:
    """The same decision, in the same page, at 1280x800 (a second game per size would double the
    test's time): the window is widened, the prompt brought into view as a player scrolls to it,
    photographed, and the phone's size given back before the game goes on."""
    page.set_viewport_size(SIZES["desktop"])
    page.evaluate("window.scrollTo(0, 0)")
    page.locator(prompt).first.scroll_into_view_if_needed()
    assert page.locator(prompt).first.is_visible(), f"{name}: the prompt is not shown at desktop size"
    assert screenshot_viewport(page, name).exists()
    page.set_viewport_size(SIZES["phone"])


def screenshot_viewport(page, name: str):
    from tests.web.conftest import SCREENSHOTS

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))  # the screen as the player sees it, not the whole page
    return path


CONDOTTIERE_NEEDS = {
    "place_token": ["svg.cd-map circle[data-region].pickable"],
    "battle": [".hand .cd-card", "table.cd-lines"],
    "hand_discard": [".moves button", ".hand .cd-card"],
    "keep_cards": [".moves button", ".hand .cd-card"],
}


def test_bat_1_bat_3_every_condottiere_decision_fits_a_phone_screen(live, context_for):
    """BAT-1 (choose a region on the map), BAT-3 (play from the hand against the battle lines),
    END-7/RL-12 (discard the hand), RND-2 (keep up to 2): each decision met in a whole game fits
    one 390x844 screen with what it is made on."""
    created = requests.post(
        f"{live.url}/v1/games",
        json={
            "game": "condottiere",
            "config": {"players": 3, "seed": 11},
            "bots": {"1": "random", "2": "random"},
        },
        timeout=10,
    )
    game_id = created.json()["id"]
    claim = requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": "Ann"}, timeout=10).json()
    page, errors = open_play_page(context_for("phone"), live.url, game_id, claim)
    seen: set[str] = set()
    for _ in range(400):
        page.wait_for_function(YOUR_TURN_SETTLED)
        if "Game over" in page.locator(".status").text_content():
            break
        phase = page.locator(".table").get_attribute("data-phase")
        mine = page.locator(".your-turn").count() > 0  # else read between two redraws
        if mine and phase in CONDOTTIERE_NEEDS and phase not in seen:
            assert_one_screen(
                page, f"phone-decision-condottiere-{phase}", ".your-turn", CONDOTTIERE_NEEDS[phase]
            )
            # A badge beside a name never reads as part of it ("random bot 2♞"), even where a
            # phone's narrow column drops the badges' margin.
            before = page.eval_on_selector_all(
                "table.cd-lines tbody th",
                "ths => ths.filter((th) => th.querySelector('.badge'))"
                ".map((th) => (th.querySelector('.badge').previousSibling || {}).textContent || '')",
            )
            assert before, "a seat has a badge (to play, ♞)"
            assert not [t for t in before if not t[-1:].isspace()], before
            seen.add(phase)
            if phase in ("hand_discard", "keep_cards"):
                # END-6, END-7: the next battle's region is chosen, its lines empty, and nobody has
                # passed in it yet: the battle that ended leaves no "passed" on anyone.
                assert not page.locator("table.cd-lines .badge", has_text="passed").count()
                assert page.locator(".battle-where").inner_text().startswith(("Next", "No battle"))
        if {"place_token", "battle"} <= seen and len(seen) >= 3:
            break
        cd_click(page)
    assert {"place_token", "battle"} <= seen, seen
    # Tap targets: the moves' buttons and the hand's cards are at least 40 px high.
    heights = page.evaluate(
        "() => [...document.querySelectorAll('.moves button, .hand .cd-card.pickable, .rules-open')]"
        ".filter((e) => e.getClientRects().length).map((e) => e.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= 40, heights
    assert not errors, errors


def test_rio_place_1_rio_act_2_every_rio_decision_fits_a_phone_screen(live, context_for):
    """RIO-PLACE-1 (placing people on the city), RIO-ACT-2 (acting with them), and the question a
    cell asks: the prompt, the seat's own stock and the city's clickable cells fit one screen."""
    created = requests.post(
        f"{live.url}/v1/games",
        json={
            "game": "rio_de_la_plata",
            "config": {"players": 3, "seed": 5},
            "bots": {"1": "random", "2": "random"},
        },
        timeout=10,
    )
    game_id = created.json()["id"]
    claim = requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": "Ann"}, timeout=10).json()
    page, errors = open_play_page(context_for("phone"), live.url, game_id, claim)
    seen: set[str] = set()
    for _ in range(60):
        try:
            page.wait_for_function(YOUR_TURN_SETTLED, timeout=30_000)
        except Exception as error:
            screenshot(page, "failure-phone-rio")
            raise AssertionError(
                page.locator(".status").text_content() + " / " + page.locator(".moves").inner_text()
            ) from error
        view = requests.get(
            f"{live.url}/v1/games/{game_id}/view",
            headers={"Authorization": f"Bearer {claim['token']}"},
            timeout=10,
        ).json()["view"]
        step = view["step"]
        kind = f"{step}-city" if page.locator("svg.rio-city .rio-target").count() else step
        # The prompt names the task in a sentence: never a list of dozens of places ("Road between
        # (0, 1) and (1, 1); ...; and 287 more"), and "click it" only when there is one thing.
        hint = page.locator(".your-turn").inner_text()
        assert not re.search(r"and \d{2,} more", hint), hint
        # The folded list counts the moves in it (a section's 290 edges), never "The 1 board move".
        for summary in page.locator("details.move-list summary").all_inner_texts():
            assert not re.search(r"\b1 board move", summary), summary
        if kind not in seen:
            needed = (
                [".decision-info", "svg.rio-city .rio-target"]
                if kind.endswith("city")
                else [".decision-info", ".moves button"]
            )
            assert_one_screen(page, f"phone-decision-rio-{kind}", ".your-turn", needed)
            seen.add(kind)
        if step == "B" and "A-city" in seen:
            break
        rio_click(page)
        if page.locator(".moves fieldset.warning").count():
            page.get_by_role("button", name="Do it anyway").click()
    else:
        pytest.fail(f"phase B never came: {seen}")
    assert "A-city" in seen and any(k.startswith("B") for k in seen), seen
    assert not errors, errors
