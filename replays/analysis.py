"""Computer analysis of a finished game: per decision, the decider's chance to win before it, the
best move the search finds and its chance, the chance after the move played, the loss and a
judgement; per seat, an accuracy figure and the luck split. Pure: a log in, numbers out (the search
is ``bots/search.py``, SO-ISMCTS, through each game's ``games.base.SearchHooks``).

Two points of view, on purpose:

* **Judgements** are made from the decider's information set at the moment it decided (samples of
  what it could not see, never the real hands or the real future dice): a move is judged by what
  its player could know. One search of ``budget`` per decision gives the position's value (the
  root's), the best move (the root's most visited) and its value, and the played move's value:
  when the budget is spent, the search goes on through the played move, in the same tree, until
  it has ``PLAYED_SHARE`` of the budget's visits, so the loss compares two estimates of comparable
  effort from one tree (the most visited child's mean, not the highest mean, which is the maximum
  of noisy estimates and runs high and would call good moves mistakes).
* **The luck split** uses the real deals (the game is over, and only here): at every decision the
  full-information value of every seat (every card known, only the future's chance sampled), before
  the decision and after the move played, from a second search of the same kind (the root's values
  and the played move's); a game whose seats see everything but chance (``chance_only``) takes them
  from the first search, which is then the same. What a seat's value moved across a decision is the
  decision's doing, what it moved between one decision's after and the next one's before is what
  the draws and dice did. The two add up to the seat's result minus its value at the first decision.

Decisions with one legal move are not searched (nothing to judge, no value moved by a choice).

Judgements. A loss is the drop in the decider's win chance, best minus played. Lichess calls a drop
of 0.1, 0.2 and 0.3 (two players: fair share 0.5) an inaccuracy, a mistake and a blunder; here the
same share of the fair chance 1/n is used, so a blunder in a four-player game is a drop of 0.15, not
0.3 (more than half of what an average seat has at all). ``THRESHOLDS`` are those shares.

Accuracy. Lichess's move accuracy, ``103.1668 * exp(-0.04354 * loss%) - 3.1669`` clamped to 0..100,
from the loss rescaled to a two-player game (``loss * n / 2`` in percent), averaged over the seat's
judged decisions (a plain mean: Lichess also weights by volatility, which needs many more moves).

Stored form (``encode``/``decode``): one row of integers per judged decision, win chances in
thousandths, zlib-compressed JSON; the readable document is built from it and the log on reading.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import orjson

from bots.search import Budget, move_key, search
from games.base import Event, Game, decision_hooks, fold, search_hooks, text_hooks

# Bump when what is computed changes: a stored analysis of another version is redone.
ANALYSIS_VERSION = 5
# Shares of the fair chance 1/n: inaccuracy, mistake, blunder (see the module docstring).
THRESHOLDS = (("blunder", 0.6), ("mistake", 0.4), ("inaccuracy", 0.2))
# One or two searches per judged decision (see the module docstring); bench/analysis_speed.py times
# it. A game's own default (its ``analysis_budget``, ``default_budget``) comes first: a Rio de la
# Plata move costs several times a Condottiere one and its games have five times the decisions.
DEFAULT_BUDGET = Budget(iterations=100, rollout_moves=30)
# The played move's visits at least, as a share of the budget's iterations (see the docstring).
PLAYED_SHARE = 0.4
SCALE = 1000


@dataclass(frozen=True)
class Row:
    """One judged decision, chances in thousandths."""

    version: int  # events before the decision
    seat: int
    best_index: int  # the best move's index in legal_moves
    played_index: int
    before: int  # the decider's chance before, from its information set
    best: int  # after the best move
    after: int  # after the move played
    full_before: tuple[int, ...]  # every seat's full-information chance before the decision
    full_after: tuple[int, ...]  # ... and after the move played

    def pack(self) -> list[int]:
        return [
            self.version,
            self.seat,
            self.best_index,
            self.played_index,
            self.before,
            self.best,
            self.after,
            *self.full_before,
            *self.full_after,
        ]

    @classmethod
    def unpack(cls, row: Sequence[int], seats: int) -> Row:
        fixed = 7
        version, seat, best_index, played_index, before, best, after = row[:fixed]
        return cls(
            version,
            seat,
            best_index,
            played_index,
            before,
            best,
            after,
            tuple(row[fixed : fixed + seats]),
            tuple(row[fixed + seats : fixed + 2 * seats]),
        )


def _permille(value: float) -> int:
    return max(0, min(SCALE, round(value * SCALE)))


def analysable(game: Game[Any]) -> bool:
    return search_hooks(game) is not None and decision_hooks(game) is not None


def default_budget(game: Game[Any]) -> Budget:
    """The analysis budget per decision of ``game`` when the operator sets none."""
    hooks = search_hooks(game)
    if hooks is None:
        return DEFAULT_BUDGET
    iterations, rollout_moves, playout = hooks.analysis_budget
    return Budget(iterations=iterations, rollout_moves=rollout_moves, playout=playout)


def budget_for(game: Game[Any], budget: Budget | None) -> Budget:
    """The budget an analysis of ``game`` runs on: the operator's (``budget``), else the game's
    default; an operator's budget that names no playout policy takes the game's, which the game
    chose for what a whole game's analysis costs."""
    default = default_budget(game)
    if budget is None:
        return default
    if budget.playout is None:
        return replace(budget, playout=default.playout)
    return budget


def analyse(
    game: Game[Any],
    events: Sequence[Event],
    budget: Budget | None = None,
    seed: Any = 0,
    progress: Any = None,
    versions: Container[int] | None = None,
) -> list[Row]:
    """The judged decisions of a complete (FULL) log, ``verify_log``-valid, of a finished game
    (``versions``: only the decisions taken at those versions; ``progress(fraction)`` is told as
    it goes)."""
    budget = budget_for(game, budget)
    decisions = [d for d in game.decisions(events)]  # type: ignore[attr-defined]
    rows: list[Row] = []
    state = None
    applied = 0
    for number, (version, seat, command) in enumerate(decisions):
        state = fold(game, events[applied:version], state)
        applied = version
        if progress is not None:
            progress(number / max(1, len(decisions)))
        if versions is not None and version not in versions:
            continue
        moves = game.legal_moves(state, seat)
        if len(moves) < 2:
            continue
        keys = [move_key(m) for m in moves]
        played_key = move_key(command)
        if played_key not in keys:
            continue  # a spelling the rules accept but legal_moves does not list: left unjudged
        rng = random.Random(f"analysis/{seed}/{version}")
        visits = max(1, round(PLAYED_SHARE * budget.iterations))
        command = moves[keys.index(played_key)]  # as legal_moves spells it
        first = search(game, state, seat, rng, budget, track=command, track_visits=visits)
        best, played = first.moves[0], first.value_of(command)
        assert played is not None  # tracked: every sample allows the decider's own legal move
        full, full_played = first, played
        hooks = search_hooks(game)
        if hooks is None or not hooks.chance_only:
            full = search(game, state, seat, rng, budget, observer=None, track=command, track_visits=visits)
            tracked = full.value_of(command)
            assert tracked is not None
            full_played = tracked
        full_before, full_after = full.values, full_played.values
        rows.append(
            Row(
                version=version,
                seat=seat,
                best_index=keys.index(move_key(best.move)),
                played_index=keys.index(played_key),
                before=_permille(first.values[seat]),
                best=_permille(best.value),
                after=_permille(played.value),
                full_before=tuple(_permille(v) for v in full_before),
                full_after=tuple(_permille(v) for v in full_after),
            )
        )
    if progress is not None:
        progress(1.0)
    return rows


def encode(rows: Sequence[Row], seats: int) -> bytes:
    return zlib.compress(
        orjson.dumps({"v": ANALYSIS_VERSION, "n": seats, "rows": [r.pack() for r in rows]}), 9
    )


def decode(data: bytes) -> tuple[int, list[Row]]:
    document = orjson.loads(zlib.decompress(data))
    seats = document["n"]
    return seats, [Row.unpack(row, seats) for row in document["rows"]]


def judgement(loss: float, seats: int) -> str | None:
    fair = 1.0 / seats
    for name, share in THRESHOLDS:
        if loss >= share * fair - 1e-9:
            return name
    return None


def move_accuracy(loss: float, seats: int) -> float:
    """Lichess's accuracy of one move, from the loss rescaled to a two-player game."""
    percent = 100.0 * max(0.0, loss) * seats / 2.0
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * percent) - 3.1669))


def move_words(game: Game[Any]) -> Callable[[Mapping[str, Any]], str]:
    """A move as the game words it (its ``describe_move`` text hook: "play a 5"), else its JSON."""
    text = text_hooks(game)
    if text is not None:
        return cast(Callable[[Mapping[str, Any]], str], text.describe_move)
    return lambda move: orjson.dumps(move, option=orjson.OPT_SORT_KEYS).decode()


def document(game: Game[Any], events: Sequence[Event], rows: Sequence[Row], seats: int) -> dict[str, Any]:
    """The readable analysis: every judged decision (moves spelt out), each seat's accuracy,
    mistakes and luck split."""
    result = fold(game, events)
    outcome = game.result(result) if result is not None else None
    winners = list((outcome or {}).get("winners") or [])
    final = [(1.0 / len(winners) if s in winners else 0.0) if winners else 1.0 / seats for s in range(seats)]
    out_rows = []
    state = None
    applied = 0
    accuracy: list[list[float]] = [[] for _ in range(seats)]
    counts = [{"inaccuracy": 0, "mistake": 0, "blunder": 0} for _ in range(seats)]
    skill = [0.0] * seats
    luck = [0.0] * seats
    previous_after: tuple[float, ...] | None = None
    words = move_words(game)
    for row in rows:
        state = fold(game, events[applied : row.version], state)
        applied = row.version
        moves = game.legal_moves(state, row.seat)
        loss = max(0, row.best - row.after) / SCALE
        judged = judgement(loss, seats) if row.best_index != row.played_index else None
        accuracy[row.seat].append(move_accuracy(loss, seats))
        if judged:
            counts[row.seat][judged] += 1
        full_before = tuple(v / SCALE for v in row.full_before)
        full_after = tuple(v / SCALE for v in row.full_after)
        for s in range(seats):
            skill[s] += full_after[s] - full_before[s]
            if previous_after is not None:
                luck[s] += full_before[s] - previous_after[s]
        previous_after = full_after
        out_rows.append(
            {
                "version": row.version,
                "seat": row.seat,
                "before": row.before / SCALE,
                "best_move": moves[row.best_index],
                "best_text": words(moves[row.best_index]),
                "best": row.best / SCALE,
                "played": moves[row.played_index],
                "played_text": words(moves[row.played_index]),
                "after": row.after / SCALE,
                "loss": loss,
                "judgement": judged,
                "chances": list(full_before),
            }
        )
    if previous_after is not None:
        for s in range(seats):
            luck[s] += final[s] - previous_after[s]
    per_seat = [
        {
            "seat": s,
            "accuracy": round(sum(accuracy[s]) / len(accuracy[s]), 1) if accuracy[s] else None,
            "decisions": len(accuracy[s]),
            **counts[s],
            "decisions_moved": round(skill[s], 3),
            "luck": round(luck[s], 3),
            "result": final[s],
        }
        for s in range(seats)
    ]
    return {
        "analysis_version": ANALYSIS_VERSION,
        "thresholds": {name: round(share / seats, 4) for name, share in THRESHOLDS},
        "decisions": out_rows,
        "seats": per_seat,
    }
