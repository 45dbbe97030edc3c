"""Ratings: the update a rated game makes as it enters the archive, leaderboards,
histories, head-to-head, predictions and the recount.

Entering: :func:`enter_rated` reads the current ratings of the game's raters (one pipelined read),
computes every new rating (``replays.ratings.rate``) and hands the whole change to the archive's
entry script with the statistics (``store.archive.Archive.enter``). The script enters, counts and
rates the game in one atomic step, once (its engine set's ZADD NX marker), and only if every rating
the computation read is still at the ``games`` count it read (compare-and-set); otherwise nothing
is written and the update is computed again from the new ratings. So a retried or concurrent
archive step (the follow-up action, the janitor, the verify job) can never rate a game twice, and
two games sharing a player entering at once are rated one after the other. The cost is
O(seats) reads and writes per game, whatever the size of the archive (bench/ratings_calibration.py).

Who is rated and how: ``replays.ratings`` (its docstring). Ratings are kept per engine:
Condottiere's rulesets (2006, classic) share one, as the statistics do (the same cards and skills:
a player strong under one is strong under the other; the calibration bench can tell it apart if it
ever matters).

:func:`recount` rebuilds an engine's ratings from the archive's logs, in the order the incremental
updates took them (then by finish time for games rated before the order was kept), to the same
figures bit for bit (tests/archive/test_ratings.py). Entering must be paused meanwhile.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from games import game_names, get_game
from replays import ratings as model
from replays.ratings import Rating
from service.identity import fold_handle
from service.summaries import index_entry, summary_of
from store import parts
from store.archive import Archive, finished_ms
from store.archive_counts import Counts
from store.game_logs import GameLog
from store.ratings import RaterUpdate, RatingsMoved, RatingWrite

# Attempts at entering a game whose raters' ratings keep moving (each attempt is one read and one
# script; a rating moves only when another game of the same player enters at the same moment).
ENTER_ATTEMPTS = 20
BOARD_MOST = 100


def raters_of(log: GameLog) -> model.Raters:
    """Who ``log`` (a finished game, its metadata and events) rates (``replays.ratings.raters``),
    with the minimum of play its game declares (``replays.ratings.play_counted``)."""
    meta = log.meta
    count = int(meta.get("seat_count") or 0)
    result = log.result
    if meta.get("rated") == "false" and result is not None:
        result = {**result, "rated": False}  # a casual game (a challenge's choice): never rated
    minimum, played = 0, dict[int, int]()
    if meta.get("game") in game_names():
        config = orjson.loads(meta["config"]) if meta.get("config") else {}
        minimum, played = model.play_counted(get_game(meta["game"]), config, log.events)
    return model.raters(
        seat_count=count,
        kinds={s: meta.get(f"kind:{s}") for s in range(count)},
        bots={s: meta.get(f"bot:{s}") for s in range(count)},
        accounts={s: meta.get(f"account:{s}") for s in range(count)},
        result=result,
        prearranged=meta.get("prearranged") == "true",
        imported=meta.get("imported") == "1",
        events=log.events,
        deleted={s: meta.get(f"deleted:{s}") == "1" for s in range(count)},
        minimum=minimum,
        played=played,
    )


def priors_of(stored: Mapping[str, Any]) -> dict[str, Rating]:
    return {rater: Rating(r.mu, r.sigma, r.games) for rater, r in stored.items()}


def rating_write(log: GameLog, priors: Mapping[str, Rating]) -> RatingWrite | None:
    """The whole change of ratings ``log`` makes from ``priors`` (None: the game is not rated)."""
    who = raters_of(log)
    if not who.rated:
        return None
    winners = list((log.result or {}).get("winners") or [])
    after = model.rate(who.seats, priors, winners, who.left)
    finished = summary_of(log)["finished"]
    updates = [
        RaterUpdate(
            rater=rater,
            expected_games=(priors.get(rater) or Rating()).games,
            mu=rating.mu,
            sigma=rating.sigma,
            games=rating.games,
            ordinal=rating.ordinal,
        )
        for rater, rating in after.items()
        if not model.is_gone(rater)  # a deleted account's stand-in: its rating is kept nowhere
    ]
    pairs = [(a, b, x, y) for (a, b), (x, y) in model.head_to_head(who.seats, winners, who.left).items()]
    record = model.game_record(who.seats, priors, after, winners, finished, who.left)
    return RatingWrite(game=log.name, raters=updates, pairs=pairs, record=record)


def enter_rated(archive: Archive, log: GameLog, counts: Sequence[Counts]) -> tuple[bool, int]:
    """Enter ``log`` into the archive with its statistics ``counts`` and, when it is rated, its
    ratings, all in one atomic step, once (see the module docstring)."""
    entry = index_entry(summary_of(log))
    who = raters_of(log)
    if not who.rated:
        return archive.enter(entry, counts)
    store = parts.ratings(archive)
    for _ in range(ENTER_ATTEMPTS):
        priors = priors_of(store.ratings(log.name, who.seats))
        try:
            return archive.enter(entry, counts, rating_write(log, priors))
        except RatingsMoved:
            continue
    raise RatingsMoved(log.game_id)


def recount(archive: Archive, game: str, order: Mapping[str, int] | None = None) -> int:
    """Rebuild ``game``'s ratings from every archived log (see the module docstring), in the stored
    rating order, or in ``order`` (rated game id -> place) when given. Returns how many games were
    rated."""
    store = parts.ratings(archive)
    if order is None:
        order = store.rated_order(game)
    ids = archive.ids(newest_first=False)
    summaries = {game_id: summary_of(record) for game_id, record in archive.records(ids).items()}
    mine = [game_id for game_id in ids if summaries.get(game_id, {}).get("game") == game]
    unplaced = len(order)
    mine.sort(key=lambda g: (order.get(g, unplaced), finished_ms(summaries[g]["finished"]), g))
    store.reset(game)
    current: dict[str, Rating] = {}
    rated = 0
    for game_id, events in archive.logs(mine):
        meta = parts.load_meta(archive, game_id)
        if meta is None:
            continue
        log = GameLog(game_id=game_id, meta=meta.meta, events=events, snapshot=None)
        write = rating_write(log, current)
        if write is None:
            continue
        store.rewrite(game_id, write)
        current.update({u.rater: Rating(u.mu, u.sigma, u.games) for u in write.raters})
        rated += 1
    return rated


# A recount that saw games enter while it ran starts again, at most this many times in all.
RECOUNT_ATTEMPTS = 5


@dataclass(frozen=True)
class Recounted:
    """What :func:`recount_while_quiet` did for one engine."""

    game: str
    rated: int  # rated games the ratings were rebuilt from
    attempts: int  # recounts run (more than one: games entered while one ran)
    quiet: bool  # the archive did not change during the last one (its figures are exact)
    changed: bool  # the leaderboard differs from the one before (the incremental figures had drifted)


def recount_while_quiet(archive: Archive, game: str, attempts: int = RECOUNT_ATTEMPTS) -> Recounted:
    """:func:`recount`, for an operator (``python -m worker.ratings recount``): a game entering the
    archive during a recount may be rated from a half-rebuilt rating, so the recount runs again
    while the archive's version moved under it (then the late games are in the archive and in the
    stored order, and the next pass takes them as the incremental updates did). Idempotent: on a
    quiet archive a second run writes the very same figures (tests/archive/test_ratings_recount.py).
    Stopping the workers and the janitor first makes one pass enough."""
    store = parts.ratings(archive)
    board_before = store.board(game, store.board_size(game) or 1)
    # The order as the incremental updates left it, read once: a pass rewrites it, and a game that
    # entered during a pass took its place among the games rebuilt so far, not after them all.
    # Games absent from it (entered since) come after every game in it, by finish time.
    order = store.rated_order(game)
    rated, done, quiet = 0, 0, False
    while done < max(1, attempts) and not quiet:
        version = archive.version()
        rated = recount(archive, game, order)
        done += 1
        quiet = archive.version() == version
    board_after = store.board(game, store.board_size(game) or 1)
    return Recounted(game, rated, done, quiet, board_after != board_before)


def names_of(archive: Archive, raters: Iterable[str]) -> dict[str, str | None]:
    """Rater -> what to show: a bot's rater id, an account's handle (None: account deleted)."""
    every = list(dict.fromkeys(raters))
    wanted = [r for r in every if not model.is_bot(r) and not model.is_gone(r)]
    found: dict[str, str | None] = {r: r for r in every if model.is_bot(r)}
    found.update({r: None for r in every if model.is_gone(r)})
    found.update(zip(wanted, parts.accounts(archive).handles(wanted), strict=True))
    return found


def ratings_before(archive: Archive, game: str, game_id: str) -> list[dict[str, Any]] | None:
    """Each seat's player and rating before a rated game (the annotated export, the facts), else
    None. A function of the archive (no service): the facts' writer reads it in any process."""
    (record,) = parts.ratings(archive).records(game, [game_id])
    if record is None:
        return None
    seats = model.seats_before(record)
    names = names_of(archive, (seat["rater"] for seat in seats))
    return [{"player": names.get(seat.pop("rater")), **seat} for seat in seats]


class RatingService:
    """Reads of the ratings: leaderboards, a player's rating and history, head-to-head, predictions."""

    def __init__(self, archive: Archive):
        self.archive = archive
        self.store = parts.ratings(archive)
        self.accounts = parts.accounts(archive)

    # -- names ------------------------------------------------------------------------------------
    def rater_of(self, player: str) -> str | None:
        """The rater a player's name in a URL means: ``bot:<level>`` or an account's handle."""
        if model.is_bot(player):
            return player
        account_id = self.accounts.account_for_handle(fold_handle(player))
        if account_id is None or self.accounts.record(account_id) is None:
            return None
        return account_id

    def bots(self, raters: Iterable[str]) -> dict[str, bool]:
        """Rater -> whether it is a bot: a server bot level, or a bot account."""
        every = list(dict.fromkeys(raters))
        wanted = [r for r in every if not model.is_bot(r) and not model.is_gone(r)]
        found = {r: model.is_bot(r) for r in every}
        found.update(zip(wanted, parts.bot_accounts(self.archive).are_bots(wanted), strict=True))
        return found

    def names(self, raters: Iterable[str]) -> dict[str, str | None]:
        """Rater -> what to show: a bot's rater id, an account's handle (None: account deleted)."""
        return names_of(self.archive, raters)

    # -- reads ------------------------------------------------------------------------------------
    def leaderboard(self, game: str, top: int = 20) -> dict[str, Any]:
        top = max(1, min(top, BOARD_MOST))
        board = self.store.board(game, top)
        stored = self.store.ratings(game, [r for r, _ in board])
        names = self.names(r for r, _ in board)
        bots = self.bots(r for r, _ in board)
        rows = []
        for place, (rater, _) in enumerate(board, start=1):
            rating = priors_of(stored)[rater]
            rows.append({"place": place, "player": names.get(rater), "bot": bots[rater], **rating.shown()})
        return {"game": game, "players": self.store.board_size(game), "leaders": rows}

    def rating(self, game: str, rater: str) -> Rating:
        stored = self.store.ratings(game, [rater])
        return priors_of(stored).get(rater) or Rating()

    def history(self, game: str, player: str, limit: int = 50) -> dict[str, Any] | None:
        rater = self.rater_of(player)
        if rater is None:
            return None
        limit = max(1, min(limit, BOARD_MOST))
        ids = self.store.history(game, rater, -limit, -1)[::-1]  # newest first
        entries = [
            model.history_entry(game_id, game, rater, record)
            for game_id, record in zip(ids, self.store.records(game, ids), strict=True)
            if record is not None
        ]
        others = [o["rater"] for e in entries for o in e["against"]]
        names, bots = self.names(others), self.bots([rater, *others])
        for entry in entries:
            for other in entry["against"]:
                other["bot"] = bots[other["rater"]]
                other["player"] = names.get(other.pop("rater"))
        return {
            "game": game,
            "player": player,
            "bot": bots[rater],
            "rating": self.rating(game, rater).shown(),
            "history": entries,
        }

    def head_to_head(self, games: Sequence[str], first: str, second: str) -> dict[str, Any] | None:
        a, b = self.rater_of(first), self.rater_of(second)
        if a is None or b is None:
            return None
        rows = []
        for game in games:
            together = self.store.head_to_head(game, a, b)
            if together["games"]:
                ties = together["games"] - together["first_ahead"] - together["second_ahead"]
                rows.append({"game": game, **together, "ties": ties})
        return {"first": first, "second": second, "games": rows}

    def before(self, game: str, game_id: str) -> list[dict[str, Any]] | None:
        """Each seat's player and rating before a rated game (the annotated export), else None."""
        return ratings_before(self.archive, game, game_id)

    def predict(self, game: str, raters: Sequence[str | None]) -> list[float] | None:
        """Each seat's chance to win (``predict_win``) when every seat has a rater, else None."""
        if len(raters) < 2 or any(r is None for r in raters):
            return None
        known = [r for r in raters if r is not None]
        stored = priors_of(self.store.ratings(game, known))
        return model.predict_win([stored.get(r) or Rating() for r in known])

    def predict_for_meta(self, meta: Mapping[str, str]) -> list[float] | None:
        """:meth:`predict` for a game's seats as its metadata names them (bound accounts, bots)."""
        return self.predict(meta["game"], seat_raters(meta))

    def table(self, game_id: str, joining: str | None = None) -> dict[str, Any] | None:
        """Each seat's player and current rating (the browser's table and lobby), a finished rated
        game's ratings before and after, and while the game is not over ``predict_win`` when every
        seat has a rater; ``joining`` (a handle) takes the first free seat for that prediction, the
        chances of a game about to start if that player joins. None: no such game."""
        found = parts.load_meta(self.archive, game_id)
        if found is None:
            return None
        meta = found.meta
        game = meta["game"]
        raters = seat_raters(meta)
        known = [r for r in raters if r is not None]
        current = priors_of(self.store.ratings(game, known))
        finished = meta.get("status") == "finished"
        (record,) = self.store.records(game, [game_id]) if finished else (None,)
        names, bots = self.names(known), self.bots(known)
        seats: list[dict[str, Any]] = []
        for seat, rater in enumerate(raters):
            row: dict[str, Any] = {
                "seat": seat,
                "player": names.get(rater) if rater else None,
                "bot": bots[rater] if rater else False,
                "rating": (current.get(rater) or Rating()).shown() if rater else None,
            }
            if record is not None and seat < len(record["seats"]):
                entry = model.history_entry(game_id, game, record["seats"][seat]["rater"], record)
                row["before"], row["after"] = entry["before"], entry["after"]
            seats.append(row)
        answer: dict[str, Any] = {
            "game_id": game_id,
            "game": game,
            "status": meta.get("status"),
            "seats": seats,
        }
        if finished:
            answer["rated"] = record is not None
            return answer
        prospective = list(raters)
        joiner = self.rater_of(joining) if joining else None
        if joiner is not None and joiner not in prospective and None in prospective:
            prospective[prospective.index(None)] = joiner
            answer["joining_seat"] = raters.index(None)
        chances = self.predict(game, prospective)
        if chances is not None:
            answer["predict_win"] = chances
        return answer


def seat_raters(meta: Mapping[str, str]) -> list[str | None]:
    """Each seat's rater as a game's metadata names it: a server bot's level, a bound account, else
    None (a free or anonymous seat)."""
    count = int(meta.get("seat_count") or 0)
    raters: list[str | None] = []
    for seat in range(count):
        level = meta.get(f"bot:{seat}")
        if meta.get(f"kind:{seat}") == "bot" and level:
            raters.append(model.bot_rater(level))
        else:
            raters.append(meta.get(f"account:{seat}") or None)
    return raters
