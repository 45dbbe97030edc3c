"""RND-2: at a round's end the only player still holding cards keeps up to 2 of them. The page
offers this as taps on the cards of the hand and two buttons ("Keep nothing", "Keep" the chosen
cards), not one button per legal subset (56 for a hand of 10): at 390x844 the decision fits one
screen, and tapping two cards then "Keep" sends the move with those cards. The phase is reached
deterministically: both seats are played through the API, seat 1 playing every card it holds
while seat 0 (the page's) only passes, so seat 0 is the one left holding cards. Rule IDs:
shared/rules/condottiere.md."""

from __future__ import annotations

import requests

from games.condottiere.annotate import card_name
from tests.web.conftest import SIZES, open_play_page
from tests.web.test_phone_decisions import assert_one_screen, screenshot_viewport


def _seat_move(view: dict, seat: int) -> dict:
    """Seat 0 passes every battle; seat 1 plays every card it has (a Scarecrow takes nothing
    back, so the hand only shrinks); both choose the first region and keep a hand to discard."""
    moves = view["legal_moves"]
    kinds = {m["type"] for m in moves}
    if "place_token" in kinds:
        return next(m for m in moves if m["type"] == "place_token")
    if "discard_hand" in kinds:
        return {"type": "discard_hand", "discard": False}
    if seat == 1:
        plays = [m for m in moves if m["type"] == "play" and not m.get("take_back")]
        if plays:
            return plays[0]
    return next(m for m in moves if m["type"] in ("pass", "decline_token"))


def _reach_keep_cards(url: str, game_id: str, tokens: list[str]) -> dict:
    for _ in range(200):
        for seat, token in enumerate(tokens):
            answer = requests.get(
                f"{url}/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"}, timeout=10
            ).json()
            view = answer["view"]
            if seat not in (view.get("awaiting") or []):
                continue
            if view["phase"] == "keep_cards":
                assert seat == 0, "seat 1 played all its cards: seat 0 is the one left holding any"
                return view
            sent = requests.post(
                f"{url}/v1/games/{game_id}/moves",
                headers={"Authorization": f"Bearer {token}"},
                json={"command": _seat_move(view, seat), "expected_version": answer["version"]},
                timeout=10,
            )
            assert sent.status_code < 300, sent.text
            break
    raise AssertionError("keep_cards never came")


def test_rnd_2_keep_up_to_2_cards_by_tapping_them(live, context_for):
    """RND-2: the holder taps two cards of the hand; "Keep nothing" and "Keep <those cards>" are
    the only buttons, the decision fits a 390x844 screen, and "Keep" sends exactly those cards."""
    created = requests.post(
        f"{live.url}/v1/games", json={"game": "condottiere", "config": {"players": 2, "seed": 3}}, timeout=10
    ).json()
    game_id = created["id"]
    claims = [
        requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": name}, timeout=10).json()
        for name in ("Ann", "Bob")
    ]
    claims.sort(key=lambda c: c["seat"])
    view = _reach_keep_cards(live.url, game_id, [c["token"] for c in claims])
    hand = view["hand"]
    assert len(hand) >= 3 and len(view["legal_moves"]) > 4, (hand, len(view["legal_moves"]))

    page, errors = open_play_page(context_for("phone"), live.url, game_id, claims[0])
    page.wait_for_selector(".your-turn")
    assert page.locator(".table").get_attribute("data-phase") == "keep_cards"
    buttons = page.locator(".moves button")
    assert buttons.all_inner_texts() == ["Keep nothing", "Keep the cards you tap"]
    assert buttons.nth(1).get_attribute("aria-disabled") == "true"
    assert_one_screen(
        page, "phone-decision-condottiere-keep_cards-taps", ".your-turn", [".moves button", ".hand .cd-card"]
    )

    cards = page.locator(".hand .cd-card")
    # Three taps: the third replaces the first chosen, so the second and third are kept.
    for i in (0, 1, 2):
        cards.nth(i).click()
    pressed = [cards.nth(i).get_attribute("aria-pressed") for i in range(cards.count())]
    assert pressed[:3] == ["false", "true", "true"], pressed
    chosen = [hand[1], hand[2]]
    keep = page.locator(".moves button").nth(1)
    assert keep.get_attribute("aria-disabled") is None
    assert keep.inner_text().startswith("Keep ") and keep.inner_text() != "Keep nothing"
    screenshot_viewport(page, "phone-decision-condottiere-keep_cards-chosen")
    page.set_viewport_size(SIZES["desktop"])
    screenshot_viewport(page, "desktop-decision-condottiere-keep_cards-chosen")
    page.set_viewport_size(SIZES["phone"])

    keep.click()
    page.wait_for_function("() => document.querySelector('.table').dataset.phase !== 'keep_cards'")
    # The log says what was kept (the event keeps the cards sorted), and so does the hand.
    kept = ", ".join(card_name(code) for code in sorted(chosen))
    page.wait_for_function(
        "(kept) => [...document.querySelectorAll('.log li')]"
        ".some((li) => li.textContent.includes('keep ' + kept + ' and'))",
        arg=kept,
    )
    after = requests.get(
        f"{live.url}/v1/games/{game_id}/view",
        headers={"Authorization": f"Bearer {claims[0]['token']}"},
        timeout=10,
    ).json()["view"]
    rest = list(after["hand"])
    for code in chosen:
        assert code in rest, (chosen, after["hand"])
        rest.remove(code)
    assert not errors, errors
