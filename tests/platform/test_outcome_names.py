"""The games name their outcome codes (``games.base.OutcomeHooks``) so no page shows a raw code such as
``most_regions``: every reason a finished game's result may carry has words, and the pages get them."""

from __future__ import annotations

import re

from games import get_game
from games.base import ABORTED, outcome_names
from tests import app_fixtures

# The shared API fixtures (tests/app_fixtures.py), which pytest finds here by these names.
app = app_fixtures.app
client = app_fixtures.client


def _reasons_in(schema: dict, event: str) -> set[str]:
    reason = schema["$defs"][event]["properties"]["reason"]
    return set(reason.get("enum", ()))


def test_end_1_vic_1_every_condottiere_ending_has_words():
    """VIC-1, VIC-4, RL-11, OPT-POINTS-1: each reason of ``game_won`` and ``match_won`` in the
    contract, and a points match won on points, has a player's words (no underscore, no code)."""
    game = get_game("condottiere")
    contract = game.contract()
    reasons = _reasons_in(contract, "GameWonEvent") | _reasons_in(contract, "MatchWonEvent")
    reasons |= {"points", ABORTED}
    names = outcome_names(game)
    assert {"adjacent", "total", "most_regions", "final_battle", "stalled", "resigned"} <= reasons
    missing = sorted(reasons - set(names))
    assert not missing, missing
    for code, words in names.items():
        assert words and "_" not in words, (code, words)


def test_rio_end_7_rio_outcomes_have_words_and_the_pages_get_them(client):
    """RIO-END-7: Rio's one way to end (the score) has words; the pages' data carries every game's
    outcome words, and the archive page's outcome filter lists words, never the codes."""
    names = outcome_names(get_game("rio_de_la_plata"))
    assert names["score"] == "most VP after the last year"
    page = client.get("/archive").get_data(as_text=True)
    assert "most VP after the last year" in page and "won with adjacent regions" in page
    script = client.get("/web/static/archive.js").get_data(as_text=True)
    assert not re.search(r"most_regions|adjacent, total", script)
