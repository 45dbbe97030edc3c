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
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from bots.search import Budget
from games import get_game
from games.base import Event, revision_hooks
from replays import analysis
from service.jobs import JobProblem, JobService, NoSuchGame, Progress
from store import GameStore, parts

# Requests that start a job, per signed-in account and hour (a stored analysis costs nothing and is
# not counted): a 4-player game costs minutes of a core.
REQUESTS_PER_HOUR = 10
KIND = "analysis"
# How far back the idle scan looks, newest first, for a game to analyse: each entry costs one
# GETRANGE, and a deeper archive is reached as the newer entries get their analyses.
IDLE_SCAN = 500


def revision(game_name: str) -> str:
    """What a stored analysis must have been made under to be served."""
    revisions = revision_hooks(get_game(game_name))
    return f"a{analysis.ANALYSIS_VERSION}/r{revisions.rules_revision if revisions is not None else 1}"


def stored_document(
    store: GameStore, game_id: str, name: str, events: Sequence[Event]
) -> dict[str, Any] | None:
    """The stored analysis of the FINISHED game ``game_id`` whose complete log is ``events``, or
    None. The caller has checked that the game is over: the document reads the real deals."""
    data = parts.analyses(store).get(game_id, revision(name))
    if data is None:
        return None
    seats, rows = analysis.decode(data)
    body = analysis.document(get_game(name), events, rows, seats)
    return {"game_id": game_id, "game": name, "stored_bytes": len(data), **body}


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
        # The games this process's idle scan has started: never twice (one that fails every time
        # is left to an explicit request, not retried at every idle moment).
        self._idle_started: set[str] = set()

    @property
    def budget(self) -> Budget | None:
        """The operator's search budget per decision, or None: each game's default
        (``analysis.default_budget``, read when used)."""
        return self._budget

    @staticmethod
    def revision(game_name: str) -> str:
        """What a stored analysis must have been made under to be served."""
        return revision(game_name)

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
        log = parts.load_log(self.store, game_id)
        assert log is not None, "the game was found a moment ago"
        return self.stored(game_id, name, log.events)

    def stored(self, game_id: str, name: str, events: Sequence[Event]) -> dict[str, Any] | None:
        return stored_document(self.store, game_id, name, events)

    def biggest_mistakes(self, games: Sequence[tuple[str, int]], limit: int) -> dict[str, Any]:
        """The judged moves (inaccuracies and worse) of ``games`` (finished (game id, seat) pairs,
        newest first) made by that seat, the biggest loss first; games without a stored analysis
        are passed over."""
        found: list[dict[str, Any]] = []
        analysed = 0
        revisions = self.analyses.revisions([game_id for game_id, _ in games])
        for (game_id, seat), stored_revision in zip(games, revisions, strict=True):
            if stored_revision is None:
                continue
            log = parts.load_log(self.store, game_id)
            if log is None or not log.finished or stored_revision != self.revision(log.name):
                continue
            body = self.stored(game_id, log.name, log.events)
            if body is None:
                continue
            analysed += 1
            for row in body["decisions"]:
                if row["seat"] != seat or not row["judgement"]:
                    continue
                event = row["version"] + 1
                found.append(
                    {
                        "game_id": game_id,
                        "game": log.name,
                        "seat": seat,
                        "event": event,
                        "url": f"/replay/{game_id}?event={event}",
                        "judgement": row["judgement"],
                        "loss": row["loss"],
                        "before": row["before"],
                        "after": row["after"],
                        "played_text": row["played_text"],
                        "best_text": row["best_text"],
                    }
                )
        found.sort(key=lambda m: (-m["loss"], m["game_id"], m["event"]))
        return {"mistakes": found[:limit], "games_analysed": analysed, "games_looked_at": len(games)}

    def enqueue_idle(self, scan: int = IDLE_SCAN) -> str | None:
        """At idle: the job analysing the newest archived game with no analysis for its current
        revision and no job of its own already running or given up (through :meth:`JobService.start`,
        the requests' crash-safe path), or None when the newest ``scan`` entries are all done."""
        archive = parts.archive(self.store)
        cursor = None
        looked = 0
        while looked < scan:
            page = archive.search(cursor=cursor, limit=min(100, scan - looked))
            looked += len(page.items)
            candidates = [entry for entry in page.items if analysis.analysable(get_game(entry.name))]
            stored = self.analyses.revisions([entry.game_id for entry in candidates])
            for entry, revision in zip(candidates, stored, strict=True):
                wanted = self.revision(entry.name)
                if revision == wanted or entry.game_id in self._idle_started:
                    continue
                self._idle_started.add(entry.game_id)
                try:
                    jid = self.jobs.start(KIND, {"game_id": entry.game_id, "revision": wanted})
                except NoSuchGame:  # deleted since it was listed
                    continue
                record = self.jobs.get(jid)
                if record is not None and record.status == "queued":
                    return jid
            cursor = page.next_cursor
            if cursor is None or not page.items:
                break
        return None

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
