"""Multiplayer ratings: who is rated in a finished game, and the rating arithmetic.

Pure functions: no Redis. ``store.ratings`` keeps the figures, ``service.ratings`` reads the seats'
ratings, computes the update here and hands it to the archive's entry script, which writes it in
the same atomic step that counts the game once.

The model is openskill's Plackett-Luce (Weng-Lin): a Bayesian rating for free-for-all games of any
number of sides, which two-player Elo and Glicko are not. Each seat is a team of one; ties are
equal ranks. A rating is (mu, sigma); it is shown as its ordinal mu - 3 sigma (a conservative
figure: 99.7 % of the belief lies above it), marked provisional until ``PROVISIONAL_GAMES`` games.

Ranks: the engines' results name the winners only (``games.base.Game.result``), so the winners
share rank 1 and every other seat ties at rank 2. Finer placings (Rio's victory points, the regions
each Condottiere seat held) would need an engine hook, since nothing outside ``games/<name>/`` may
read a game's result fields; with them the update would carry more information per game.

Who is rated (:func:`raters`), decided here so the archive step, the recount and the bench agree:
a game counts only when every seat is bound to an account or is a server bot from its creation to
its end, or was bound to an account and left it. Not counted: a result with ``rated: false`` (an
abort), a prearranged game (its creator could know every hand), an imported log (its seats are
typed names, nobody's account), any anonymous seat (a rating against a seat that belongs to nobody
could be farmed by playing oneself), and a game with too little real play: every seat must have
made the game's minimum of decisions of its own (``games.base.RatingHooks.rated_decisions``,
counted by :func:`play_counted` through ``games.base.DecisionHooks``; a leaver's count stops where
it left), so two accounts creating a game and resigning at once rate nothing, and neither does a
seat idle from its first turn (that counts like an abort). A server bot is one pseudo-account per
level and game: ``bot:<level>``. When one rater holds several seats (two ``random`` bots at one
table: an account cannot, the claim refuses it), each seat is rated from the same prior and the
rater takes the sum of the seats' changes of mu and of precision (1/sigma^2): independent evidence
adds, as if the seats had been games of their own.

Leaving (Board Game Arena's rule): a seat handed to a bot, after too many timeouts or because its
account was deleted (``seat_handed_to_bot`` in the log), takes last place whatever its bot did
after, and the game stays rated for everybody: the leaver is rated as the account that held the
seat, and a deleted account, whose rating is gone with it, as :func:`gone_rater` (an unrated
stand-in at the default rating, written nowhere) so the others' ratings still move.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from openskill.models import PlackettLuce

from games.base import Event, Game, decision_hooks, rating_hooks

PROVISIONAL_GAMES = 10
BOT_PREFIX = "bot:"
GONE_PREFIX = "gone:"  # the stand-in of a deleted account's seat (account ids are hex: no clash)
SEAT_HANDED_TO_BOT = "seat_handed_to_bot"  # games.base.SEAT_HANDED_TO_BOT, read from event JSON

MODEL = PlackettLuce()
DEFAULT_MU: float = MODEL.mu
DEFAULT_SIGMA: float = MODEL.sigma


@dataclass(frozen=True)
class Rating:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    def shown(self) -> dict[str, Any]:
        return {
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "ordinal": round(self.ordinal, 4),
            "games": self.games,
            "provisional": self.provisional,
        }


def bot_rater(level: str) -> str:
    return f"{BOT_PREFIX}{level}"


def is_bot(rater: str) -> bool:
    return rater.startswith(BOT_PREFIX)


def gone_rater(seat: int) -> str:
    return f"{GONE_PREFIX}{seat}"


def is_gone(rater: str) -> bool:
    return rater.startswith(GONE_PREFIX)


@dataclass(frozen=True)
class Raters:
    """Who a game rates: ``seats[s]`` is seat s's rater id, or ``reason`` says why nobody."""

    seats: tuple[str, ...]
    reason: str | None = None
    left: frozenset[int] = frozenset()  # seats that left the game: last place

    @property
    def rated(self) -> bool:
        return self.reason is None


def left_seats(events: Sequence[Mapping[str, Any]]) -> dict[int, int]:
    """Seat -> the index of the event that handed it to a bot (its first), for every seat that left."""
    left: dict[int, int] = {}
    for index, event in enumerate(events):
        seat = event.get("seat")
        if event.get("type") == SEAT_HANDED_TO_BOT and isinstance(seat, int):
            left.setdefault(seat, index)
    return left


def play_counted(
    game: Game[Any], config: Mapping[str, Any], events: Sequence[Mapping[str, Any]]
) -> tuple[int, dict[int, int]]:
    """The game's minimum of decisions per seat (0 when it declares none) and each seat's own
    decisions, a leaver's only before it left; the count stops once every seat has the minimum."""
    rating = rating_hooks(game)
    if rating is None:
        return 0, {}
    minimum = int(rating.rated_decisions(config))
    decisions = decision_hooks(game)
    find = decisions.decisions if decisions is not None else None
    counts: dict[int, int] = {}
    if minimum <= 0 or find is None:
        return minimum, counts
    left = left_seats(events)
    seats = game.seat_count(dict(config))
    for index, seat, _ in find(cast("list[Event]", list(events))):
        if seat in left and index >= left[seat]:
            continue
        counts[seat] = counts.get(seat, 0) + 1
        if len(counts) == seats and min(counts.values()) >= minimum:
            break
    return minimum, counts


def raters(
    *,
    seat_count: int,
    kinds: Mapping[int, str | None],
    bots: Mapping[int, str | None],
    accounts: Mapping[int, str | None],
    result: Mapping[str, Any] | None,
    prearranged: bool,
    imported: bool,
    events: Sequence[Mapping[str, Any]],
    deleted: Mapping[int, bool] | None = None,
    minimum: int = 0,
    played: Mapping[int, int] | None = None,
) -> Raters:
    """The rater of each seat of a finished game, or why the game is not rated (module docstring).
    ``deleted``: the seats whose account was deleted; ``minimum`` and ``played``: :func:`play_counted`."""
    if result is None or result.get("rated") is False:
        return Raters((), "unrated_result")
    if prearranged:
        return Raters((), "prearranged")
    if imported:
        return Raters((), "imported")
    left = left_seats(events)
    seats: list[str] = []
    for seat in range(seat_count):
        account, level = accounts.get(seat), bots.get(seat)
        if seat in left and account:
            seats.append(account)
        elif seat in left and (deleted or {}).get(seat):
            seats.append(gone_rater(seat))
        elif seat in left:
            return Raters((), "anonymous_seat")  # nobody's seat left: nobody to rate in its place
        elif kinds.get(seat) == "bot" and level:
            seats.append(bot_rater(level))
        elif account:
            seats.append(account)
        else:
            return Raters((), "anonymous_seat")
    if seat_count < 2:
        return Raters((), "one_seat")
    if any((played or {}).get(seat, 0) < minimum for seat in range(seat_count)):
        return Raters((), "too_little_play")
    return Raters(tuple(seats), left=frozenset(left))


def ranks_of(seat_count: int, winners: Sequence[int], left: Iterable[int] = ()) -> list[int]:
    """Winners share rank 1, every other seat rank 2, and seats that left share last place, 3,
    whatever their bot did after (see the module docstring)."""
    gone = set(left)
    won = set(winners) - gone
    return [3 if seat in gone else 1 if seat in won else 2 for seat in range(seat_count)]


def rate(
    seats: Sequence[str], priors: Mapping[str, Rating], winners: Sequence[int], left: Iterable[int] = ()
) -> dict[str, Rating]:
    """Every rater's rating after one game (``seats[s]``: seat s's rater; ``priors``: the ratings
    before; a rater missing from it starts at the model's default; ``left``: seats that left)."""
    before = [priors.get(rater) or Rating() for rater in seats]
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    ranks = ranks_of(len(seats), winners, left)
    rated = MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    delta_mu: dict[str, float] = {}
    delta_precision: dict[str, float] = {}
    for rater, prior, (after,) in zip(seats, before, rated, strict=True):
        delta_mu[rater] = delta_mu.get(rater, 0.0) + (after.mu - prior.mu)
        change = 1 / after.sigma**2 - 1 / prior.sigma**2
        delta_precision[rater] = delta_precision.get(rater, 0.0) + change
    out: dict[str, Rating] = {}
    for rater in delta_mu:
        prior = priors.get(rater) or Rating()
        precision = 1 / prior.sigma**2 + delta_precision[rater]
        sigma = 1 / math.sqrt(precision) if precision > 0 else prior.sigma
        out[rater] = Rating(mu=prior.mu + delta_mu[rater], sigma=sigma, games=prior.games + 1)
    return out


def predict_win(ratings: Sequence[Rating]) -> list[float]:
    """Each seat's chance to win (summing to 1) from its rating (openskill's ``predict_win``)."""
    if len(ratings) < 2:
        return [1.0] * len(ratings)
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    return [float(p) for p in MODEL.predict_win(teams)]


def _figures(rating: Rating) -> list[float | int]:
    return [rating.mu, rating.sigma, rating.games]


def _rating(figures: Sequence[Any]) -> Rating:
    return Rating(float(figures[0]), float(figures[1]), int(figures[2]))


def game_record(
    seats: Sequence[str],
    priors: Mapping[str, Rating],
    after: Mapping[str, Rating],
    winners: Sequence[int],
    finished: str,
    left: Iterable[int] = (),
) -> dict[str, Any]:
    """What is kept of one rated game, once for all its seats: per seat its rater, rank, and the
    rater's rating before and after (``[mu, sigma, games]``). Each rater's history lists only the
    game's id (:func:`history_entry` rebuilds the entry), so a game of n seats is not kept n times."""
    ranks = ranks_of(len(seats), winners, left)
    return {
        "finished": finished,
        "seats": [
            {
                "rater": rater,
                "rank": ranks[seat],
                "before": _figures(priors.get(rater) or Rating()),
                "after": _figures(after[rater]),
            }
            for seat, rater in enumerate(seats)
        ],
    }


def history_entry(game_id: str, game: str, rater: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """``rater``'s entry for one rated game (its :func:`game_record`): before and after, its seats
    and rank, and whom it was rated against (each other seat's rater, rank and ordinal before the
    game), so a change can be explained."""
    seats = record["seats"]
    mine = [seat for seat, row in enumerate(seats) if row["rater"] == rater]
    first = seats[mine[0]]
    return {
        "game_id": game_id,
        "game": game,
        "finished": record["finished"],
        "seats": mine,
        "rank": min(seats[seat]["rank"] for seat in mine),
        "before": _rating(first["before"]).shown(),
        "after": _rating(first["after"]).shown(),
        "against": [
            {
                "seat": other,
                "rater": row["rater"],
                "rank": row["rank"],
                "ordinal": round(_rating(row["before"]).ordinal, 4),
            }
            for other, row in enumerate(seats)
            if row["rater"] != rater
        ],
    }


def seats_before(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each seat's rater and rating before the game (the annotated export's ``ratings_before``)."""
    return [{"rater": row["rater"], **_rating(row["before"]).shown()} for row in record["seats"]]


def head_to_head(
    seats: Sequence[str], winners: Sequence[int], left: Iterable[int] = ()
) -> dict[tuple[str, str], tuple[int, int]]:
    """For each pair (a, b) of distinct raters (a < b) at the table: (1 when a finished ahead of b,
    1 when b finished ahead of a); neither when they tied. A deleted account's stand-in is in none."""
    ranks = ranks_of(len(seats), winners, left)
    best: dict[str, int] = {}
    for rater, rank in zip(seats, ranks, strict=True):
        if not is_gone(rater):
            best[rater] = min(rank, best.get(rater, rank))
    pairs: dict[tuple[str, str], tuple[int, int]] = {}
    names = sorted(best)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            pairs[(a, b)] = (int(best[a] < best[b]), int(best[b] < best[a]))
    return pairs
