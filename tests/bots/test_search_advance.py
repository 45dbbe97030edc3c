"""The search's ``advance`` hook (``games.base.SearchHooks``) takes shortcuts the server's path
does not (Rio de la Plata skips the legality check of a move it was handed from ``legal_moves``):
it must still land on the very state ``decide`` then ``evolve`` land on, move after move, in whole
random games of both engines."""

from __future__ import annotations

import random

import pytest

from games import get_game
from games.base import fold


@pytest.mark.parametrize(
    ("name", "config", "seed"),
    [
        ("condottiere", {"players": 4}, 1),
        ("condottiere", {"players": 3, "ruleset": "classic"}, 2),
        ("rio_de_la_plata", {"players": 4}, 3),
        ("rio_de_la_plata", {"players": 3}, 4),
    ],
)
def test_advance_lands_where_decide_and_evolve_land(name, config, seed):
    """RL-10, RIO-RL-10: a search's step equals the server's, event for event, to the game's end."""
    game = get_game(name)
    state = fold(game, game.start(game.configure({**config, "seed": seed})))
    rng = random.Random(seed)
    steps = 0
    while not game.is_over(state) and steps < 3000:
        seat = game.awaiting(state)[0]
        moves = game.legal_moves(state, seat)
        move = moves[rng.randrange(len(moves))]
        expected = fold(game, game.decide(state, seat, move), state)
        assert game.advance(state, seat, move) == expected
        state = expected
        steps += 1
    assert steps > 50
