"""Hidden information never reaches another viewer through an export of a running game (OPT-HID-1,
OPT-HID-4): two games that differ only in one face-down card export identically for everyone
who may not see that card."""

from __future__ import annotations

import orjson
import pytest

from games import get_game
from games.base import FULL
from replays import export
from tests.condottiere.scenario import Table

GAME = get_game("condottiere")


def running_game(hidden_card: str) -> list[dict]:
    """OPT-HID-1: seat 0 plays ``hidden_card`` face down; seat 1 then plays a Spring face up, whose
    effect depends on the highest mercenary in play (STR-2), hidden or not."""
    table = Table([[hidden_card], ["spring"], []], players=3, first=0, options={"hidden_cards": True})
    table.place("Torino", 0)
    table.card(0, hidden_card)
    table.card(1, "spring")
    assert table.phase == "battle"
    return table.log


def documents(log, viewer):
    doc = export.annotated_history(
        GAME, log, players=["Ann", "Bob", "Cid"], finished=False, viewer=viewer, game_id="g"
    )
    return orjson.dumps(doc), export.to_html(GAME, doc), export.to_markdown(GAME, doc)


@pytest.mark.parametrize("viewer", [None, 1, 2])
def test_opt_hid_1_a_face_down_card_changes_nothing_in_other_viewers_exports(viewer):
    strong, weak = running_game("m10"), running_game("m6")
    assert documents(strong, viewer) == documents(weak, viewer)


def test_opt_hid_4_the_difference_is_real_for_its_owner_and_for_the_full_log():
    """The comparison above can fail: the owner (and the complete log) do tell the two apart."""
    strong, weak = running_game("m10"), running_game("m6")
    assert documents(strong, 0)[0] != documents(weak, 0)[0]
    full_strong = export.annotated_history(GAME, strong, players=["A", "B", "C"], finished=True, viewer=FULL)
    full_weak = export.annotated_history(GAME, weak, players=["A", "B", "C"], finished=True, viewer=FULL)
    assert full_strong["annotations"] != full_weak["annotations"]


def battle_fought_then_running() -> list[dict]:
    """OPT-HID-1, OPT-HID-3: seat 0 wins Torino with a face-down m10, revealed when the battle
    ends; the game goes on (the next battle is being chosen)."""
    table = Table([["m10", "m1"], ["m2"], ["m3"]], players=3, first=0, options={"hidden_cards": True})
    table.place("Torino", 0)
    table.card(0, "m10")
    table.pass_all()
    table.settle()
    assert table.last("cards_revealed")["cards"] == ["m10"]
    assert not table.view()["result"]
    return table.log


@pytest.mark.parametrize("viewer", [None, 1, 2])
def test_opt_hid_3_a_finished_battles_revealed_cards_show_in_a_running_games_export(viewer):
    """Issue 8, finding 6: cards of a finished battle were revealed (OPT-HID-3), so an export of
    the running game shows them to everyone (they were shown as '?')."""
    doc, html, markdown = documents(battle_fought_then_running(), viewer)
    chapter = orjson.loads(doc)["chapters"][0]
    assert chapter["cards"]["0"] == ["m10"]
    assert '<span class="cd-card hidden">?</span>' not in html.decode() if isinstance(html, bytes) else html
    assert "| 10 |" in markdown or "| Ann 🏆 | 10 | 10 |" in markdown
