"""Replays, statistics, exports and import over random complete games of every ruleset and option
(random legal moves: whatever the engine produces, the archive must handle it)."""

from __future__ import annotations

import random

import pytest

from games import get_game
from replays import core, export, stats
from tests.random_play import play_out

GAME = get_game("condottiere")

CONFIGS = [
    {"ruleset": "2006", "players": 4, "options": {}},
    {"ruleset": "2006", "players": 2, "options": {"hidden_cards": True}},
    {"ruleset": "2006", "players": 3, "options": {"capturing": True, "bigger_kingdoms": True}},
    {"ruleset": "2006", "players": 5, "options": {"draw_after_battle": True}},
    {"ruleset": "2006", "players": 3, "options": {"points_target": 8}},
    {"ruleset": "classic", "players": 4, "options": {"capturing": True}},
    {"ruleset": "classic", "players": 6, "options": {}},
]


def random_game(config, seed):
    rng = random.Random(seed)
    config = GAME.configure({**config, "seed": seed})
    return play_out(GAME, config, rng)


@pytest.mark.parametrize(
    "config",
    CONFIGS,
    ids=lambda c: f"{c['ruleset']}-{c['players']}-{'-'.join(sorted(c['options'])) or 'plain'}",
)
@pytest.mark.parametrize("seed", [1, 2])
def test_archive_handles_any_complete_game(config, seed):
    events, state = random_game(config, seed)
    names = [f"P{i}" for i in range(config["players"])]
    # Chapters: one per battle, in order, not overlapping, each ending after its battle_ended.
    chapters = core.chapters(GAME, events)
    ended = [i for i, e in enumerate(events) if e["type"] == "battle_ended"]
    assert len(chapters) == len(ended)
    previous_end = 0
    for chapter, index in zip(chapters, ended, strict=True):
        assert previous_end <= chapter["start"] <= index < chapter["end"] <= len(events)
        assert events[chapter["start"]]["type"] in ("token_placed", "final_battle_started")
        previous_end = chapter["end"]
    # Statistics agree with the log and the result.
    facts = stats.game_facts(GAME, events)
    result = GAME.result(state)
    assert facts["chapters"] == len(ended) and sorted(facts["winners"]) == sorted(result["winners"])
    assert facts["outcome"] == result["reason"]
    assert sum(facts["counters"]["game_endings"].values()) == sum(
        1 for e in events if e["type"] == "game_won"
    )
    assert sum(t["battles_won"] for t in facts["seat_totals"]) == sum(
        1 for i in ended if events[i]["winner"] is not None
    )
    assert sum(t["cards_played"] for t in facts["seat_totals"]) == sum(
        1 for e in events if e["type"] == "card_played"
    )
    # Exports render and the log round-trips through import validation.
    doc = export.annotated_history(GAME, events, players=names, finished=True, game_id="g", result=result)
    assert len(doc["annotations"]) == len(events) and all(doc["annotations"])
    page = export.to_html(GAME, doc)
    assert page.count('<section class="chapter"') >= len(chapters)
    assert export.to_markdown(GAME, doc).count("\n## ") >= len(chapters)
    checked = export.validate_import(
        export.export_log(GAME, events, players=names, finished=True, result=result)
    )
    assert checked["result"] == result
    # Verify: the fold equals a snapshot taken live.
    report = core.verify(GAME, events, {"version": len(events), "state": GAME.state_to_json(state)})
    assert report["ok"], report
