"""Computer analysis of finished games: asked for through the API, computed by a job on the
``analysis`` queue (``service.jobs``), stored once per game and rules revision (``store.analysis``),
read back as a document (``replays.analysis``).

Hidden information: a game that is not finished has no analysis: asking is refused (409) before
anything is looked up or started, since the luck split reads the real deals and every value depends
on hands its seats cannot see. A stored analysis is keyed by the engine's rules revision and the
analysis' own version: when either changes, the next request computes it again; until then a
request returns the stored one and starts nothing (so asking twice runs once: a request made
while the job runs joins it, ``JobService.start``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import orjson

from bots.search import Budget
from games import get_game
from replays import analysis
from service.jobs import JobProblem, JobService, Progress
from store import GameStore, parts

# Requests that start a job, per signed-in account and hour (a stored analysis costs nothing and is
# not counted): a 4-player game costs minutes of a core.
REQUESTS_PER_HOUR = 10
KIND = "analysis"


class AnalysisRefused(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class AnalysisService:
    def __init__(self, store: GameStore, jobs: JobService, budget: Budget | None = None):
        """Built by ``service.composition`` (``budget``: the operator's, in the job workers)."""
        self.store = store
        self.jobs = jobs
        self.analyses = parts.analyses(store)
        self._budget = budget

    @property
    def budget(self) -> Budget | None:
        """The operator's search budget per decision, or None: each game's default
        (``analysis.default_budget``, read when used)."""
        return self._budget

    @staticmethod
    def revision(game_name: str) -> str:
        """What a stored analysis must have been made under to be served."""
        game = get_game(game_name)
        return f"a{analysis.ANALYSIS_VERSION}/r{getattr(game, 'rules_revision', 1)}"

    def _finished(self, game_id: str) -> str:
        meta = parts.load_meta(self.store, game_id)
        if meta is None:
            raise AnalysisRefused(404, "GAME_NOT_FOUND", "No such game")
        if not meta.finished:
            raise AnalysisRefused(409, "GAME_NOT_FINISHED", "A game is analysed once it is over")
        if not analysis.analysable(get_game(meta.name)):
            raise AnalysisRefused(409, "NOT_ANALYSABLE", f"{meta.name} games cannot be analysed")
        return meta.name

    def request(self, game_id: str, account_id: str | None) -> str | None:
        """The job computing ``game_id``'s analysis, or None when it is stored already."""
        name = self._finished(game_id)
        revision = self.revision(name)
        if self.analyses.get(game_id, revision) is not None:
            return None
        hour = int(time.time() // 3600)
        if account_id is not None and self.analyses.count_request(account_id, hour) > REQUESTS_PER_HOUR:
            self.analyses.uncount_request(account_id, hour)
            raise AnalysisRefused(
                429,
                "ANALYSIS_LIMIT",
                f"At most {REQUESTS_PER_HOUR} analyses may be started per account and hour",
            )
        return self.jobs.start(KIND, {"game_id": game_id, "revision": revision})

    def document(self, game_id: str) -> dict[str, Any] | None:
        """The stored analysis as a document; None when there is none for the current revision."""
        name = self._finished(game_id)
        data = self.analyses.get(game_id, self.revision(name))
        if data is None:
            return None
        log = parts.load_log(self.store, game_id)
        assert log is not None, "the game was found a moment ago"
        seats, rows = analysis.decode(data)
        body = analysis.document(get_game(name), log.events, rows, seats)
        return {"game_id": game_id, "game": name, "stored_bytes": len(data), **body}

    def compute(self, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
        """The job: analyse the game and store the result in one write (a killed run stores nothing
        and is run again)."""
        game_id = params["game_id"]
        try:
            name = self._finished(game_id)
        except AnalysisRefused as refused:
            raise JobProblem(refused.status, refused.code, refused.message) from None
        revision = self.revision(name)
        if self.analyses.get(game_id, revision) is None:
            log = parts.load_log(self.store, game_id)
            assert log is not None
            game = get_game(name)
            rows = analysis.analyse(game, log.events, self.budget, seed=game_id, progress=progress)
            seats = game.seat_count(log.events[0]["config"])
            self.analyses.put(game_id, revision, analysis.encode(rows, seats))
        summary = {"game_id": game_id, "revision": revision, "bytes": self.analyses.size(game_id)}
        return orjson.dumps(summary), "application/json"
