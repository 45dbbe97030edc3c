"""The game-agnostic bot interface: registry, random bot, fallback, seeded randomness."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import bots
from tests.bots.views import make_view


def test_levels_of_condottiere_include_random_and_heuristic():
    assert bots.levels("condottiere")[0] == "random"
    assert "heuristic" in bots.levels("condottiere")


def test_the_api_documents_the_registry_levels():
    """The levels the request schemas show as examples are every level some game's registry
    offers (no hand-kept list to drift)."""
    from games import game_names
    from schemas.games import ClaimSeatRequest, CreateGameRequest

    registered = {level for name in game_names() for level in bots.levels(name)}
    assert "heuristic" in registered
    assert set(ClaimSeatRequest().fields["bot"].metadata["examples"]) == registered
    assert set(CreateGameRequest().fields["bots"].value_field.metadata["examples"]) == registered


def test_unknown_level_is_refused():
    with pytest.raises(bots.UnknownBotLevel):
        bots.get_bot("condottiere", "grandmaster")


def test_a_game_without_bots_module_still_has_the_random_bot():
    assert bots.levels("no-such-game") == ["random"]


def test_random_bot_is_uniform_over_legal_moves():
    """BAT-3: every legal move (each card, pass) gets chosen, about equally often."""
    view = make_view(hand=["m1", "m2", "m10"])
    rng = random.Random(7)
    counts = Counter(repr(bots.RANDOM.choose(view, rng)) for _ in range(4000))
    assert len(counts) == len(view["legal_moves"]) == 4
    assert min(counts.values()) > 850 and max(counts.values()) < 1150


def test_random_bot_refuses_a_view_without_moves():
    view = make_view(hand=["m1"], legal_moves=[])
    with pytest.raises(bots.NoLegalMove):
        bots.RANDOM.choose(view, random.Random(0))


class _Broken:
    level = "broken"

    def choose(self, view, rng):
        return {"type": "play", "card": "not-a-card"}


def test_illegal_choice_falls_back_to_a_legal_move(monkeypatch):
    """A bot seat must never stall a game: an illegal answer becomes a random legal move, unless
    strict (measurements), where it raises."""
    monkeypatch.setitem(bots._GENERIC, "broken", _Broken())
    view = make_view(hand=["m1", "m2"])
    move = bots.choose_move("condottiere", "broken", view, random.Random(0))
    assert move in view["legal_moves"]
    with pytest.raises(AssertionError):
        bots.choose_move("condottiere", "broken", view, random.Random(0), strict=True)


def test_seeded_rng_is_stable_and_distinct():
    a = bots.seeded_rng("g1", 3, 0).random()
    assert a == bots.seeded_rng("g1", 3, 0).random()
    assert a != bots.seeded_rng("g1", 3, 1).random()


def test_seeded_rng_is_stable_across_processes():
    """A bot's moves must replay alike in every worker: two other interpreters, with other string
    hash seeds (what would change a hash()-based seed), draw what this process draws."""
    code = "import bots; print(bots.seeded_rng('g1', 3, 0).getrandbits(64), "
    code += "bots.seeded_rng('x').getrandbits(64))"
    here = f"{bots.seeded_rng('g1', 3, 0).getrandbits(64)} {bots.seeded_rng('x').getrandbits(64)}"
    root = Path(__file__).resolve().parents[2]
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        other = subprocess.run(
            [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True
        )
        assert other.stdout.strip() == here, f"PYTHONHASHSEED={hash_seed} drew differently"


def test_rl_12_a_single_legal_move_is_answered_without_asking_the_bot(monkeypatch):
    """RL-12: every seat holding cards is asked at the hand discard; one holding a Mercenary may only
    keep. Bots, the simulator and the CLI answer that question by themselves: the bot is not
    consulted and no randomness is drawn, so people (and bots) are not asked needlessly."""
    keep = {"type": "discard_hand", "discard": False}
    view = make_view(hand=["m1"], legal_moves=[keep])

    def never(*_args, **_kwargs):
        raise AssertionError("the bot was asked although there was nothing to choose")

    heuristic = bots.get_bot("condottiere", "heuristic")
    monkeypatch.setattr(heuristic, "choose", never)
    rng = random.Random(5)
    state = rng.getstate()
    assert bots.choose_move("condottiere", "heuristic", view, rng, strict=True) == keep
    assert rng.getstate() == state
    assert bots.only_move(view) == keep
    assert bots.only_move(make_view(hand=["m1"], legal_moves=[keep, {**keep, "discard": True}])) is None
