"""The archive of finished games and the work on stored logs: search, entries, imports, the kept
answers of finished games' replays, and the verify and export jobs. No Flask: the API and the
workers call :class:`ArchiveService`; Redis is behind ``store.archive`` and ``store.replay_cache``.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import marshmallow as ma
import orjson

from games import game_names, get_game
from games.base import FULL, Game, Viewer, public_config
from replays import analysis_export, core, export
from replays.export import ImportRefused, validate_import
from replays.observations import GzipNdjson, NoDecisions, observations
from schemas.archive import ExchangeDocumentSchema
from schemas.common import MAX_JSON_DEPTH, too_deep
from service.aggregates import counter_for_import, enter_archive
from service.analysis import stored_document as stored_analysis
from service.facts import append_game, fact_store
from service.ids import new_game_id
from service.jobs import JobProblem, JobService, Progress
from service.ratings import RatingService
from service.summaries import Page, index_entry, page_of, summary_of
from store import GameStore, parts, timestamps
from store.archive_counts import Counts
from store.game_logs import GameLog

EXPORT_FORMATS = {
    "log": "application/json",
    "json": "application/json",
    "markdown": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
}
MAX_BULK_GAMES = 10_000
# Observations are far larger than logs (a view per decision: ~2.1 KB raw, ~50 B gzipped for
# Condottiere, ~6.5 KB and ~90 B for Rio de la Plata: bench/observations.py), and a job's result is
# one Redis value: an export takes at most this many games (clients page with finished_to).
MAX_OBSERVATION_GAMES = 1_000
OBSERVATIONS_CONTENT_TYPE = "application/gzip"
# How long an imported log waits for its job (far longer than a queue is ever behind): the job drops
# it once the game is stored; one never picked up expires instead of piling up.
IMPORT_INPUT_TTL_SECONDS = 3600
# Replays of running games fold from the nearest state kept every CHECKPOINT_EVERY events (see
# ReplayCheckpoints), so a request folds at most that many events once the checkpoints exist.
# Measured retained memory per checkpoint: ~30 KiB for Rio de la Plata, ~2 KiB for Condottiere, so
# the default bound holds a web process's checkpoints to ~15 MiB at worst.
CHECKPOINT_EVERY = 64
REPLAY_CHECKPOINTS = int(os.environ.get("REPLAY_CHECKPOINTS") or 512)


class ImportIdTaken(Exception):
    """The game id drawn for an import is taken (a 49-bit random part collided: practically never)."""


def json_body(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def _viewer(value: Any) -> Viewer:
    if value in (None, "spectator"):
        return None
    if value == "full":
        return FULL
    return int(value)


class ReplayCheckpoints:
    """States of running games at every ``every``-th version, kept in this process (at most ``size``
    states, the least recently used game's go first). A log only grows, so the state at a version
    never changes: a checkpoint stays right for the game's whole life. Engines never mutate states,
    so a kept state is shared safely (as ``service.cache`` shares the current ones)."""

    def __init__(self, every: int = CHECKPOINT_EVERY, size: int = REPLAY_CHECKPOINTS):
        self.every = every
        self.size = size
        self._games: OrderedDict[str, dict[int, Any]] = OrderedDict()
        self._count = 0
        self._lock = threading.Lock()

    def nearest(self, game_id: str, version: int) -> tuple[int, Any]:
        """The kept (version, state) nearest below or at ``version``; (0, None) when none is."""
        with self._lock:
            kept = self._games.get(game_id)
            if kept is None:
                return 0, None
            self._games.move_to_end(game_id)
            stop = version - version % self.every
            while stop > 0:
                if stop in kept:
                    return stop, kept[stop]
                stop -= self.every
            return 0, None

    def put(self, game_id: str, version: int, state: Any) -> None:
        if self.size <= 0:
            return
        with self._lock:
            kept = self._games.setdefault(game_id, {})
            self._games.move_to_end(game_id)
            if version not in kept:
                kept[version] = state
                self._count += 1
            while self._count > self.size and self._games:
                _, dropped = self._games.popitem(last=False)
                self._count -= len(dropped)


class ArchiveService:
    """See the module docstring."""

    def __init__(self, store: GameStore, jobs: JobService, ratings: RatingService):
        self._store = store
        self.jobs = jobs
        self.ratings = ratings
        self.archive = parts.archive(store, engines=game_names())
        self.replays = parts.replay_cache(store)
        self.checkpoints = ReplayCheckpoints()

    # -- reads -------------------------------------------------------------------------------------

    def search(
        self,
        filters: Mapping[str, Sequence[Any]],
        finished_from: int | None,
        finished_to: int | None,
        cursor: str | None,
        limit: int,
    ) -> Page:
        """Finished games, newest first (``store.archive.Archive.search``; a bad cursor raises
        ``store.archive.BadCursor``)."""
        found = self.archive.search(
            filters=filters, finished_from=finished_from, finished_to=finished_to, cursor=cursor, limit=limit
        )
        return page_of(found)

    def entry(self, game_id: str) -> dict[str, Any] | None:
        """One archived game's summary, or None."""
        record = self.archive.record(game_id)
        return summary_of(record) if record is not None else None

    def entries(self, game_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The archive entries of ``game_ids``, in their order (one not archived is left out)."""
        records = self.archive.records(list(game_ids))
        return [summary_of(records[i]) for i in game_ids if i in records]

    def log(self, game_id: str) -> GameLog | None:
        """A stored game's metadata, complete log and snapshot (one consistent read)."""
        return parts.load_log(self._store, game_id)

    def meta(self, game_id: str) -> GameLog | None:
        """A stored game's metadata only (``events`` empty)."""
        return parts.load_meta(self._store, game_id)

    def kept_answer(self, game_id: str, name: str) -> bytes | None:
        """A finished game's kept answer ``name`` (a replay, its chapter index), or None."""
        return self.replays.get(game_id, name)

    def keep_answer(self, game_id: str, name: str, body: bytes) -> None:
        """Keep a finished game's answer: a finished game never changes."""
        self.replays.put(game_id, name, body)

    def state_at(self, game: Game[Any], game_id: str, version: int) -> Any:
        """A stored game's state at ``version`` (at most its current version), folded from the
        nearest checkpoint: the events after it are read from Redis, not the whole log, and the
        checkpoints passed on the way are kept for the next request."""
        every = self.checkpoints.every
        start, state = self.checkpoints.nearest(game_id, version)
        if start == version:
            return state
        evolve = game.evolve
        position = start
        for entry in self._store.read_events(game_id, after=start, limit=version - start):
            state = evolve(state, entry.event)
            position = entry.version
            if position % every == 0:
                self.checkpoints.put(game_id, position, state)
        if position != version:
            raise LookupError(f"game {game_id} has no version {version}")
        return state

    # -- imports -----------------------------------------------------------------------------------

    def start_import(self, body: bytes) -> str:
        """Start importing an exchange document (``body``: the request's JSON, unread). Nothing of it
        is parsed here: parsing and checking up to 8 MiB takes a Python process a second or more
        (orjson alone about 0.3 s), which must not hold a web process; the job does all of it
        (:meth:`import_job`). Returns the job's id; its params name the game id the import will
        have, its result is ``{"id", "game": <archive entry>}``, its error the refusal."""
        game_id = new_game_id()
        self.jobs.book.put_input(game_id, body, IMPORT_INPUT_TTL_SECONDS)
        return self.jobs.start("import", {"game_id": game_id})

    def import_job(self, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
        """The import job: replay the kept document and store it under the game id of ``params``.
        A retry (the worker died) ends where the first run would have: a half-written game is written
        again, a stored one is answered as it is."""
        game_id = params["game_id"]
        raw = self.jobs.book.input(game_id)
        if raw is None:
            entry = self.entry(game_id)
            if entry is not None:  # stored by an earlier run, which died before recording its result
                return json_body({"id": game_id, "game": entry}), "application/json"
            raise JobProblem(410, "IMPORT_EXPIRED", "The log waited too long for its import: send it again.")
        try:
            document = _exchange_document(raw)
            imported = self.import_document(document, game_id, resume=True)
        except JobProblem:
            self.jobs.book.drop_input(game_id)  # refused for good: a retry would refuse it again
            raise
        except ImportRefused as refused:
            self.jobs.book.drop_input(game_id)  # refused for good: a retry would refuse it again
            details = refused.to_dict()
            code, message = details.pop("code"), details.pop("message")
            raise JobProblem(422, code, message, title="The log was refused", **details) from None
        except ImportIdTaken:
            raise JobProblem(
                409, "IMPORT_ID_TAKEN", "The game id drawn for this import is taken: send it again."
            ) from None
        progress(1.0)
        self.jobs.book.drop_input(game_id)
        return json_body(imported), "application/json"

    def import_document(
        self, document: Mapping[str, Any], game_id: str | None = None, resume: bool = False
    ) -> dict[str, Any]:
        """Replay an exchange document through the rules and store it as a finished game of the
        archive, in this process (the import job's work; ``resume``: see
        ``store.archive_import.import_finished_game``). Returns ``{"id", "game": <archive entry>}``; raises
        ``replays.export.ImportRefused`` for an invalid log and :class:`ImportIdTaken` when the id
        is taken."""
        checked = validate_import(document)
        game = checked["game"]
        game_id = game_id or new_game_id()
        summary = import_finished_game(
            self._store,
            game_id=game_id,
            name=game.name,
            title=game.title,
            public_config=public_config(game, checked["config"]),
            full_config=checked["config"],
            players=checked["players"],
            events=checked["events"],
            snapshot_state=game.state_to_json(checked["state"]),
            result=checked["result"],
            now=timestamps.now(),
            resume=resume,
            counts=counter_for_import(checked["events"], game.name),
        )
        if summary is None:
            raise ImportIdTaken(game_id)
        return {"id": game_id, "game": summary}

    def verify_game(self, game_id: str, account_id: str | None = None) -> str:
        """The job verifying a game (its id); ``account_id``, the signed-in requester, is told when
        it is done (``service.jobs``)."""
        return self.jobs.start("verify", {"game_id": game_id}, account_id)

    def export_game(self, game_id: str, fmt: str, viewer: str | int, account_id: str | None = None) -> str:
        """The job exporting a game in ``fmt`` as ``viewer`` (``full``, ``spectator`` or a seat) sees it
        (``account_id``: as for :meth:`verify_game`)."""
        return self.jobs.start("export", {"game_id": game_id, "format": fmt, "viewer": viewer}, account_id)

    def export_many(self, params: Mapping[str, Any], account_id: str | None = None) -> str:
        """The job exporting the archived games that match ``params`` (filters, dates) as NDJSON."""
        return self.jobs.start("bulk-export", params, account_id)

    # -- jobs: (params, progress) -> (body, content type) ------------------------------------------

    def _load(self, game_id: str) -> GameLog:
        log = parts.load_log(self._store, game_id)
        if log is None:
            raise JobProblem(404, "GAME_NOT_FOUND", "No such game")
        return log

    def verify(self, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
        """Replay a game's log through the rules and compare its fold, up to the stored snapshot's
        version, with the snapshot."""
        log = self._load(params["game_id"])
        game = get_game(log.name)
        report = core.verify(game, log.events, log.snapshot)
        report["game_id"] = log.game_id
        report["status"] = log.status
        report["meta_version"] = int(log.meta.get("version") or 0)
        if report["meta_version"] != len(log.events):
            report["ok"] = False
            report["meta_version_matches"] = False
        progress(0.8)
        if log.finished and (log.result or {}).get("rated") is not False:
            # A finished game enters the archive here too (idempotent), so a missed follow-up heals.
            # An aborted game (rated: false) never does: no search, statistic or rating counts it.
            enter_archive(self.archive, log)  # with its statistics (service.aggregates)
            report["archived"] = True
        return json_body(report), "application/json"

    def export(self, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
        """One game as the importable log, an annotated JSON history, Markdown or HTML, as
        ``params["viewer"]`` may see it."""
        log = self._load(params["game_id"])
        game = get_game(log.name)
        fmt = params["format"]
        viewer = _viewer(params.get("viewer"))
        common: dict[str, Any] = dict(
            players=log.players, finished=log.finished, viewer=viewer, game_id=log.game_id, result=log.result
        )
        if fmt == "log":
            return json_body(export.export_log(game, log.events, **common)), EXPORT_FORMATS[fmt]
        doc = export.annotated_history(game, log.events, **common)
        if log.finished:  # each seat's rating before the game, when it was rated
            before = self.ratings.before(log.name, log.game_id)
            if before is not None:
                doc["ratings_before"] = before
            # The values and judgements of a stored analysis (only ever made once it is over).
            analysis_export.attach(doc, stored_analysis(self._store, log.game_id, log.name, log.events))
        progress(0.7)
        if fmt == "json":
            return json_body(doc), EXPORT_FORMATS[fmt]
        if fmt == "markdown":
            return export.to_markdown(game, doc).encode(), EXPORT_FORMATS[fmt]
        return export.to_html(game, doc).encode(), EXPORT_FORMATS[fmt]

    def _archived_ids(self, params: Mapping[str, Any], most: int) -> list[str]:
        """The ids of the archived games matching ``params`` (filters, dates), newest first, at most
        ``most``."""
        filters = params.get("filters") or {}
        ids: list[str] = []
        cursor = None
        while len(ids) < most:
            page = self.archive.search(
                filters=filters,
                finished_from=params.get("finished_from"),
                finished_to=params.get("finished_to"),
                cursor=cursor,
                limit=100,
            )
            ids.extend(record.game_id for record in page.items)
            cursor = page.next_cursor
            if cursor is None:
                break
        return ids[:most]

    def export_observations(self, params: Mapping[str, Any], account_id: str | None = None) -> str:
        """The job exporting every decision of the archived games that match ``params`` (filters,
        dates, ``limit`` games) as gzipped NDJSON observations."""
        return self.jobs.start("observations", params, account_id)

    def observation_export(self, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
        """Every decision of the matching finished games, newest game first, each game's decisions in
        log order: one observation per line (``replays.observations``), compressed as it is written."""
        ids = self._archived_ids(
            params, min(int(params.get("limit") or MAX_OBSERVATION_GAMES), MAX_OBSERVATION_GAMES)
        )
        out = GzipNdjson()
        total = max(1, len(ids))
        for done, game_id in enumerate(ids, start=1):
            log = parts.load_log(self._store, game_id)
            if log is None or not log.finished:
                continue
            try:
                labels = analysis_export.labels(stored_analysis(self._store, game_id, log.name, log.events))
                out.write(
                    observations(
                        get_game(log.name), log.events, game_id=game_id, result=log.result, labels=labels
                    )
                )
            except NoDecisions:
                continue  # an engine that does not say where its decisions are has none to give
            progress(done / total)
        return out.finish(), OBSERVATIONS_CONTENT_TYPE

    def bulk_export(self, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
        """Many finished games as NDJSON, one importable log per line (at most MAX_BULK_GAMES)."""
        ids = self._archived_ids(params, MAX_BULK_GAMES)
        chunks: list[bytes] = []
        total = max(1, len(ids))
        for done, game_id in enumerate(ids, start=1):
            log = parts.load_log(self._store, game_id)
            if log is None:
                continue
            game = get_game(log.name)
            doc = export.export_log(
                game,
                log.events,
                players=log.players,
                finished=log.finished,
                game_id=game_id,
                result=log.result,
            )
            chunks.extend(export.ndjson_lines([doc]))
            progress(done / total)
        return b"".join(chunks), "application/x-ndjson"


def import_finished_game(
    store: GameStore, *, counts: Callable[[dict[str, Any]], Sequence[Counts]] | None = None, **game: Any
) -> dict[str, Any] | None:
    """Store an already validated, complete log as a finished game (``game``: the arguments of
    ``store.archive_import.import_finished_game``) and enter it into the archive, with the statistics
    ``counts(summary)`` gives and, when ``counts`` is given, its facts (``service.facts``). Returns
    its archive summary (None when the id is taken). A resumed import (``resume``) that stored the
    game before is entered again: entering is idempotent."""
    log = parts.import_finished_game(store, **game)
    if log is None:
        return None
    summary = summary_of(log, imported=True)
    archive = parts.archive(store)
    archive.enter(index_entry(summary), counts(summary) if counts is not None else ())
    # Its facts for the statistics (service.facts), as the follow-up of a game played here does; a
    # resumed import writes the same files again. Only with its statistics (``counts``): a store
    # test's made-up log is no game the rules can fold.
    stored = parts.load_log(store, log.game_id) if counts is not None else None
    if stored is not None:
        append_game(fact_store(), archive, stored)
    return summary


def _exchange_document(raw: bytes) -> dict[str, Any]:
    """Parse and check an import's body as the API checks every other body (its parser would have
    refused it before the view ran): JSON (400), nesting (400), the exchange document's schema
    (422 with ``errors``). The rules come next (``validate_import``)."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        message = f"The body is not valid JSON: {error}"
        raise JobProblem(400, "MALFORMED_JSON", message, title="Malformed JSON") from None
    if too_deep(raw, value):
        message = f"The body nests arrays and objects more than {MAX_JSON_DEPTH} levels deep."
        raise JobProblem(400, "JSON_TOO_DEEP", message, title="JSON nested too deeply")
    try:
        document: dict[str, Any] = ExchangeDocumentSchema().load(value)
    except ma.ValidationError as error:
        message = "The request does not match the schema: see errors."
        raise JobProblem(
            422, "VALIDATION_ERROR", message, title="Invalid request", errors={"json": error.messages}
        ) from None
    return document
