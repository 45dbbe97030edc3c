"""Single-observer information set Monte Carlo tree search (SO-ISMCTS), game-agnostic.

The reference is Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search" (IEEE
TCIAIG 4(2), 2012), algorithm 3: every iteration draws one *determinization* (a complete state the
searching seat cannot tell from the real one, the game's ``determinize`` hook of
``games.base.SearchHooks``), walks the one tree restricted to the moves legal in that sample,
expands one node, plays out and backs the result up. Selection is UCB1 with *availability counts*:
a child's exploration term uses how often it was available (legal in the iteration's sample), not
its parent's visits, because an opponent's move exists only in the samples where its hand allows it.
The tree is keyed by (seat, move) sequences from the searching seat's point of view (the
single-observer variant: opponents' moves are branches as if seen; MO-ISMCTS would be stronger
against face-down plays, at several times the cost).

Multiplayer: each node keeps the sum of rewards per seat, and the seat that moves at a node picks by
its own reward (the max^n reading of UCT). A playout follows the game's ``guided_move`` (a cheap
imitation of good play: a uniform playout has every seat spend a card at nearly every turn of a
Condottiere battle, which no good player does; ``Budget.playout="uniform"`` takes the game's
``playout_move`` instead, for comparison: bench/README.md has the figures) for ``rollout_moves``
moves, then stops and asks the game's ``estimate`` hook (each seat's chance to win from a prior): full
playouts of Rio de la Plata cost a tenth of a second each, so a one-second budget would see a
handful of them. Rewards are win shares (1 split among the winners), so a node's mean is a win
chance, which the analysis (``replays/analysis.py``) reads.

Simultaneous decisions (Condottiere's hand discard and round end) are searched as if taken in seat
order: each seat's move is legal whatever the others chose, so the samples stay valid.

The search never reads the real state beyond handing it to ``determinize`` (which erases what the
seat may not see before it samples). All randomness comes from the ``rng`` given, so a search is
reproducible; a time budget is the one exception and is meant for play, not tests or analysis.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from games.base import Game, search_hooks

Command = dict[str, Any]

# UCB1's exploration constant for rewards in [0, 1]. sqrt(2) is the textbook value for rewards that
# spread over [0, 1]; win shares at a cut-off playout sit near 1/n with a spread of a few tenths, so
# a smaller constant keeps the search from spending a small budget evenly. Not tuned yet.
EXPLORATION = 0.7


@dataclass(frozen=True)
class Budget:
    """How long a search runs: ``iterations`` (reproducible), ``seconds`` (wall time, for play;
    whichever ends first), and how many random moves a playout makes before the estimate."""

    iterations: int = 300
    seconds: float | None = None
    rollout_moves: int = 40
    exploration: float = EXPLORATION
    # The playouts' policy: "guided" (the game's ``guided_move``, a cheap imitation of good play)
    # or "uniform" (its ``playout_move``); None leaves it to the use (an analysis takes the game's
    # ``analysis_budget`` policy, ``replays.analysis.budget_for``), and a search given None guides.
    playout: str | None = "guided"


class Node:
    __slots__ = ("children", "visits", "available", "reward", "move", "seat")

    def __init__(self, seat: int | None, move: Command | None, seats: int):
        self.children: dict[bytes, Node] = {}
        self.visits = 0
        self.available = 0
        self.reward = [0.0] * seats
        self.move = move
        self.seat = seat

    def mean(self, seat: int) -> float:
        return self.reward[seat] / self.visits if self.visits else 0.0


@dataclass
class MoveValue:
    move: Command
    visits: int
    value: float  # the searching seat's mean win share after this move
    values: list[float] = field(default_factory=list)  # every seat's mean win share after it


@dataclass
class SearchResult:
    seat: int
    best: Command
    values: list[float]  # each seat's mean win share at the root
    moves: list[MoveValue] = field(default_factory=list)
    iterations: int = 0

    def value_of(self, move: Command) -> MoveValue | None:
        key = move_key(move)
        return next((m for m in self.moves if move_key(m.move) == key), None)


def move_key(move: Command) -> bytes:
    return orjson.dumps(move, option=orjson.OPT_SORT_KEYS)


def searchable(game: Game[Any]) -> bool:
    return search_hooks(game) is not None


def search(
    game: Game[Any],
    state: Any,
    seat: int,
    rng: random.Random,
    budget: Budget,
    *,
    observer: int | None | str = "seat",
    only: Command | None = None,
    track: Command | None = None,
    track_visits: int = 0,
    candidates: list[Command] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """Search ``seat``'s decision in ``state``. Samples are drawn from ``seat``'s information set
    (``observer="seat"``), or from another's (an int), or with every card known (``None``: a
    finished game's analysis, where only future chance is sampled). ``only``: the root's one move
    (the value of a given move: every iteration goes through it). ``track``: a root move whose
    value is wanted beside the best one's (the move played, as the analysis asks): once the budget
    is spent, further iterations go through it, in the same tree, until it has ``track_visits``
    visits, so one search answers what two would (the result's ``values`` are the root's before
    those extra iterations). ``candidates``: the moves the root searches between (a subset of the seat's
    legal moves, ``SearchHooks.expert_candidates``); None: every legal move."""
    determinize = game.determinize  # type: ignore[attr-defined]
    estimate = game.estimate  # type: ignore[attr-defined]
    advance = game.advance  # type: ignore[attr-defined]
    legal_moves = game.legal_moves
    playout_move = game.playout_move if budget.playout == "uniform" else game.guided_move  # type: ignore[attr-defined]
    awaiting_of = game.awaiting
    is_over = game.is_over
    seats = len(estimate(state))
    sampler = seat if observer == "seat" else observer
    root = Node(None, None, seats)
    c = budget.exploration
    rollout_moves = budget.rollout_moves
    randrange = rng.randrange
    sqrt, log = math.sqrt, math.log
    allowed = None if candidates is None else {bytes((seat,)) + move_key(move) for move in candidates}

    def iterate(forced: Command | None) -> None:
        sample = determinize(state, sampler, rng)
        node = root
        path = [root]
        # Selection and expansion.
        while not is_over(sample):
            awaiting = awaiting_of(sample)
            if not awaiting:
                break
            # At the root the searching seat decides first, whoever else is awaited with it.
            actor = seat if node is root and seat in awaiting else awaiting[0]
            moves = legal_moves(sample, actor)
            if node is root and forced is not None:
                moves = [forced]
            elif node is root and allowed is not None and actor == seat:
                moves = [move for move in moves if bytes((actor,)) + move_key(move) in allowed] or moves
            untried = []
            best_child = None
            best_score = -1.0
            tag = bytes((actor,))
            children = node.children
            for move in moves:
                key = tag + move_key(move) if len(moves) > 1 or node is root else tag
                child = children.get(key)
                if child is None:
                    untried.append((key, move))
                    continue
                child.available += 1
                visits = child.visits
                score = child.reward[actor] / visits + c * sqrt(log(child.available) / visits)
                if score > best_score:
                    best_score, best_child = score, child
            if untried:
                key, move = untried[randrange(len(untried))] if len(untried) > 1 else untried[0]
                child = Node(actor, move, seats)
                child.available = 1
                children[key] = child
                sample = advance(sample, actor, move)
                path.append(child)
                break
            assert best_child is not None and best_child.move is not None
            sample = advance(sample, actor, best_child.move)
            node = best_child
            path.append(node)
        # Playout.
        for _ in range(rollout_moves):
            if is_over(sample):
                break
            awaiting = awaiting_of(sample)
            if not awaiting:
                break
            mover = awaiting[0]
            sample = advance(sample, mover, playout_move(sample, mover, rng))
        reward = estimate(sample)
        for visited in path:
            visited.visits += 1
            totals = visited.reward
            for i in range(seats):
                totals[i] += reward[i]

    deadline = None if budget.seconds is None else clock() + budget.seconds
    done = 0
    while done < budget.iterations and (deadline is None or done == 0 or clock() < deadline):
        done += 1
        iterate(only)
    values = [root.mean(i) for i in range(seats)]
    # The best is the most visited before the extra iterations, which would otherwise crown the
    # tracked move by force.
    ranked = {id(child): child.visits for child in root.children.values()}
    if track is not None and only is None:
        tracked_key = bytes((seat,)) + move_key(track)
        for _ in range(track_visits):
            child = root.children.get(tracked_key)
            if child is not None and child.visits >= track_visits:
                break
            done += 1
            iterate(track)
    children = [child for child in root.children.values() if child.seat == seat and child.move is not None]
    children.sort(key=lambda ch: (-ranked.get(id(ch), 0), -ch.mean(seat)))
    moves = [
        MoveValue(ch.move, ch.visits, ch.mean(seat), [ch.mean(i) for i in range(seats)])  # type: ignore[arg-type]
        for ch in children
    ]
    best = moves[0].move if moves else legal_moves(state, seat)[0]
    return SearchResult(seat, best, values, moves, done)
