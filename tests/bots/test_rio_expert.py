"""Rio de la Plata's expert (bots/expert.py over games/rio_de_la_plata/playout.py's
``expert_candidates`` and search.py's ``estimate``): the moves it searches between, that its games
end, and the estimate its searches and the analysis stop at."""

from __future__ import annotations

import random

import pytest

import bots
from bots.search import Budget, move_key, search
from cli.simulate import play_game
from games import get_game
from games.base import fold
from games.rio_de_la_plata import playout
from games.rio_de_la_plata.bots import HEURISTIC
from games.rio_de_la_plata.steps import final_scoring

OFFERS = {"offer_open", "offer_add", "offer_send"}


def _heuristic_game(seed: int, players: int = 4):
    """Every decision of a game the heuristic bot plays for every seat: (game, state, seat)."""
    game = get_game("rio_de_la_plata")
    state = fold(game, game.start(game.configure({"players": players, "seed": seed})))
    rng = random.Random(seed)
    while not game.is_over(state):
        seat = game.awaiting(state)[0]
        yield game, state, seat
        moves = game.legal_moves(state, seat)
        best = max(range(len(moves)), key=lambda i: (HEURISTIC.score(state, seat, moves[i]), rng.random()))
        state = game.advance(state, seat, moves[best])


def test_rio_rl_27_the_expert_searches_the_heuristics_best_moves_and_never_a_trade_offer():
    """RIO-RL-27 (free commands at every decision): the candidates are legal, at most
    ``CANDIDATES`` of the heuristic's best within ``MARGIN`` of its best (besides the characters its
    seat can pay for and the turn-order track), the heuristic's own choice first, and never a trade
    proposal, which moves the game nowhere."""
    searched = 0
    for game, state, seat in _heuristic_game(seed=11):
        moves = game.legal_moves(state, seat)
        candidates = game.expert_candidates(state, seat, moves)
        keys = {move_key(m) for m in moves}
        assert candidates and all(move_key(c) in keys for c in candidates)
        assert not any(c["type"] in OFFERS for c in candidates)
        scores = [HEURISTIC.score(state, seat, m) for m in moves]
        ranked = [c for c in candidates if c.get("space") not in ("character", "order")]
        assert len(ranked) <= playout.CANDIDATES
        assert HEURISTIC.score(state, seat, ranked[0]) == max(scores)
        assert all(HEURISTIC.score(state, seat, c) >= max(scores) - playout.MARGIN for c in ranked)
        searched += len(candidates) > 1
    assert searched > 100


def test_rio_char_3_a_character_the_seat_can_pay_for_is_searched():
    """RIO-CHAR-2, RIO-CHAR-3: the heuristic never places on a character; the expert searches a
    placement on one its seat can pay for (silver and VP) that scores at the end, and no other."""
    for game, state, seat in _heuristic_game(seed=5):
        moves = game.legal_moves(state, seat)
        if any(m.get("character") == "master_quarryman" for m in moves):
            break
    else:
        pytest.fail("no placement on the master quarryman in the game")
    place = {"type": "place", "space": "character", "character": "master_quarryman"}
    rich = state.copy()
    rich["p"] = [dict(p) for p in state["p"]]
    rich["p"][seat].update(silver=12, vp=12)
    poor = state.copy()
    poor["p"] = [dict(p) for p in state["p"]]
    poor["p"][seat].update(silver=2, vp=12)
    assert place in game.expert_candidates(rich, seat, game.legal_moves(rich, seat))
    assert place not in game.expert_candidates(poor, seat, game.legal_moves(poor, seat))
    # The artillerist scores nothing at the end: never searched, however rich the seat.
    assert not any(
        c.get("character") == "artillerist"
        for c in game.expert_candidates(rich, seat, game.legal_moves(rich, seat))
    )


def test_the_search_chooses_among_the_candidates_it_is_given():
    """A search given candidates expands and answers no other root move."""
    for game, state, seat in _heuristic_game(seed=3):
        moves = game.legal_moves(state, seat)
        if len(moves) > 6 and game.awaiting(state) == [seat]:
            break
    chosen = [moves[-1], moves[len(moves) // 2]]
    result = search(
        game, state, seat, random.Random(2), Budget(iterations=20, rollout_moves=10), candidates=chosen
    )
    assert result.best in chosen
    assert {move_key(m.move) for m in result.moves} <= {move_key(m) for m in chosen}
    assert len(result.moves) == 2


def test_rio_rl_27_an_expert_game_ends_without_endless_trade_offers():
    """RIO-RL-27: offers are free commands that leave the decision pending; a search that could
    open, fill and send them found them worth as much as ending the turn and played them forever
    (a game of 50,000 moves in year one). With the candidates, a 4-player game against three
    heuristic bots ends, at about the heuristic game's length."""
    bot = bots.get_bot("rio_de_la_plata", "expert")
    saved = bot.budget
    bot.budget = Budget(iterations=30, rollout_moves=10)
    try:
        levels = ["expert", "heuristic", "heuristic", "heuristic"]
        record = play_game("rio_de_la_plata", {"players": 4, "seed": 21}, levels, 21, max_moves=3000)
    finally:
        bot.budget = saved
    assert record.winners and record.moves < 3000


def test_rio_end_5_the_estimate_counts_the_final_scoring_and_keeps_the_early_game_open():
    """RIO-END-3..RIO-END-5: a seat's estimate counts what final scoring would give it now (its
    money and houses), and a lead counts for more as the rounds run out (a lead of 10 VP in the
    first round is far from a won game)."""
    game = get_game("rio_de_la_plata")
    state = fold(game, game.start(game.configure({"players": 4, "seed": 8})))
    even = game.estimate(state)
    # Starting stocks differ a little by seat, and the first to place next round counts for more.
    assert even == pytest.approx([0.25] * 4, abs=0.04)
    ahead = state.copy()
    ahead["p"] = [dict(p) for p in state["p"]]
    ahead["p"][0]["vp"] += 10
    early = game.estimate(ahead)[0]
    assert 0.25 < early < 0.6
    late = ahead.copy()
    late["year"] = state.board.last_year
    assert game.estimate(late)[0] > early
    richer = state.copy()
    richer["p"] = [dict(p) for p in state["p"]]
    richer["p"][1]["silver"] += 30  # RIO-END-3: 10 VP at the end
    assert final_scoring(richer)[1]["money"] == final_scoring(state)[1]["money"] + 10
    assert game.estimate(richer)[1] > even[1]


def test_rio_rl_10_the_expert_plays_the_same_move_whatever_seed_it_cannot_see():
    """RIO-RL-10 (the seeded draw): the expert bot itself (its candidates, then its search) plays
    the same move from two states that differ only in the seed and the draw counter, which decide
    every future die and turn order and which its seat may not see."""
    bot = bots.get_bot("rio_de_la_plata", "expert")
    saved = bot.budget
    bot.budget = Budget(iterations=30, rollout_moves=10)
    compared = 0
    try:
        for game, state, seat in _heuristic_game(seed=13):
            moves = game.legal_moves(state, seat)
            if compared == 3:
                break
            if len(game.expert_candidates(state, seat, moves)) < 3:
                continue
            other = type(state)(state)
            other.board = state.board
            other.taken = getattr(state, "taken", None)
            other["config"] = {**state["config"], "seed": 424242}
            other["rng"] = state["rng"] + 7
            assert game.view(other, seat) == game.view(state, seat) and other != state
            first = bot.choose_in(state, seat, random.Random(9))
            assert first == bot.choose_in(other, seat, random.Random(9))
            compared += 1
    finally:
        bot.budget = saved
    assert compared == 3


def _copy(state):
    other = type(state)(state)
    other.board = state.board
    other["p"] = [dict(p) for p in state["p"]]
    return other


def test_rio_order_2_the_estimate_counts_placing_first_next_round_and_the_expert_searches_the_track():
    """RIO-ORDER-1, RIO-ORDER-2, RIO-PLACE-1: whoever places first takes the major buildings' best
    spaces, so the estimate counts the next round's order, which people on the turn-order track
    decide; the heuristic never places there, and the expert searches one person there when it
    would not place first next round (and not when it would)."""
    for game, state, seat in _heuristic_game(seed=17):
        moves = game.legal_moves(state, seat)
        if seat == state["order"][-1] and any(m.get("space") == "order" for m in moves):
            break
    else:
        pytest.fail("the last to place never had the turn-order track open")
    track = {"type": "place", "space": "order"}
    assert track in game.expert_candidates(state, seat, moves)
    assert HEURISTIC.score(state, seat, track) < 0
    ahead = _copy(state)
    ahead["otrack"] = list(state["otrack"])
    ahead["otrack"][seat] += 1
    assert game.estimate(ahead)[seat] > game.estimate(state)[seat]
    assert track not in game.expert_candidates(ahead, seat, game.legal_moves(ahead, seat))


def test_rio_major_6_people_on_an_unfinished_grid_count_its_spaces_vp():
    """RIO-MAJOR-4, RIO-MAJOR-6: people on a major building's grid score its spaces' VP once it
    fills; the estimate counts them before (a playout cut a few moves later rarely sees the grid
    fill), the best space the most."""
    game = get_game("rio_de_la_plata")
    state = fold(game, game.start(game.configure({"players": 4, "seed": 8})))
    before = game.estimate(state)[3]
    values = []
    for index in (0, 3):
        placed = _copy(state)
        placed["major"] = {**state["major"], "roads": {"grids": [[None] * 4], "done": False}}
        placed["major"]["roads"]["grids"][0][index] = 3
        values.append(game.estimate(placed)[3])
    assert values[0] > values[1] > before
