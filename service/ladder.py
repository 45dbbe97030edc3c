"""The bot ladder: a standing tournament of the bot accounts online, so a bot's author sees where
the bot stands and the server's own levels are placed on the same scale.

One ladder per configured game (:class:`LadderSettings`; by default Condottiere at 3 players). On
every janitor tick (:meth:`LadderService.tick`):

1. **settle**: each ladder game that has finished is tallied (games, wins) once, and its bot
   accounts are free again;
2. **pair**: the bot accounts online (an open ``/v1/me/stream``: ``service.bot_accounts``) that are in
   no ladder game are sorted by rating and cut into tables of ``players - 1`` (closest ratings
   together; a last group smaller than ``min_bots`` waits for the next tick); every table's other
   seats are the server's levels, taken in turn, so every table carries at least one level and the
   levels' ratings (``bot:<level>``, ``replays.ratings``) anchor the bots' on one scale. Ladder games
   are rated and have a clock, so a bot that goes away loses its seat to a server bot (RL-X19)
   instead of holding its table forever.

Crash-safe as the tournaments are: a pairing is recorded in one script with its bots marked busy and
the follow-up ``ladder`` in the ladder's outbox (``store.ladder``); the follow-up creates the game of
every pairing still starting, under an id derived from the ladder and the pairing's number, only
if absent (``store.bound_games``). A tick killed after the pairing leaves the follow-up for the
janitor; a tick run twice finds the bots busy (and the number taken) and pairs nothing; a follow-up
run twice finds the game made.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bots import levels as bot_levels
from games import get_game
from replays.ratings import Rating, bot_rater, is_bot, left_seats, ranks_of
from service import clocks
from service.bound_tables import start_table
from service.faults import fault_point
from service.games import new_seed, start_meta
from service.ids import derived_game_id
from service.ports import GameAccess
from service.ratings import names_of, priors_of
from store import parts
from store.ladder import ACTION, OUTBOX_ID, LadderStore

log = logging.getLogger(__name__)

MOST_ONLINE = 200


@dataclass(frozen=True)
class LadderSettings:
    game: str = "condottiere"
    players: int = 3
    levels: tuple[str, ...] = ("random", "heuristic", "expert")
    min_bots: int = 2  # bot accounts at a table at least (the others' seats: levels)
    clock: Mapping[str, Any] = field(default_factory=lambda: {"move_seconds": 60, "timeouts_to_bot": 3})


DEFAULT_LADDERS: tuple[LadderSettings, ...] = (LadderSettings(),)


def ladders_from_text(text: str) -> tuple[LadderSettings, ...]:
    """The janitor's ``LADDERS`` setting: comma-separated ``<game>:<players>`` (empty: no ladder)."""
    found = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        game, _, players = item.partition(":")
        found.append(LadderSettings(game=game, players=int(players or 3), levels=tuple(bot_levels(game))))
    return tuple(found)


def pairing_game_id(game: str, number: int) -> str:
    """The game of pairing ``number`` of ``game``'s ladder: the same id at every attempt."""
    return derived_game_id(f"ladder:{game}:{number}")


def tables(ordered: Sequence[str], per_table: int, min_bots: int) -> list[list[str]]:
    """Consecutive groups of ``per_table`` (closest ratings together), the last one kept only if it
    has ``min_bots``."""
    groups = [list(ordered[i : i + per_table]) for i in range(0, len(ordered), per_table)]
    return [g for g in groups if len(g) >= max(1, min_bots)]


def seats_of(
    bots: Sequence[Mapping[str, str]], levels: Sequence[str], players: int, number: int
) -> list[dict[str, str]]:
    """The table's seats: its bots, then levels taken in turn from ``number``, rotated by ``number``
    so the first seat goes round."""
    seats = [dict(b) for b in bots]
    seats += [{"level": levels[(number - 1 + i) % len(levels)]} for i in range(players - len(bots))]
    for seat in seats:
        seat.setdefault("name", seat.get("level", ""))
    shift = (number - 1) % players
    return seats[shift:] + seats[:shift]


def rater_of(seat: Mapping[str, str]) -> str:
    return bot_rater(seat["level"]) if seat.get("level") else seat["account"]


class LadderService:
    def __init__(self, games: GameAccess, ladders: Sequence[LadderSettings] = DEFAULT_LADDERS):
        self.games = games
        self.ladders = {ladder.game: ladder for ladder in ladders}
        self.store: LadderStore = parts.ladder(games.store)

    # -- the janitor's tick ---------------------------------------------------------------------------
    def tick(self) -> dict[str, int]:
        report = {"settled": self.settle(), "paired": 0}
        if self.ladders:
            report["paired"] = sum(self.pair(ladder) for ladder in self.ladders.values())
        return report

    def settle(self) -> int:
        """Tally every finished ladder game once and free its bots."""
        settled = 0
        names = self.store.open()
        for name, pairing in self.store.pairings(names).items():
            found = parts.load_log(self.games.store, pairing["game_id"])
            if found is None or not found.finished:
                continue
            seats = pairing["seats"]
            winners = [int(s) for s in (found.result or {}).get("winners") or []]
            ranks = ranks_of(len(seats), winners, left_seats(found.events))
            won: dict[str, bool] = {}
            for seat, entry in enumerate(seats):
                rater = rater_of(entry)
                won[rater] = won.get(rater, False) or ranks[seat] == 1
            bots = [s["account"] for s in seats if not s.get("level")]
            if self.store.settle(pairing["game"], name, won, bots) == "settled":
                settled += 1
        return settled

    def pair(self, ladder: LadderSettings) -> int:
        """Pair the free bot accounts online into ladder games (the module's docstring)."""
        now = int(time.time() * 1000)
        busy = self.store.busy()
        online = [
            b for b in parts.bot_accounts(self.games.store).online_ids(now, MOST_ONLINE) if b not in busy
        ]
        if len(online) < ladder.min_bots:
            return 0
        ratings = priors_of(parts.ratings(parts.archive(self.games.store)).ratings(ladder.game, online))
        ordered = sorted(online, key=lambda b: (-(ratings.get(b) or Rating()).ordinal, b))
        handles = dict(zip(ordered, parts.accounts(self.games.store).handles(ordered), strict=True))
        paired = 0
        for group in tables(ordered, ladder.players - 1, ladder.min_bots):
            number = self.store.last_number(ladder.game) + 1
            bots = [{"account": b, "name": handles.get(b) or b} for b in group]
            pairing = {
                "game": ladder.game,
                "number": number,
                "game_id": pairing_game_id(ladder.game, number),
                "seats": seats_of(bots, ladder.levels, ladder.players, number),
                "clock": clocks.control(dict(ladder.clock), bot_levels(ladder.game)),
            }
            if self.store.pair(ladder.game, number, pairing, group) != "paired":
                break  # another pass paired first: the next tick sees what it did
            paired += 1
            fault_point("after_ladder_pairing")  # tests/faults: paired, its game not made yet
            self.games.followups.run(OUTBOX_ID, {ACTION: f"{ladder.game}:{number}"})
        return paired

    # -- reads ------------------------------------------------------------------------------------------
    def standings(self, game: str) -> dict[str, Any] | None:
        """The ladder's standings: every bot account that played it and the server's levels, on
        one rating scale (the game's ratings), best ordinal first; and its games in play."""
        ladder = self.ladders.get(game)
        if ladder is None:
            return None
        tallies = self.store.tallies(game)
        raters = list(dict.fromkeys([*(bot_rater(level) for level in ladder.levels), *tallies]))
        archive = parts.archive(self.games.store)
        ratings = priors_of(parts.ratings(archive).ratings(game, raters))
        names = names_of(archive, raters)
        rows: list[dict[str, Any]] = []
        for rater in raters:
            rating = ratings.get(rater) or Rating()
            tally = tallies.get(rater)
            rows.append(
                {
                    "player": names.get(rater),
                    "level": rater[len(bot_rater("")) :] if is_bot(rater) else None,
                    "rating": rating.shown(),
                    "games": tally.games if tally else 0,
                    "wins": tally.wins if tally else 0,
                }
            )
        rows.sort(key=lambda r: (-r["rating"]["ordinal"], str(r["player"])))
        for place, row in enumerate(rows, start=1):
            row["place"] = place
        playing = [p for p in self.store.pairings(self.store.open()).values() if p["game"] == game]
        return {
            "game": game,
            "players": ladder.players,
            "levels": list(ladder.levels),
            "standings": rows,
            "playing": [
                {"game_id": p["game_id"], "number": p["number"], "players": [s["name"] for s in p["seats"]]}
                for p in sorted(playing, key=lambda p: int(p["number"]))
            ],
        }


# -- the follow-up ------------------------------------------------------------------------------------


def ladder_followup(service: GameAccess, target: str, value: str) -> bool:
    """The ``ladder`` action of the ladder's outbox: create the game of every pairing still
    starting (each once: a derived id, created only if absent), then mark it started."""
    store = parts.ladder(service.store)
    names = store.starting()
    for name, pairing in store.pairings(names).items():
        start_game(service, pairing)
        fault_point("after_ladder_game")
        store.started(name)
    return True


def start_game(service: GameAccess, pairing: Mapping[str, Any]) -> str:
    game_id = str(pairing["game_id"])
    game = get_game(pairing["game"])
    seats = {i: dict(s) for i, s in enumerate(pairing["seats"])}
    config = game.configure({"players": len(seats), "seed": new_seed()})
    ladder = f"{pairing['game']}:{pairing['number']}"
    meta = start_meta(
        game, config, game_id, len(seats), rated=True, clock=pairing.get("clock"), more={"ladder": ladder}
    )
    start_table(service, game_id, config, seats, meta)
    return game_id
