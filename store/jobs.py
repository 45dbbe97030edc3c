"""Job bookkeeping for the RQ workers: deterministic job ids, job records, progress, cached results.

A job is identified by what it computes and the version of the data it depends on, keyed with a
server secret::

    job id = "<kind>-" + HMAC-SHA256(secret, kind, params, data version)[:24]

so identical requests share one job, and a result is reused until the data changes (a new game
version or archive version gives a new id, hence a fresh computation). The secret makes ids
unguessable: an id computed from public data alone (kind, format, game id, viewer seat and
version) would let anyone fetch a result made for one seat. The secret is drawn once
(``secrets.token_hex``, 256 bits) and kept in Redis under ``jobs:{jobs}:id-secret`` so that every
API process and worker derives the same ids; it never leaves the server. RQ runs the job under that
same id; this module keeps the record a client reads (status, progress, error, where the result is):

``jobs:{jobs}:<id>`` (hash)
    kind, params (JSON), data_version, status, progress, attempts, created/started/finished,
    error (JSON), content_type, completions
``jobs:{jobs}:<id>:result`` (string)
    the result bytes (JSON, Markdown, HTML or NDJSON)
``jobs:{jobs}:id-secret`` (string)
    the key of the job ids' HMAC (never expires)
``jobs:{jobs}:pending`` (sorted set)
    ids of records not yet finished or failed, scored by creation (s)
``jobs:{jobs}:input:<name>`` (string)
    a job's input too large for its params (an imported log, named by its game id); expires
``jobs:{jobs}:<id>:notify`` (set)
    the accounts (ids, never tokens) that asked for the job while signed in and are told when it
    finishes (``verified`` and ``export_ready``); added by the script that creates or
    joins the record, never shown in the record a client reads; expires with the record
``jobs:{jobs}:announce`` (sorted set)
    ids of finished jobs whose accounts are still to be told, scored by when the janitor should do
    it (s): added by the script that finishes the job, removed once every account's feed has the
    notice (``service.jobs.JobService.announce``)
``jobs:{jobs}:<id>:alive`` (string, short TTL)
    the heartbeat of the attempt running now: set when it starts, renewed every few seconds by the
    process running it (``service.jobs``), deleted when it ends; a ``started`` record without it
    was left by a process that died (the janitor hands the job back to RQ within seconds instead of
    RQ's own 60-90 s heartbeat expiry)

Records and results expire (``RESULT_TTL_SECONDS``) after the job ends, so the cache cannot grow
without bound; an expired result is simply recomputed on the next request.

The record is written before the RQ job is enqueued, so a crash in between (or an RQ job lost
otherwise) would leave a record ``queued`` for ever: every record enters ``pending`` in the same
script that creates it and leaves it when it finishes or fails for good, and the janitor
(``worker.janitor``) reconciles the pending records older than a few seconds with RQ.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson
import redis

from store import timestamps
from store.scripts import ScriptCall, bind

PREFIX = "jobs:{jobs}"
PENDING = f"{PREFIX}:pending"
ANNOUNCE = f"{PREFIX}:announce"
# A finished job's notices are the janitor's after this long (the worker normally sends them at once).
ANNOUNCE_GRACE_SECONDS = 5.0
RESULT_TTL_SECONDS = 24 * 3600
STATUSES = ("queued", "started", "finished", "failed")
# How long a running attempt's heartbeat lasts unless renewed (service.jobs renews it).
DEFAULT_ALIVE_SECONDS = 10.0


SECRET_KEY = f"{PREFIX}:id-secret"
# One secret per Redis client (read once per process): it never changes once drawn.
_secrets: weakref.WeakKeyDictionary[redis.Redis, bytes] = weakref.WeakKeyDictionary()


def id_secret(client: redis.Redis) -> bytes:
    """The server's job-id key: drawn by the first process that needs it (SET NX), then shared."""
    known = _secrets.get(client)
    if known is None:
        client.set(SECRET_KEY, secrets.token_hex(32), nx=True)
        known = client.get(SECRET_KEY)
        if not known:  # only if the key was deleted between the two commands
            return id_secret(client)
        _secrets[client] = known
    return known


def job_id(kind: str, params: Mapping[str, Any], data_version: str, secret: bytes) -> str:
    material = orjson.dumps(
        {"kind": kind, "params": params, "data": data_version}, option=orjson.OPT_SORT_KEYS
    )
    return f"{kind}-{hmac.new(secret, material, hashlib.sha256).hexdigest()[:24]}"


def record_key(jid: str) -> str:
    return f"{PREFIX}:{jid}"


def result_key(jid: str) -> str:
    return f"{PREFIX}:{jid}:result"


def alive_key(jid: str) -> str:
    return f"{PREFIX}:{jid}:alive"


def notify_key(jid: str) -> str:
    return f"{PREFIX}:{jid}:notify"


def input_key(name: str) -> str:
    return f"{PREFIX}:input:{name}"


def now_iso() -> str:
    return timestamps.now()


@dataclass(frozen=True)
class JobRecord:
    id: str
    kind: str
    params: dict[str, Any]
    data_version: str
    status: str
    progress: float
    attempts: int
    completions: int
    created: str | None
    started: str | None
    finished: str | None
    error: dict[str, Any] | None
    content_type: str | None


# Creates the record only when there is none or the previous attempt failed; returns 1 when the
# caller must enqueue. A signed-in caller's account joins the record's notify set in the same step,
# unless the job has already finished (its answer then holds the result: nothing to wait for); a
# record made anew forgets the accounts of the failed one. KEYS: record, pending, notify; ARGV: kind,
# params JSON, data version, now, job id, now in seconds, account id ('' for none).
_CREATE = r"""
local status = redis.call('HGET', KEYS[1], 'status')
if status and status ~= 'failed' then
  if ARGV[7] ~= '' and status ~= 'finished' then
    redis.call('SADD', KEYS[3], ARGV[7])
  end
  return 0
end
redis.call('DEL', KEYS[1], KEYS[3])
redis.call('HSET', KEYS[1], 'kind', ARGV[1], 'params', ARGV[2], 'data_version', ARGV[3],
           'status', 'queued', 'progress', '0', 'attempts', '0', 'completions', '0', 'created', ARGV[4])
redis.call('PERSIST', KEYS[1])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[5])
if ARGV[7] ~= '' then
  redis.call('SADD', KEYS[3], ARGV[7])
end
return 1
"""

# Stores the result and marks the job finished in one step; when accounts wait for it, its notice
# is due (ANNOUNCE) in the same step, so a worker killed right after leaves it to the janitor.
# KEYS: result, record, pending, alive, notify, announce; ARGV: body, ttl, now, content type, job
# id, announce due (s).
_FINISH = r"""
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('HSET', KEYS[2], 'status', 'finished', 'progress', '1', 'finished', ARGV[3],
           'content_type', ARGV[4])
redis.call('HINCRBY', KEYS[2], 'completions', 1)
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[5])
redis.call('DEL', KEYS[4])
if redis.call('EXISTS', KEYS[5]) == 1 then
  redis.call('EXPIRE', KEYS[5], ARGV[2])
  redis.call('ZADD', KEYS[6], ARGV[6], ARGV[5])
  return 1
end
return 0
"""

# A started record whose heartbeat is gone goes back to queued (its job is queued again in RQ);
# returns 1 when it did. KEYS: record, alive.
_BACK_TO_QUEUED = r"""
if redis.call('HGET', KEYS[1], 'status') == 'started' and redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('HSET', KEYS[1], 'status', 'queued')
  return 1
end
return 0
"""


@dataclass(frozen=True, slots=True)
class CreateCall(ScriptCall):
    """:data:`_CREATE`: a job's record made unless one stands (a failed one is made anew)."""

    SCRIPT: ClassVar[str] = _CREATE
    KEYS: ClassVar[tuple[str, ...]] = ("record", "pending", "notify")
    record: str
    pending: str
    notify: str
    kind: str
    params_json: bytes
    data_version: str
    now: str
    job_id: str
    now_seconds: str
    account_id: str  # '' for none
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class FinishCall(ScriptCall):
    """:data:`_FINISH`: a job's result stored and its record finished, in one step."""

    SCRIPT: ClassVar[str] = _FINISH
    KEYS: ClassVar[tuple[str, ...]] = ("result", "record", "pending", "alive", "notify", "announce")
    result: str
    record: str
    pending: str
    alive: str
    notify: str
    announce: str
    body: bytes
    ttl: int
    now: str
    content_type: str
    job_id: str
    announce_due: str
    rest: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class BackToQueuedCall(ScriptCall):
    """:data:`_BACK_TO_QUEUED`: a dead run's record queued again."""

    SCRIPT: ClassVar[str] = _BACK_TO_QUEUED
    KEYS: ClassVar[tuple[str, ...]] = ("record", "alive")
    record: str
    alive: str
    rest: Sequence[Any] = ()


class JobBook:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._create = bind(client, CreateCall)
        self._back_to_queued = bind(client, BackToQueuedCall)
        self._finish = bind(client, FinishCall)

    def create(
        self, kind: str, params: Mapping[str, Any], data_version: str, account_id: str | None = None
    ) -> tuple[str, bool]:
        """(job id, True when this call created it and must enqueue it). ``account_id``: the
        signed-in account that asks, told when the job finishes (see :data:`_CREATE`)."""
        jid = job_id(kind, params, data_version, id_secret(self.redis))
        created = self._create(
            CreateCall(
                record=record_key(jid),
                pending=PENDING,
                notify=notify_key(jid),
                kind=kind,
                params_json=orjson.dumps(params, option=orjson.OPT_SORT_KEYS),
                data_version=data_version,
                now=now_iso(),
                job_id=jid,
                now_seconds=f"{time.time():.3f}",
                account_id=account_id or "",
            )
        )
        if not created and not self.result_exists(jid) and self.status(jid) == "finished":
            # The result expired before the record: forget the record and compute again.
            self.redis.delete(record_key(jid))
            return self.create(kind, params, data_version, account_id)
        return jid, bool(created)

    def get(self, jid: str) -> JobRecord | None:
        raw = self.redis.hgetall(record_key(jid))
        if not raw:
            return None
        data = {k.decode(): v.decode() for k, v in raw.items()}
        return JobRecord(
            id=jid,
            kind=data.get("kind", ""),
            params=orjson.loads(data.get("params") or "{}"),
            data_version=data.get("data_version", ""),
            status=data.get("status", "queued"),
            progress=float(data.get("progress") or 0),
            attempts=int(data.get("attempts") or 0),
            completions=int(data.get("completions") or 0),
            created=data.get("created"),
            started=data.get("started"),
            finished=data.get("finished"),
            error=orjson.loads(data["error"]) if data.get("error") else None,
            content_type=data.get("content_type"),
        )

    def status(self, jid: str) -> str | None:
        value = self.redis.hget(record_key(jid), "status")
        return value.decode() if value else None

    def started(self, jid: str, alive_seconds: float = DEFAULT_ALIVE_SECONDS) -> int:
        """Mark an attempt as started (a re-run after a crash counts as a new attempt), with its
        first heartbeat (``beat``), in one transaction: a started record never lacks one while the
        process running it lives."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(alive_key(jid), "1", px=int(alive_seconds * 1000))
        pipe.hset(record_key(jid), mapping={"status": "started", "started": now_iso(), "progress": "0"})
        pipe.hdel(record_key(jid), "error")
        pipe.hincrby(record_key(jid), "attempts", 1)
        return int(pipe.execute()[-1])

    def beat(self, jid: str, alive_seconds: float) -> None:
        """The running attempt is alive for ``alive_seconds`` more."""
        self.redis.set(alive_key(jid), "1", px=int(alive_seconds * 1000))

    def dead_runs(self) -> list[str]:
        """Ids of pending records marked ``started`` whose heartbeat has expired: the process that
        ran them died (or lost Redis for longer than the heartbeat lasts)."""
        pending = self.pending_since(time.time())
        pipe = self.redis.pipeline(transaction=False)
        for jid in pending:
            pipe.hget(record_key(jid), "status")
            pipe.exists(alive_key(jid))
        answers = pipe.execute()
        return [
            jid
            for jid, status, alive in zip(pending, answers[0::2], answers[1::2], strict=True)
            if status == b"started" and not alive
        ]

    def back_to_queued(self, jid: str) -> bool:
        """A dead run's record shows ``queued`` again (its job was handed back to the queue), unless
        a new attempt started meanwhile."""
        return bool(self._back_to_queued(BackToQueuedCall(record_key(jid), alive_key(jid))))

    def progress(self, jid: str, fraction: float) -> None:
        self.redis.hset(record_key(jid), "progress", f"{max(0.0, min(1.0, fraction)):.4f}")

    def finish(self, jid: str, body: bytes, content_type: str) -> bool:
        """Store the result and mark the job finished, atomically: a crash leaves either no
        result (the job runs again) or the whole result, never half of it. True when accounts wait
        to be told (its notice is then due: :meth:`announcing`)."""
        return bool(
            self._finish(
                FinishCall(
                    result=result_key(jid),
                    record=record_key(jid),
                    pending=PENDING,
                    alive=alive_key(jid),
                    notify=notify_key(jid),
                    announce=ANNOUNCE,
                    body=body,
                    ttl=RESULT_TTL_SECONDS,
                    now=now_iso(),
                    content_type=content_type,
                    job_id=jid,
                    announce_due=f"{time.time() + ANNOUNCE_GRACE_SECONDS:.3f}",
                )
            )
        )

    # -- who is told when a job finishes ------------------------------------------

    def notified(self, jid: str) -> list[str]:
        """The accounts to tell that ``jid`` finished (server-side only: never in a record)."""
        return sorted(a.decode() for a in self.redis.smembers(notify_key(jid)))

    def announcing(self, before: float) -> list[str]:
        """Finished jobs whose notices were due before ``before`` (epoch seconds) and not yet sent."""
        return [i.decode() for i in self.redis.zrange(ANNOUNCE, "-inf", before, byscore=True)]

    def announced(self, jid: str) -> None:
        """Every account waiting for ``jid`` has its notice."""
        self.redis.zrem(ANNOUNCE, jid)

    def fail(self, jid: str, problem: Mapping[str, Any], final: bool) -> None:
        """Record an error; ``final`` when no retry is left (the client then sees it)."""
        mapping: dict[str, bytes | str] = {"error": orjson.dumps(problem)}
        if final:
            mapping.update(status="failed", finished=now_iso())
        else:
            mapping["status"] = "queued"
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(record_key(jid), mapping=mapping)
        pipe.delete(alive_key(jid))
        if final:
            pipe.expire(record_key(jid), RESULT_TTL_SECONDS)
            pipe.expire(notify_key(jid), RESULT_TTL_SECONDS)  # nobody is told of a failure
            pipe.zrem(PENDING, jid)
        pipe.execute()

    def result(self, jid: str) -> bytes | None:
        return self.redis.get(result_key(jid))

    def result_exists(self, jid: str) -> bool:
        return bool(self.redis.exists(result_key(jid)))

    def pending_since(self, before: float) -> list[str]:
        """Ids of records created before ``before`` (epoch seconds) that are neither finished nor
        failed for good: what the janitor checks against RQ."""
        return [i.decode() for i in self.redis.zrange(PENDING, "-inf", before, byscore=True)]

    def settle(self, jid: str) -> None:
        """Take a record that needs no more watching out of the pending set."""
        self.redis.zrem(PENDING, jid)

    # -- a job's input too large for its params (an imported log) ------------------------------

    def put_input(self, name: str, body: bytes, ttl_seconds: int) -> None:
        """Keep ``body`` for a job to read (``name``: what its params call it) for ``ttl_seconds``."""
        self.redis.set(input_key(name), body, ex=ttl_seconds)

    def input(self, name: str) -> bytes | None:
        """The input kept under ``name`` (None once expired or dropped)."""
        return self.redis.get(input_key(name))

    def drop_input(self, name: str) -> None:
        self.redis.delete(input_key(name))

    def pending_count(self) -> int:
        return int(self.redis.zcard(PENDING))
