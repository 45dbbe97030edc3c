"""Condottiere's guided playout policy (games/condottiere/playout.py), the search's default playouts.

Random whole games visit every step; at each decision the policy must answer a legal move, and
(with its uniform share turned off) play as documented: a seat that leads the battle by the rules'
strengths (STR-1..STR-3, the defender keeping ties: OPT-CAP-3) passes or ends the battle with a
Surrender (SUR), a seat behind plays a card that takes the lead when it has one (BAT-2), RND-2
keeps the two most valuable cards."""

from __future__ import annotations

import random

import pytest

from games import get_game
from games.base import fold
from games.condottiere import playout
from games.condottiere.board import MERCENARY
from games.condottiere.queries import strengths
from games.condottiere.steps import STEP_BATTLE, STEP_KEEP_CARDS
from games.rio_de_la_plata import playout as rio_playout


class _NeverRandom(random.Random):
    """A generator whose ``random()`` never falls under the policy's uniform or chase shares."""

    def random(self) -> float:
        return 0.999


def _decisions(players: int, options: dict, ruleset: str, seed: int):
    game = get_game("condottiere")
    config = game.configure({"players": players, "seed": seed, "ruleset": ruleset, "options": options})
    state = fold(game, game.start(config))
    rng = random.Random(seed)
    while not game.is_over(state):
        seat = game.awaiting(state)[0]
        yield game, state, seat
        state = game.advance(state, seat, playout.guided_move(state, seat, rng))


@pytest.mark.parametrize(
    ("players", "options", "ruleset"),
    [
        (3, {}, "2006"),
        (4, {"hidden_cards": True}, "2006"),
        (5, {}, "classic"),
        (4, {"capturing": True}, "2006"),
    ],
)
def test_guided_moves_are_legal_in_whole_games(players, options, ruleset):
    """Every answer is one of legal_moves (BAT-1..BAT-6, END-7, RND-2, CL-5), and games end."""
    for seed in range(3):
        for game, state, seat in _decisions(players, options, ruleset, seed):
            assert playout.guided_move(state, seat, random.Random(seed)) in game.legal_moves(state, seat)


def test_str_1_the_leader_passes_and_a_seat_behind_takes_the_lead_when_one_card_does():
    """STR-1..STR-3 as the engine counts them decide who leads; the policy without its random
    share passes (or plays Surrender) when leading and plays a lead-taking card when behind."""
    never = _NeverRandom()
    checked = {"lead": 0, "behind": 0, "keep": 0}
    for seed in range(6):
        for game, state, seat in _decisions(4, {}, "2006", seed):
            moves = game.legal_moves(state, seat)
            if len(moves) < 2:
                continue
            move = playout.guided_move(state, seat, never)
            if state.step == STEP_KEEP_CARDS:
                best = max(sum(playout._KEEP[c] for c in m["cards"]) for m in moves)
                assert sum(playout._KEEP[c] for c in move["cards"]) == best
                checked["keep"] += 1
                continue
            if state.step != STEP_BATTLE:
                continue
            totals = strengths(state.lines)
            mine = totals[seat]
            best_other = max((t for i, t in enumerate(totals) if i != seat), default=0)
            defender = state.defender == seat
            if mine > best_other or (defender and mine >= best_other and mine > 0):
                assert move["type"] == "pass" or move == {"type": "play", "card": "surrender"}
                checked["lead"] += 1
                continue
            if any("spring" in line for line in state.lines):
                continue  # Spring moves the +3 between lines: the policy's count is a bound there
            takers = [
                card
                for card in set(state.hands[seat]) & (set(MERCENARY) | {"heroine"})
                if _leads(state, seat, card, defender)
            ]
            if takers:
                assert move["type"] == "play" and move["card"] in takers, (move, takers)
                checked["behind"] += 1
    assert min(checked.values()) > 0, checked


def _leads(state, seat: int, card: str, defender: bool) -> bool:
    lines = [list(line) for line in state.lines]
    lines[seat].append(card)
    totals = strengths(lines)
    other = max((t for i, t in enumerate(totals) if i != seat), default=0)
    return totals[seat] > other or (defender and totals[seat] >= other)


@pytest.mark.parametrize("players", [3, 5])
def test_rio_guided_moves_are_legal_and_end_the_game_rio_end_7(players):
    """Rio de la Plata's guided policy (games/rio_de_la_plata/playout.py) answers a legal move at
    every decision of whole games, which end (RIO-END-7's scoring names the winners); without its
    uniform share it never places a person on a character space (RIO-CHAR-3: an unpaid character
    costs 5 VP), which a uniform playout does."""
    game = get_game("rio_de_la_plata")
    state = fold(game, game.start(game.configure({"players": players, "seed": players})))
    rng = random.Random(players)
    never = _NeverRandom()
    moves = 0
    while not game.is_over(state):
        seat = game.awaiting(state)[0]
        legal = game.legal_moves(state, seat)
        careful = rio_playout.guided_move(state, seat, never)
        assert careful in legal
        assert not (careful["type"] == "place" and careful.get("space") == "character"), careful
        state = game.advance(state, seat, rio_playout.guided_move(state, seat, rng))
        moves += 1
        assert moves < 20_000
    assert game.result(state)["winners"]
