"""Condottiere has one table of sentences for its events (games/condottiere/annotate.py): the
engine's annotations and the terminal client's event lines (``TextHooks.describe_event``) read it,
so the two cannot drift apart again. RL-X17, RL-X19: the leaving and timing-out events too."""

from __future__ import annotations

import ast
import random
from pathlib import Path

from games import get_game
from games.condottiere import text
from tests.random_play import play_out

GAME = get_game("condottiere")


def test_every_event_of_played_games_reads_in_the_terminal_as_the_engine_annotates_it():
    seen: set[str] = set()
    for seed in range(6):
        config = GAME.configure({"players": 2 + seed % 3, "seed": seed})
        events, _ = play_out(GAME, config, random.Random(seed))
        for event in events:
            for viewer in (None, 0):
                received = GAME.redact(event, viewer)
                annotation = GAME.annotate(None, received, None)
                line = GAME.describe_event(received, {0: "Ann"})
                assert line == annotation.replace("Seat 0", "0 Ann").replace("seat 0", "0 Ann").replace(
                    "Seat ", "seat "
                )
            seen.add(event["type"])
    assert {"card_played", "battle_ended", "region_won", "game_won"} <= seen
    extra = [{"type": "seat_resigned", "seat": 1}, {"type": "seat_timed_out", "seat": 1}]
    assert [GAME.describe_event(e) for e in extra] == [
        GAME.annotate(None, e, None).replace("Seat", "seat") for e in extra
    ]


def test_the_terminal_text_has_no_sentence_table_of_its_own():
    """No branch of text.py tests an event's type: its sentences are annotate.py's."""
    tree = ast.parse(Path(text.__file__).read_text(encoding="utf-8"))
    event_types = {"card_played", "battle_ended", "region_won", "token_placed", "cards_kept", "game_won"}
    compared = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in event_types
    }
    assert compared == set()
