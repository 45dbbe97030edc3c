"""Rio de la Plata's own page module (games/rio_de_la_plata/web/renderer.js over the export's city
drawing, archive.board_template): a person plays a few moves as a seat, the board and the stocks
follow the seat's view, and a spectator watches the same game (issue 16). Rule IDs:
shared/rules/rio-de-la-plata.md."""

from __future__ import annotations

import json

import requests

from tests.web.conftest import open_play_page, screenshot
from tests.web.test_table import rio_click

YOUR_TURN_OR_OVER = (
    "() => document.querySelector('.your-turn')"
    " || /Game over/.test((document.querySelector('.status') || {}).textContent || '')"
)


def _game(live) -> tuple[str, dict]:
    created = requests.post(
        f"{live.url}/v1/games",
        json={
            "game": "rio_de_la_plata",
            "config": {"players": 3, "seed": 5},
            "bots": {"1": "random", "2": "random"},
        },
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    claim = requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": "Ann"}, timeout=10).json()
    return game_id, claim


def _view(live, game_id, token=None) -> dict:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.get(f"{live.url}/v1/games/{game_id}/view", headers=headers, timeout=10).json()


def _people_drawn(page) -> dict[str, list[int]]:
    """Cell -> people per seat, as the page drew them (circle.rio-person[data-cell][data-seat])."""
    drawn: dict[str, list[int]] = {}
    for cell, seat in page.eval_on_selector_all(
        "svg.rio-city circle.rio-person", "els => els.map(e => [e.dataset.cell, Number(e.dataset.seat)])"
    ):
        counts = drawn.setdefault(cell, [0, 0, 0])
        counts[seat] += 1
    return drawn


def _people_in(view: dict) -> dict[str, list[int]]:
    return {key: cell["ppl"] for key, cell in view["city"].items() if any(cell["ppl"])}


def test_rio_city_3_play_a_few_moves_on_the_rio_page_and_watch_as_a_spectator(live, context_for):
    """RIO-CITY-3, RIO-PLACE-1: the play page draws the city grid (every cell), the tracks and the
    players' stocks; the seat's legal placements are outlined on the board and offered as "Place a
    person on a city cell…" then the cell; the person placed appears on that cell; after a few more
    moves the page's people are exactly the seat view's; a spectator's page shows the same city with
    no moves to make, and the replay page draws it too."""
    game_id, claim = _game(live)
    module = requests.get(f"{live.url}/web/games/rio_de_la_plata/renderer.js", timeout=10)
    assert module.status_code == 200 and "export function choices" in module.text
    page, errors = open_play_page(context_for("desktop"), live.url, game_id, claim)
    page.wait_for_function(YOUR_TURN_OR_OVER)
    assert not errors, errors
    assert page.locator("svg.rio-city rect[data-cell]").count() == 16 * 10  # the package's board
    assert page.locator("table.rio-stocks tbody tr").count() == 3
    assert page.locator("g.rio-space[data-enemy='natives']").count() == 9
    own = _view(live, game_id, claim["token"])["view"]
    placements = [m for m in own["legal_moves"] if m["type"] == "place" and m["space"] == "cell"]
    assert placements, "seat 0 may place a person in the start zone (RIO-CITY-3)"
    outlined = set(
        page.eval_on_selector_all("svg.rio-city rect.rio-target", "els => els.map(e => e.dataset.target)")
    )
    assert {f"{m['cell'][0]},{m['cell'][1]}" for m in placements} <= outlined
    # The move list stays, folded, as a second way: its cell question lists the same cells.
    page.get_by_text("board moves as a list").click()
    page.get_by_role("button", name="Place a person on a city cell…").click()
    assert page.locator("fieldset legend").text_content() == "Which cell?"
    page.get_by_role("button", name="Back", exact=True).click()  # the first menu again
    target = placements[0]["cell"]
    # The board is the first way: a click on the cell places the person there.
    page.locator(f"svg.rio-city rect.rio-target[data-target='{target[0]},{target[1]}']").click()
    key = f"{target[0]},{target[1]}"
    page.wait_for_selector(f"svg.rio-city circle.rio-person[data-cell='{key}'][data-seat='{claim['seat']}']")
    assert _view(live, game_id)["view"]["city"][key]["ppl"][claim["seat"]] == 1

    for _ in range(3):  # the first control each time (its first variant when it asks)
        page.wait_for_function(YOUR_TURN_OR_OVER)
        if "Game over" in page.locator(".status").text_content():
            break
        rio_click(page)
        page.wait_for_function("() => !document.querySelector('.moves button:disabled')")
    page.wait_for_function(YOUR_TURN_OR_OVER)
    # Seat 0 is awaited again, so nobody else moves: the page shows the seat's current view.
    current = _view(live, game_id, claim["token"])["view"]
    assert claim["seat"] in current["awaiting"]
    assert _people_drawn(page) == _people_in(current)
    silver = page.locator("table.rio-stocks tbody tr[data-seat='0'] td[data-stock='silver']").text_content()
    assert int(silver) == current["p"][0]["silver"]
    screenshot(page, "rio-play-desktop")
    # Every stock column is in view beside the city at 1280 px (its scroll box need not scroll).
    hidden = page.eval_on_selector(
        "table.rio-stocks", "t => t.parentElement.scrollWidth - t.parentElement.clientWidth"
    )
    assert hidden <= 0, f"the players' stocks are cut off by {hidden} px"

    watcher = context_for("phone").new_page()
    watcher.on("pageerror", lambda error: errors.append(str(error)))
    watcher.goto(f"{live.url}/watch/{game_id}")
    watcher.wait_for_selector("svg.rio-city circle.rio-person")
    spectator = _view(live, game_id)
    drawn = _people_drawn(watcher)
    assert drawn[key][claim["seat"]] >= 1
    assert not watcher.locator(".your-turn").count(), "a spectator has no moves to make"
    assert not watcher.locator("svg.rio-city .rio-target, .pickable").count(), "nor anything to click"
    assert spectator["view"]["city"][key]["ppl"][claim["seat"]] >= 1
    screenshot(watcher, "rio-watch-phone")

    replay = context_for("desktop").new_page()
    replay.on("pageerror", lambda error: errors.append(str(error)))
    replay.goto(f"{live.url}/replay/{game_id}")
    replay.wait_for_selector(f"svg.rio-city circle.rio-person[data-cell='{key}']")
    assert "Year 1580" in replay.locator(".rio-year").text_content()
    assert not errors, errors


def test_the_lobby_offers_rio_with_its_own_options(live, context_for):
    """RIO-SETUP-1: the creation form of Rio asks for 3 to 5 players (its module's configFields)."""
    page = context_for("desktop").new_page()
    page.goto(live.url + "/")
    page.wait_for_selector("#new-game")
    page.locator("#new-game").select_option("rio_de_la_plata")
    # The form redraws its fields once the game's module is loaded: wait for Rio's, then read them.
    page.wait_for_selector("form.create input[name='players'][max='5']", state="attached")
    players = page.locator("form.create input[name='players']")
    assert players.get_attribute("min") == "3" and players.get_attribute("value") == "4"
    assert not page.locator("form.create [name='ruleset']").count()  # Condottiere's field is gone


def test_rio_trade_2_a_seat_nobody_waits_for_may_still_buy_from_its_page(live, context_for):
    """RIO-TRADE-2, RIO-TRADE-1: purchases (and trade offers) are free commands any player may issue
    while the game awaits somebody else; the play page offers a waiting seat its legal moves under
    "Meanwhile you may" (not "Your turn"), and buying there gives the seat its stone."""
    created = requests.post(
        f"{live.url}/v1/games",
        json={"game": "rio_de_la_plata", "config": {"players": 3, "seed": 9}},
        timeout=10,
    ).json()
    game_id = created["id"]
    claims = [
        requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": n}, timeout=10).json()
        for n in ("Ann", "Bob", "Cid")
    ]
    ann = claims[0]
    page, errors = open_play_page(context_for("desktop"), live.url, game_id, ann)
    page.wait_for_selector(".your-turn, .free-moves")
    if page.locator(".your-turn").count():  # Ann is first: she ends her turn, Bob or Cid (idle) is next
        page.get_by_role("button", name="End your turn", exact=True).click()
        # Ending the turn with people left to place cannot be taken back: the page asks first.
        page.get_by_role("button", name="Do it anyway").click()
    page.wait_for_selector(".free-moves")
    assert ann["seat"] not in _view(live, game_id)["view"]["awaiting"]
    assert not page.locator(".your-turn").count()
    stone = _view(live, game_id, ann["token"])["view"]["p"][ann["seat"]]["stone"]
    page.get_by_role("button", name="Buy 1 stone", exact=True).click()
    cell = f"table.rio-stocks tr[data-seat='{ann['seat']}'] td[data-stock='stone']"
    page.wait_for_function(f"() => document.querySelector({json.dumps(cell)}).textContent === '{stone + 1}'")
    assert _view(live, game_id, ann["token"])["view"]["p"][ann["seat"]]["stone"] == stone + 1
    # The moves were drawn again after the purchase (one purchase a turn: "Buy" is gone); the focus
    # stays among the moves, on the first one, not lost to the page (issue 30, item 9).
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.closest('.moves') !== null"
    )
    assert page.get_by_role("button", name="Write a trade offer…").count() == 1
    assert not errors, errors
