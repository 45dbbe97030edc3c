"""Statistics over finished games: one game, one player across the archive, a game's whole archive.
Each is computed by a job (``service.jobs``) on the data version it depends on; this module holds the
computations (the jobs' handlers) and what a request asks first (a finished result, else the job).
Player and global statistics read the aggregates each archived game updates (``service.aggregates``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from games import game_names, get_game
from replays import stats
from service import aggregates
from service.archive import json_body
from service.fact_queries import FactQueries
from service.facts import fact_store
from service.filters import Filters
from service.jobs import JobProblem, JobService, Progress
from service.observation_stream import matching_ids, observation_stream
from store import GameStore, parts
from store.facts import FactStore


class StatsService:
    """See the module docstring."""

    def __init__(self, store: GameStore, jobs: JobService):
        self._store = store
        self.archive = parts.archive(store, engines=game_names())
        self.jobs = jobs
        # Under filters, and the explorer: the analytical store, answered at once
        self.facts = FactQueries(fact_store)

    def observations(self, game: str, filters: Filters, limit: int | None) -> Iterator[bytes]:
        """The streamed observation export of ``game``'s archived games ``filters`` match
        (``service.observation_stream``): gzipped NDJSON chunks, any number of games."""
        ids = matching_ids(self.facts, game, filters, limit)
        return observation_stream(ids, lambda game_id: parts.load_log(self._store, game_id))

    def facts_store(self) -> FactStore:
        """The analytical store the filtered statistics read (its files are the download)."""
        return fact_store()

    # -- what a request asks -----------------------------------------------------------------------

    def global_stats(self, game: str) -> str:
        """The job computing the statistics of ``game``'s whole archive (its id)."""
        return self.jobs.start("global-stats", {"game": game})

    def player_stats(self, name: str, game: str) -> str:
        """The job computing one player's statistics (names match case-insensitively)."""
        return self.jobs.start("player-stats", {"name": name.casefold(), "game": game})

    def account_stats(self, account_id: str, handle: str, game: str) -> dict[str, Any]:
        """One account's statistics, read from its aggregates at once (one HGETALL)."""
        get_game(game)
        return aggregates.account_stats(self.archive, game, account_id, handle)

    def game_stats(self, game_id: str) -> str:
        """The job computing one finished game's statistics."""
        return self.jobs.start("game-stats", {"game_id": game_id})

    # -- the jobs' handlers: (params, progress) -> (body, content type) ----------------------------

    def compute_game(self, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
        log = parts.load_log(self._store, params["game_id"])
        if log is None:
            raise JobProblem(404, "GAME_NOT_FOUND", "No such game")
        if not log.finished:
            raise JobProblem(409, "GAME_NOT_FINISHED", "Statistics are computed for finished games only")
        facts = stats.per_game(get_game(log.name), log.events, log.players)
        facts["game_id"] = log.game_id
        return json_body(facts), "application/json"

    def compute_global(self, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
        name = params["game"]
        get_game(name)  # the API accepts registered game names only
        # Kept as aggregates, updated once per archived game (service.aggregates): no log is read
        return json_body(aggregates.global_stats(self.archive, name)), "application/json"

    def compute_player(self, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
        name, game_name = params["name"], params["game"]
        get_game(game_name)
        # Names match case-insensitively ("Ann" and "ann" are one player); the result shows the
        # spelling of the most recent game.
        row = aggregates.player_stats(self.archive, game_name, name)
        if row is None:
            raise JobProblem(
                404, "PLAYER_NOT_FOUND", f"No archived {game_name} game has a player named {name!r}"
            )
        return json_body(row), "application/json"
