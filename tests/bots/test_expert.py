"""The ``expert`` level (bots/expert.py, bots/search.py: SO-ISMCTS over the games' search hooks).

The information-set tests give the bot two states that differ only in what its seat may not see
(the other hands, the other seats' face-down cards, the deck's order and content, the discard pile,
the seed and so every future shuffle or die) and require the same search, move for move and number
for number, under the same random seed."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import bots
from bots.expert import ExpertBot
from bots.search import Budget, search
from cli.simulate import play_game
from games import get_game
from games.base import fold

SMALL = Budget(iterations=120, rollout_moves=30)


def _condottiere_battle(options: dict, seed: int, plays: int):
    """A 4-player Condottiere state in a battle after ``plays`` random moves, with cards on the lines."""
    game = get_game("condottiere")
    state = fold(game, game.start(game.configure({"players": 4, "seed": seed, "options": options})))
    rng = random.Random(seed)
    moves = 0
    while moves < plays or len(game.legal_moves(state, game.awaiting(state)[0])) < 3:
        seat = game.awaiting(state)[0]
        legal = game.legal_moves(state, seat)
        state = game.advance(state, seat, legal[rng.randrange(len(legal))])
        moves += 1
        assert not game.is_over(state)
    return game, state


def _swap_hidden_cards(state, seat: int, rng: random.Random):
    """The same table with every card ``seat`` cannot see dealt again among the places it cannot
    see, and another seed: a state ``seat`` cannot tell from ``state``."""
    other = state.copy()
    places = [("hands", i) for i in range(state.seat_count) if i != seat]
    places += [("down", i) for i in range(state.seat_count) if i != seat]
    cards = (
        [c for kind, i in places for c in getattr(state, kind)[i]] + list(state.deck) + list(state.discard)
    )
    rng.shuffle(cards)
    hands, down = list(state.hands), list(state.down)
    for kind, i in places:
        target = hands if kind == "hands" else down
        size = len(target[i])
        taken, cards = cards[:size], cards[size:]
        target[i] = tuple(sorted(taken)) if kind == "hands" else tuple(taken)
    other.hands, other.down = tuple(hands), tuple(down)
    other.deck, cards = tuple(cards[: len(state.deck)]), cards[len(state.deck) :]
    other.discard = tuple(cards)
    other.seed = state.seed + 1 if isinstance(state.seed, int) else 1
    other.chance_draws = state.chance_draws + 3
    other.config = {**state.config, "seed": other.seed}
    return other


@pytest.mark.parametrize("options", [{}, {"hidden_cards": True}])
def test_condottiere_expert_decides_from_its_information_set_only(options):
    """OPT-HID-4, RL-10: the hands of others, their face-down cards, the deck and the seed do not
    change the expert's search; its own hand does."""
    game, state = _condottiere_battle(options, seed=41, plays=14)
    seat = game.awaiting(state)[0]
    other = _swap_hidden_cards(state, seat, random.Random(5))
    assert other.hands[seat] == state.hands[seat] and other != state
    assert any(other.hands[i] != state.hands[i] for i in range(4) if i != seat)
    assert game.view(other, seat) == game.view(state, seat)

    assert game.determinize(state, seat, random.Random(2)) == game.determinize(other, seat, random.Random(2))
    first = search(game, state, seat, random.Random(9), SMALL)
    second = search(game, other, seat, random.Random(9), SMALL)
    assert first.best == second.best
    assert first.values == second.values
    assert [(m.move, m.visits, m.value) for m in first.moves] == [
        (m.move, m.visits, m.value) for m in second.moves
    ]
    # The level as the server plays it, on an iteration budget (a time budget is not reproducible).
    expert = ExpertBot("condottiere", bots.get_bot("condottiere", "heuristic"), SMALL)
    rng_a, rng_b = bots.seeded_rng("x"), bots.seeded_rng("x")
    assert expert.choose_in(state, seat, rng_a) == expert.choose_in(other, seat, rng_b)


def test_condottiere_samples_never_hold_a_card_the_seat_cannot_account_for():
    """CARD-1: every sample is a full deck: the seat's hand and the table as seen, the rest drawn
    from the cards it cannot see (none made up, none lost)."""
    game, state = _condottiere_battle({"hidden_cards": True}, seed=7, plays=10)
    seat = game.awaiting(state)[0]
    for draw in range(5):
        sample = game.determinize(state, seat, random.Random(draw))
        every = Counter(sample.deck) + Counter(sample.discard)
        for i in range(4):
            every += Counter(sample.hands[i]) + Counter(sample.lines[i]) + Counter(sample.down[i])
        real = Counter(state.deck) + Counter(state.discard)
        for i in range(4):
            real += Counter(state.hands[i]) + Counter(state.lines[i]) + Counter(state.down[i])
        assert every == real
        assert sample.hands[seat] == state.hands[seat] and sample.down[seat] == state.down[seat]
        assert [len(h) for h in sample.hands] == [len(h) for h in state.hands]
        assert game.view(sample, seat)["legal_moves"] == game.view(state, seat)["legal_moves"]


def _rio_midgame(seed: int, plays: int):
    game = get_game("rio_de_la_plata")
    state = fold(game, game.start(game.configure({"players": 3, "seed": seed})))
    rng = random.Random(seed)
    for _ in range(plays):
        seat = game.awaiting(state)[0]
        legal = game.legal_moves(state, seat)
        state = game.advance(state, seat, legal[rng.randrange(len(legal))])
    while len(game.legal_moves(state, game.awaiting(state)[0])) < 3:
        seat = game.awaiting(state)[0]
        state = game.advance(state, seat, game.legal_moves(state, seat)[0])
    return game, state


def test_rio_expert_decides_without_the_seed_or_future_dice():
    """RIO-RL-10 (the seeded draw): the seed and the draw counter, which decide every future die
    and turn order, do not change the expert's search."""
    game, state = _rio_midgame(seed=3, plays=250)
    seat = game.awaiting(state)[0]
    other = type(state)(state)
    other.board = state.board
    other.taken = getattr(state, "taken", None)  # what the seat may take back (undo) is the same
    other["config"] = {**state["config"], "seed": 987654321}
    other["rng"] = state["rng"] + 11
    assert game.view(other, seat) == game.view(state, seat) and other != state
    sample = game.determinize(state, seat, random.Random(1))
    assert sample == game.determinize(other, seat, random.Random(1))
    assert sample["config"]["seed"] != state["config"]["seed"]
    budget = Budget(iterations=40, rollout_moves=80)
    first = search(game, state, seat, random.Random(4), budget)
    second = search(game, other, seat, random.Random(4), budget)
    assert first.best == second.best and first.values == second.values
    assert [(m.visits, m.value) for m in first.moves] == [(m.visits, m.value) for m in second.moves]


def test_the_expert_level_is_registered_for_both_games():
    for name in ("condottiere", "rio_de_la_plata"):
        assert "expert" in bots.levels(name)
        assert bots.get_bot(name, "expert").level == "expert"


def test_without_a_state_the_expert_plays_its_fallback():
    """A client holding only a view (a remote seat) gets the heuristic level's move."""
    game, state = _condottiere_battle({}, seed=41, plays=14)
    seat = game.awaiting(state)[0]
    view = game.view(state, seat)
    fallback = bots.get_bot("condottiere", "heuristic").choose(view, random.Random(1))
    assert bots.choose_move("condottiere", "expert", view, random.Random(1), strict=True) == fallback


def test_condottiere_expert_beats_random_clearly():
    """VIC-1..VIC-3: in six 3-player games against two random bots (each seat in turn, fixed seeds)
    the expert wins at least five (a random seat's fair share is two)."""
    bot = bots.get_bot("condottiere", "expert")
    saved = bot.budget
    bot.budget = Budget(iterations=80, rollout_moves=30)
    try:
        wins = 0
        for i in range(6):
            levels = ["random", "random", "random"]
            levels[i % 3] = "expert"
            record = play_game("condottiere", {"players": 3, "seed": 500 + i}, levels, 500 + i, index=i)
            wins += levels.index("expert") in record.winners
    finally:
        bot.budget = saved
    assert wins >= 5
