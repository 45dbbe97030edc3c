"""RQ job functions: thin wrappers that read from ``store/``, compute with ``replays/`` and write the
result through ``store.jobs``. Every job is ``run(job_id)``; the job record (``store.jobs``) says
what to compute, so a job re-run after a crash recomputes exactly the same thing and overwrites
its own result key (nothing is duplicated).

``ARCHIVE_JOB_STEP_DELAY`` (seconds, default 0) makes every job sleep between its steps: a
test-only knob that keeps a job running long enough to kill its worker in the middle of it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import Any

import orjson
import redis
from rq import get_current_job

from games import get_game
from games.base import FULL
from replays import core, export, stats
from store.archive import FACTS, SUMMARY, Archive, events_of, index_key, load_log, summary_of
from store.jobs import JobBook

Progress = Callable[[float], None]

EXPORT_FORMATS = {
    "log": "application/json",
    "json": "application/json",
    "markdown": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
}
MAX_BULK_GAMES = 10_000


class JobProblem(Exception):
    """A job that cannot succeed whatever the retries (no such game...): reported, not retried."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.problem = {"status": status, "code": code, "title": message, "detail": message}


_STEP_DELAY = float(os.environ.get("ARCHIVE_JOB_STEP_DELAY") or 0)


def _step() -> None:
    if _STEP_DELAY > 0:
        time.sleep(_STEP_DELAY)


def _json(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def _viewer(value: Any):
    if value in (None, "spectator"):
        return None
    if value == "full":
        return FULL
    return int(value)


# -- handlers: (client, params, progress) -> (body, content type) ------------------------------


def verify(client: redis.Redis, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
    log = _load(client, params["game_id"])
    game = get_game(log.name)
    _step()
    report = core.verify(game, log.events, log.snapshot)
    report["game_id"] = log.game_id
    report["status"] = log.status
    report["meta_version"] = int(log.meta.get("version") or 0)
    if report["meta_version"] != len(log.events):
        report["ok"] = False
        report["meta_version_matches"] = False
    progress(0.8)
    _step()
    if log.finished and (log.result or {}).get("rated") is not False:
        # A finished game enters the archive here too (idempotent), so a missed signal heals. An
        # aborted game (rated: false) never does: no search, statistic or rating counts it.
        Archive(client).enter(summary_of(log))
        report["archived"] = True
    return _json(report), "application/json"


def game_stats(client: redis.Redis, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
    log = _load(client, params["game_id"])
    if not log.finished:
        raise JobProblem(409, "GAME_NOT_FINISHED", "Statistics are computed for finished games only")
    game = get_game(log.name)
    _step()
    facts = stats.per_game(game, log.events, log.players)
    facts["game_id"] = log.game_id
    return _json(facts), "application/json"


def _archived(client: redis.Redis, key: str, game_name: str, progress: Progress):
    """(summary, facts) of every archived game of ``game_name`` in index ``key``, newest first.

    A finished game's facts never change, so they are kept (``FACTS``, without the per-game
    ``detail``) the first time they are computed: statistics recomputed after a new game enters
    the archive read one small record per known game and the log of the new one only."""
    ids = [i.decode() for i in client.zrange(key, 0, -1, desc=True)]
    if not ids:
        return
    game = get_game(game_name)
    summaries = {
        game_id: orjson.loads(raw)
        for game_id, raw in zip(ids, client.hmget(SUMMARY, ids), strict=True)
        if raw
    }
    ids = [game_id for game_id in ids if summaries.get(game_id, {}).get("game") == game_name]
    known = dict(zip(ids, client.hmget(FACTS, ids), strict=True)) if ids else {}
    missing = [game_id for game_id in ids if known.get(game_id) is None]
    total = max(1, len(ids))
    done = 0
    for game_id in ids:
        raw = known.get(game_id)
        if raw is not None:
            done += 1
            yield summaries[game_id], orjson.loads(raw)
    if done:
        progress(done / total)
    fresh: dict[str, bytes] = {}
    for game_id, events in events_of(client, missing):
        facts = stats.game_facts(game, events)
        facts.pop("detail", None)
        fresh[game_id] = orjson.dumps(facts, option=orjson.OPT_NON_STR_KEYS)
        done += 1
        yield summaries[game_id], facts
        progress(done / total)
        _step()
        if len(fresh) >= 200:
            client.hset(FACTS, mapping=fresh)
            fresh = {}
    if fresh:
        client.hset(FACTS, mapping=fresh)


def global_stats(client: redis.Redis, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
    name = params["game"]
    get_game(name)  # the API accepts registered game names only
    players, overall = stats.PlayerStats(), stats.GlobalStats()
    for summary, facts in _archived(client, index_key("game", name), name, progress):
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
    return _json(body), "application/json"


def player_stats(client: redis.Redis, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
    name, game_name = params["name"], params["game"]
    get_game(game_name)
    players = stats.PlayerStats()
    wanted = name.casefold()
    display = None
    for summary, facts in _archived(client, index_key("player", name), game_name, progress):
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
        raise JobProblem(404, "PLAYER_NOT_FOUND", f"No archived {game_name} game has a player named {name!r}")
    row = dict(row, name=display or name, game=game_name)
    return _json(row), "application/json"


def export_game(client: redis.Redis, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
    log = _load(client, params["game_id"])
    game = get_game(log.name)
    fmt = params["format"]
    viewer = _viewer(params.get("viewer"))
    common = dict(
        players=log.players, finished=log.finished, viewer=viewer, game_id=log.game_id, result=log.result
    )
    _step()
    if fmt == "log":
        return _json(export.export_log(game, log.events, **common)), EXPORT_FORMATS[fmt]
    doc = export.annotated_history(game, log.events, **common)
    progress(0.7)
    _step()
    if fmt == "json":
        return _json(doc), EXPORT_FORMATS[fmt]
    if fmt == "markdown":
        return export.to_markdown(game, doc).encode(), EXPORT_FORMATS[fmt]
    return export.to_html(game, doc).encode(), EXPORT_FORMATS[fmt]


def bulk_export(client: redis.Redis, params: Mapping[str, Any], progress: Progress) -> tuple[bytes, str]:
    archive = Archive(client)
    filters = params.get("filters") or {}
    ids: list[str] = []
    cursor = None
    while len(ids) < MAX_BULK_GAMES:
        page = archive.search(
            filters=filters,
            finished_from=params.get("finished_from"),
            finished_to=params.get("finished_to"),
            cursor=cursor,
            limit=100,
        )
        ids.extend(item["id"] for item in page.items)
        cursor = page.next_cursor
        if cursor is None:
            break
    ids = ids[:MAX_BULK_GAMES]
    chunks: list[bytes] = []
    total = max(1, len(ids))
    for done, game_id in enumerate(ids, start=1):
        log = load_log(client, game_id)
        if log is None:
            continue
        game = get_game(log.name)
        doc = export.export_log(
            game, log.events, players=log.players, finished=log.finished, game_id=game_id, result=log.result
        )
        chunks.extend(export.ndjson_lines([doc]))
        progress(done / total)
        _step()
    return b"".join(chunks), "application/x-ndjson"


HANDLERS: dict[str, Callable[[redis.Redis, Mapping[str, Any], Progress], tuple[bytes, str]]] = {
    "verify": verify,
    "game-stats": game_stats,
    "player-stats": player_stats,
    "global-stats": global_stats,
    "export": export_game,
    "bulk-export": bulk_export,
}


def _load(client: redis.Redis, game_id: str):
    log = load_log(client, game_id)
    if log is None:
        raise JobProblem(404, "GAME_NOT_FOUND", "No such game")
    return log


# -- the entry point RQ runs ----------------------------------------------------------------


def run(jid: str) -> str:
    job = get_current_job()
    client = job.connection
    book = JobBook(client)
    record = book.get(jid)
    if record is None:
        return "gone"  # the record expired: nobody waits for this result any more
    book.started(jid)
    handler = HANDLERS[record.kind]
    last = [0.0]

    def progress(fraction: float) -> None:
        if fraction - last[0] >= 0.05 or fraction >= 1.0:
            last[0] = fraction
            book.progress(jid, fraction)

    try:
        body, content_type = handler(client, record.params, progress)
    except JobProblem as problem:
        book.fail(jid, problem.problem, final=True)
        return "problem"
    except Exception as error:
        retrying = bool(job.retries_left and job.retries_left > 0)
        book.fail(
            jid,
            {"status": 500, "code": "JOB_FAILED", "title": "The job failed", "detail": type(error).__name__},
            final=not retrying,
        )
        raise
    book.finish(jid, body, content_type)
    return "finished"
