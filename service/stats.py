"""Statistics over finished games: one game, one player across the archive, a game's whole archive.
Each is computed by a job (``service.jobs``) on the data version it depends on; this module holds the
computations (the jobs' handlers) and what a request asks first (a finished result, else the job).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from games import get_game
from replays import stats
from service.archive import json_body
from service.jobs import JobProblem, JobService, Progress
from store import GameStore
from store.archive import Archive, index_key, load_log

# Facts computed for games not seen before are written back by batches of this many.
FACTS_BATCH = 200


class StatsService:
    """See the module docstring."""

    def __init__(self, store: GameStore, jobs: JobService | None = None):
        self._client = store.redis
        self.archive = Archive(store.redis)
        self.jobs = jobs or JobService(store)

    # -- what a request asks -----------------------------------------------------------------------

    def global_stats(self, game: str) -> str:
        """The job computing the statistics of ``game``'s whole archive (its id)."""
        return self.jobs.start("global-stats", {"game": game})

    def player_stats(self, name: str, game: str) -> str:
        """The job computing one player's statistics (names match case-insensitively)."""
        return self.jobs.start("player-stats", {"name": name.casefold(), "game": game})

    def game_stats(self, game_id: str) -> str:
        """The job computing one finished game's statistics."""
        return self.jobs.start("game-stats", {"game_id": game_id})

    # -- the jobs' handlers: (params, progress) -> (body, content type) ----------------------------

    def compute_game(self, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
        log = load_log(self._client, params["game_id"])
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
        players, overall = stats.PlayerStats(), stats.GlobalStats()
        for summary, facts in self._archived(index_key("game", name), name, progress):
            players.add(summary.get("players") or [], facts)
            overall.add(facts)
        table = players.result()
        leaders = sorted(table.items(), key=lambda item: (-item[1]["wins"], -item[1]["games"], item[0]))[:20]
        body = overall.result()
        body["game"] = name
        body["leaders"] = [
            {"name": n, "games": row["games"], "wins": row["wins"], "win_rate": row["win_rate"]}
            for n, row in leaders
        ]
        return json_body(body), "application/json"

    def compute_player(self, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
        name, game_name = params["name"], params["game"]
        get_game(game_name)
        players = stats.PlayerStats()
        wanted = name.casefold()
        display = None
        for summary, facts in self._archived(index_key("player", name), game_name, progress):
            # Names match case-insensitively ("Ann" and "ann" are one player); the result shows the
            # spelling of the most recent game.
            names = []
            for seat_name in summary.get("players") or []:
                same = bool(seat_name) and seat_name.casefold() == wanted
                names.append(wanted if same else None)
                if same and display is None:
                    display = seat_name
            players.add(names, facts)
        row = players.result().get(wanted)
        if row is None:
            raise JobProblem(
                404, "PLAYER_NOT_FOUND", f"No archived {game_name} game has a player named {name!r}"
            )
        row = dict(row, name=display or name, game=game_name)
        return json_body(row), "application/json"

    def _archived(
        self, key: str, game_name: str, progress: Progress
    ) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """(summary, facts) of every archived game of ``game_name`` in index ``key``, newest first.

        A finished game's facts never change, so they are kept (without the per-game ``detail``)
        the first time they are computed: statistics recomputed after a new game enters the archive
        read one small record per known game and the log of the new one only."""
        ids = self.archive.ids_in(key)
        if not ids:
            return
        game = get_game(game_name)
        summaries = self.archive.summaries(ids)
        ids = [game_id for game_id in ids if summaries.get(game_id, {}).get("game") == game_name]
        known = self.archive.known_facts(ids)
        missing = [game_id for game_id in ids if game_id not in known]
        total = max(1, len(ids))
        done = 0
        for game_id in ids:
            if game_id in known:
                done += 1
                yield summaries[game_id], known[game_id]
        if done:
            progress(done / total)
        fresh: dict[str, dict[str, Any]] = {}
        for game_id, events in self.archive.logs(missing):
            facts = stats.game_facts(game, events)
            facts.pop("detail", None)
            fresh[game_id] = facts
            done += 1
            yield summaries[game_id], facts
            progress(done / total)
            if len(fresh) >= FACTS_BATCH:
                self.archive.keep_facts(fresh)
                fresh = {}
        self.archive.keep_facts(fresh)
