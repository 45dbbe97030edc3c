"""The per-game event store: streams, snapshots, metadata, seat token hashes and idempotency keys.

Everything that changes a game goes through one Lua script (``store.scripts``) so it is atomic and
costs one round trip; reads are single pipelined round trips. Values are bytes/JSON: this module
knows nothing about any game's rules.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, overload

import orjson
import redis
import redis.cluster

from store import compact, script_runs, scripts
from store.clocks import ClockBook
from store.game_index import GameIndex
from store.keys import (
    game_keys,
)
from store.outbox import HINTS, due_key, followup_args, now_ms, slot_of
from store.passes import SeatPasses
from store.queues import JobQueues, QueueRedisRequired
from store.records import (
    AppendResult,
    ClaimResult,
    StoredGame,
    StreamEntry,
    encode_field,
    entry_fields,
    snapshot_bytes,
    stream_entry,
)
from store.scripts import SNAPSHOT_INTERVAL

# Idempotency keys outlive any sensible client retry window, yet do not pile up forever.
IDEMPOTENCY_TTL_SECONDS = 7 * 24 * 3600
# How long after a change its follow-up work is left to the process that made it, before a sweeper
# may take it (store/outbox.py): long enough that a live process normally finishes first.
FOLLOWUP_GRACE_MS = 2000
# The stricter mode (docs/scaling.md, "Failover"): a change is answered only once this many replicas
# of its master hold it (WAIT), so a failover cannot lose an acknowledged move. 0: asynchronous
# replication, Redis's default.
WAIT_REPLICAS = 0
WAIT_TIMEOUT_MS = 1000


@overload
def _text(value: bytes | str) -> str: ...
@overload
def _text(value: None) -> None: ...


def _text(value: bytes | str | None) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else value


def _texts(raw: Mapping[Any, Any]) -> dict[str, str]:
    """A hash's fields and values as text, decoded in one comprehension (no call per field: a
    game's metadata is some forty fields, read at every load)."""
    return {
        (k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v)
        for k, v in raw.items()
    }


class GameStore:
    def __init__(
        self, client: redis.Redis, followup_grace_ms: int | None = None, queue: redis.Redis | None = None
    ):
        self.redis = client
        # RQ's Redis (``store.queues.queue_url``); by default the store's own when that is a plain
        # server. A Redis Cluster cannot hold RQ's queues.
        self._queue = queue
        self.followup_grace_ms = followup_grace_ms or int(
            os.environ.get("FOLLOWUP_GRACE_MS") or FOLLOWUP_GRACE_MS
        )
        self.wait_replicas = int(os.environ.get("REDIS_WAIT_REPLICAS") or WAIT_REPLICAS)
        self.wait_timeout_ms = int(os.environ.get("REDIS_WAIT_TIMEOUT_MS") or WAIT_TIMEOUT_MS)
        # Run by script_runs (EVALSHA directly, pipelined with the hint) with their typed calls.
        self._append = scripts.bind(client, scripts.AppendCall).registered
        self._claim = scripts.bind(client, scripts.ClaimCall).registered
        self._rotate = scripts.bind(client, scripts.RotateCall).registered
        self.clocks = ClockBook(client, self.meta)
        self.passes = SeatPasses(client)
        self.index = GameIndex(client)

    @property
    def queue_redis(self) -> redis.Redis:
        """The plain Redis that RQ's queues live on (the job queues, not the games)."""
        if self._queue is not None:
            return self._queue
        if isinstance(self.redis, redis.cluster.RedisCluster):
            raise QueueRedisRequired(
                "this store is a Redis Cluster, which RQ cannot use: give it a plain Redis for the "
                "queues (RQ_REDIS_URL)"
            )
        return self.redis

    @property
    def queues(self) -> JobQueues:
        """RQ's queues (on :attr:`queue_redis`)."""
        return JobQueues(self.queue_redis)

    def ping(self) -> None:
        """Raise (``store.errors.StoreError``) unless Redis answers."""
        self.redis.ping()

    @property
    def connection_pool(self) -> Any:
        """The client's connection pool, for a library that must share it (the rate limiter)."""
        return self.redis.connection_pool

    # -- creation and reads -----------------------------------------------------------------
    def create(
        self,
        game_id: str,
        meta: Mapping[str, Any],
        full_config: Mapping[str, Any],
        followups: Mapping[str, Any] | None = None,
    ) -> None:
        """Write a new game (and its follow-up actions, see ``store.outbox``) in one MULTI."""
        keys = game_keys(game_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(keys.meta, mapping={k: encode_field(v) for k, v in meta.items()})
        pipe.set(keys.config, orjson.dumps(full_config))
        if followups:
            due = now_ms() + self.followup_grace_ms
            pipe.hset(keys.outbox, mapping={k: str(v) for k, v in followups.items()})
            pipe.zadd(due_key(game_id), {game_id: due})
        pipe.execute()
        if followups:
            # Outside the MULTI: the hints live in another Cluster slot (store.outbox).
            self.redis.zadd(HINTS, {str(slot_of(game_id)): due})

    def load(self, game_id: str, tail: int = SNAPSHOT_INTERVAL) -> StoredGame | None:
        """Metadata, token hashes, the snapshot and the events after it, in one round trip
        (MULTI/EXEC: one consistent point in time) when the snapshot is at most ``tail`` versions
        behind the metadata; else the events after it are read in a second one, up to the
        metadata's version."""
        keys = game_keys(game_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hgetall(keys.meta)
        pipe.hgetall(keys.seats)
        pipe.get(keys.snapshot)
        pipe.get(keys.log)
        pipe.xrevrange(keys.events, count=max(1, tail))
        meta, seats, snapshot, packed, newest = pipe.execute()
        if not meta:
            return None
        meta = _texts(compact.unchunk(meta))
        decoded = orjson.loads(snapshot) if snapshot else None
        after: tuple[StreamEntry, ...] = ()
        if decoded is not None:
            snapshot_version, version = int(decoded["version"]), int(meta.get("version", "0"))
            if snapshot_version < version:
                entries = [
                    stream_entry(entry_id, entry_fields(fields)) for entry_id, fields in reversed(newest)
                ]
                after = tuple(e for e in entries if snapshot_version < e.version <= version)
                if not after or after[0].version != snapshot_version + 1:  # further behind than ``tail``
                    after = tuple(
                        e for e in self.read_events(game_id, after=snapshot_version) if e.version <= version
                    )
        return StoredGame(
            game_id=game_id,
            meta=meta,
            seat_hashes={int(k): _text(v) for k, v in compact.pairs(seats).items()},
            snapshot=decoded,
            compact_log=compact.decode(self.redis, packed) if packed is not None and not snapshot else None,
            tail=after,
        )

    def meta(self, game_id: str) -> dict[str, str] | None:
        raw = compact.unchunk(self.redis.hgetall(game_keys(game_id).meta))
        return _texts(raw) if raw else None

    def metas(self, game_ids: Sequence[str]) -> list[dict[str, str] | None]:
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hgetall(game_keys(game_id).meta)
        return [_texts(compact.unchunk(raw)) if raw else None for raw in pipe.execute()]

    def status_and_version(self, game_id: str) -> tuple[str, int] | None:
        status, version = self.redis.hmget(game_keys(game_id).meta, "status", "version")
        if status is None:
            return None
        return _text(status), int(version or 0)

    def full_config(self, game_id: str) -> dict[str, Any] | None:
        raw = self.redis.get(game_keys(game_id).config)
        return orjson.loads(raw) if raw else None

    # -- the event log --------------------------------------------------------------------------
    def read_events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StreamEntry]:
        """Events with version > ``after``, oldest first (at most ``limit``), from the stream or, once
        the game is compacted, its compact value (both read in one MULTI: the compaction replaces one
        by the other atomically, so one of them holds the log)."""
        keys = game_keys(game_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.xrange(keys.events, f"{after + 1}-1", "+", count=limit)
        pipe.get(keys.log)
        raw, packed = pipe.execute()
        if packed is not None:
            events = compact.decode(self.redis, packed)
            end = len(events) if limit is None else min(len(events), after + limit)
            return [StreamEntry(version, events[version - 1]) for version in range(after + 1, end + 1)]
        return [stream_entry(entry_id, entry_fields(fields)) for entry_id, fields in raw]

    def read_events_page(
        self, game_id: str, after: int = 0, limit: int | None = None
    ) -> tuple[list[StreamEntry], str | None, int]:
        """:meth:`read_events` with the game's status and version read in the same MULTI, so the
        version a page reports is never older than its last event (a page read while
        another seat moved answered version 1074 with event 1075 on it). Status None: no game."""
        keys = game_keys(game_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.xrange(keys.events, f"{after + 1}-1", "+", count=limit)
        pipe.get(keys.log)
        pipe.hmget(keys.meta, "status", "version")
        raw, packed, (status, version) = pipe.execute()
        if packed is not None:
            events = compact.decode(self.redis, packed)
            end = len(events) if limit is None else min(len(events), after + limit)
            entries = [StreamEntry(v, events[v - 1]) for v in range(after + 1, end + 1)]
        else:
            entries = [stream_entry(entry_id, entry_fields(fields)) for entry_id, fields in raw]
        return entries, None if status is None else _text(status), int(version or 0)

    def wait_events(
        self, game_id: str, after: int, block_ms: int, limit: int = 500, client: redis.Redis | None = None
    ) -> list[StreamEntry]:
        """Block up to ``block_ms`` for events with version > ``after`` (XREAD BLOCK). The
        connection is held only for the duration of one call."""
        reply = (client or self.redis).xread(
            {game_keys(game_id).events: f"{after}-1"}, count=limit, block=block_ms
        )
        if not reply:
            return []
        # RESP2 returns [[key, entries]], RESP3 a {key: [entries]} mapping.
        entries = reply[0][1] if isinstance(reply, list) else next(iter(reply.values()))[0]
        return [stream_entry(entry_id, fields) for entry_id, fields in entries]

    # -- changes (Lua) --------------------------------------------------------------------------
    def append(
        self,
        game_id: str,
        *,
        expected_version: int,
        events: Sequence[Mapping[str, Any]],
        snapshot: Mapping[str, Any] | bytes | None,
        meta: Mapping[str, Any] | None = None,
        seat: int | None = None,
        token_hash: str = "",
        idempotency_field: str = "",
        fingerprint: str = "",
        response: Mapping[str, Any] | None = None,
        followups: Mapping[str, Any] | None = None,
    ) -> AppendResult:
        """Append ``events`` if the game is active at ``expected_version`` (and, with ``seat``,
        ``token_hash`` is that seat's). One EVALSHA. ``response`` is kept under the idempotency
        field and returned verbatim to a retry with the same fingerprint. ``followups`` (action ->
        value) enter the game's outbox in the same step (``store.outbox``). ``snapshot`` None keeps
        the stored snapshot, older than the events: :meth:`load` returns the events after it."""
        keys = game_keys(game_id)
        call = scripts.AppendCall(
            events=keys.events,
            snapshot=keys.snapshot,
            meta=keys.meta,
            seats=keys.seats,
            idem=keys.idem,
            outbox=keys.outbox,
            due=due_key(game_id),
            seat="" if seat is None else str(seat),
            token_hash=token_hash,
            idempotency_field=idempotency_field,
            fingerprint=fingerprint,
            expected_version=expected_version,
            snapshot_json=snapshot_bytes(snapshot),
            response_json=orjson.dumps(response) if response is not None and idempotency_field else b"",
            idempotency_ttl=IDEMPOTENCY_TTL_SECONDS,
            rest=[
                *followup_args(game_id, dict(followups or {}), self.followup_grace_ms),
                *scripts.events_tail(meta, events),
            ],
        )
        reply = script_runs.run_recording(
            self, self._append, game_id, call.keys(), call.args(), bool(followups)
        )
        outcome = reply[0].decode() if isinstance(reply[0], bytes) else reply[0]  # _text, inline: every move
        if outcome == "ok":
            return AppendResult("ok", version=int(reply[1]))
        if outcome == "conflict":
            return AppendResult(
                "conflict",
                version=int(reply[1]),
                snapshot=orjson.loads(reply[2]) if reply[2] else None,
                tail=tuple(
                    stream_entry(entry_id, entry_fields(fields)) for entry_id, fields in reversed(reply[3])
                ),
            )
        if outcome == "replay":
            return AppendResult("replay", response=orjson.loads(reply[1]))
        if outcome == "not_active":
            return AppendResult("not_active", status=_text(reply[1]), version=int(reply[2]))
        return AppendResult(outcome)

    def claim(
        self,
        game_id: str,
        *,
        seat: int | None,
        name: str,
        token_hash: str,
        kind: str,
        bot: str | None,
        now: str,
        genesis: Sequence[Mapping[str, Any]] = (),
        snapshot: Mapping[str, Any] | bytes = b"",
        meta_on_start: Mapping[str, Any] | None = None,
        followups_on_start: Mapping[str, Any] | None = None,
        account: str = "",
    ) -> ClaimResult:
        """Claim ``seat`` (or the lowest free one); when it is the last free seat, append the
        ``genesis`` events and the initial ``snapshot`` (and record ``followups_on_start`` in the
        outbox) in the same atomic step. Without a ``snapshot`` (the start left out: seats are
        expected to remain free) a claim that would fill the last seat changes nothing and the
        outcome is ``need_start``: claim again with the start. ``account``: the account the seat
        is bound to (``already_seated`` when it holds another seat of the game); its claim records
        the ``followups_on_start`` given even when the game does not start."""
        keys = game_keys(game_id)
        call = scripts.ClaimCall(
            meta=keys.meta,
            seats=keys.seats,
            events=keys.events,
            snapshot=keys.snapshot,
            outbox=keys.outbox,
            due=due_key(game_id),
            seat="" if seat is None else str(seat),
            name=name,
            token_hash=token_hash,
            kind=kind,
            bot=bot or "",
            now=now,
            snapshot_json=snapshot_bytes(snapshot),
            account=account,
            rest=[
                *followup_args(game_id, dict(followups_on_start or {}), self.followup_grace_ms),
                *scripts.events_tail(meta_on_start, genesis),
            ],
        )
        reply = script_runs.run_recording(
            self, self._claim, game_id, call.keys(), call.args(), bool(followups_on_start)
        )
        outcome = _text(reply[0])
        if outcome in ("claimed", "started"):
            bound = len(reply) > 3 and int(reply[3]) == 1
            return ClaimResult(outcome, seat=int(reply[1]), version=int(reply[2]), bound=bound)
        if outcome == "not_open":
            return ClaimResult(outcome, status=_text(reply[1]))
        return ClaimResult(outcome)

    def rotate_token(
        self,
        game_id: str,
        *,
        seat: int,
        token_hash: str,
        new_token_hash: str,
        expected_version: int,
        events: Sequence[Mapping[str, Any]],
        snapshot: Mapping[str, Any] | bytes,
        meta: Mapping[str, Any],
    ) -> AppendResult:
        """Replace ``seat``'s token hash and append ``events`` (the rotation's record) atomically, if
        ``token_hash`` is the seat's and the game is active at ``expected_version``. One EVALSHA."""
        keys = game_keys(game_id)
        call = scripts.RotateCall(
            events=keys.events,
            snapshot=keys.snapshot,
            meta=keys.meta,
            seats=keys.seats,
            seat=str(seat),
            token_hash=token_hash,
            new_token_hash=new_token_hash,
            expected_version=expected_version,
            snapshot_json=snapshot_bytes(snapshot),
            rest=scripts.events_tail(meta, events),
        )
        reply = script_runs.run_recording(self, self._rotate, game_id, call.keys(), call.args(), False)
        outcome = _text(reply[0])
        if outcome in ("ok", "conflict"):
            return AppendResult(outcome, version=int(reply[1]))
        if outcome == "not_active":
            return AppendResult("not_active", status=_text(reply[1]), version=int(reply[2]))
        return AppendResult(outcome)

    def get_idempotent(self, game_id: str, idempotency_field: str) -> tuple[str, dict[str, Any]] | None:
        """(fingerprint, response) stored under an idempotency field, or None."""
        raw = self.redis.hget(game_keys(game_id).idem, idempotency_field)
        if raw is None:
            return None
        fingerprint, _, response = raw.partition(b"\n")
        return fingerprint.decode(), orjson.loads(response)
