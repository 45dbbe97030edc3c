"""A stored game read back (split out of ``store.archive``): :class:`GameLog`, its whole
log, metadata and snapshot in one consistent read (:func:`load_log`), its metadata only
(:func:`load_meta`), its status and version (:func:`game_version`), and the complete logs of many
games (:func:`events_of`), a compacted game's as much as a running one's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
import redis

from store import compact
from store.keys import game_keys

if TYPE_CHECKING:
    from store.games import GameStore
    from store.records import StreamEntry


def events_of(client: redis.Redis, game_ids: Iterable[str]) -> Iterable[tuple[str, list[dict[str, Any]]]]:
    """The complete logs of ``game_ids`` (one XRANGE each, pipelined by batches of 50)."""
    ids = list(game_ids)
    loads = orjson.loads
    for start in range(0, len(ids), 50):
        batch = ids[start : start + 50]
        pipe = client.pipeline(transaction=False)
        for game_id in batch:
            keys = game_keys(game_id)
            pipe.xrange(keys.events)
            pipe.get(keys.log)
        replies = pipe.execute()
        for game_id, entries, packed in zip(batch, replies[::2], replies[1::2], strict=True):
            # The stream is read first: a compaction in between leaves the compact value to read.
            if packed is not None:
                yield game_id, compact.decode(client, packed)
                continue
            yield game_id, [loads(_entry_fields(fields)[b"e"]) for _, fields in entries]


@dataclass(frozen=True)
class GameLog:
    """One stored game, read consistently (MULTI/EXEC): metadata, complete log and snapshot."""

    game_id: str
    meta: dict[str, str]
    events: list[dict[str, Any]]
    snapshot: dict[str, Any] | None

    @property
    def name(self) -> str:
        return self.meta["game"]

    @property
    def status(self) -> str:
        return self.meta.get("status", "")

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    @property
    def version(self) -> int:
        return len(self.events)

    @property
    def players(self) -> list[str | None]:
        return [self.meta.get(f"name:{seat}") for seat in range(int(self.meta.get("seat_count") or 0))]

    @property
    def result(self) -> dict[str, Any] | None:
        raw = self.meta.get("result")
        return orjson.loads(raw) if raw else None

    @property
    def public_config(self) -> dict[str, Any]:
        raw = self.meta.get("config")
        return orjson.loads(raw) if raw else {}


def _entry_fields(fields: Any) -> dict[bytes, bytes]:
    """A stream entry's fields as a dict. redis-py's cluster client skips the XRANGE response
    callback inside a MULTI pipeline and hands back the raw ``[field, value, ...]`` list."""
    if isinstance(fields, dict):
        return fields
    return dict(zip(fields[::2], fields[1::2], strict=True))


def load_log(client: redis.Redis, game_id: str) -> GameLog | None:
    keys = game_keys(game_id)
    pipe = client.pipeline(transaction=True)
    pipe.hgetall(keys.meta)
    pipe.xrange(keys.events)
    pipe.get(keys.snapshot)
    pipe.get(keys.log)
    meta, entries, snapshot, packed = pipe.execute()
    if not meta:
        return None
    meta = compact.unchunk(meta)
    loads = orjson.loads
    if packed is not None:
        events = compact.decode(client, packed)
    else:
        events = [loads(_entry_fields(fields)[b"e"]) for _, fields in entries]
    return GameLog(
        game_id=game_id,
        meta={k.decode(): v.decode() for k, v in meta.items()},
        events=events,
        snapshot=loads(snapshot) if snapshot else None,
    )


def game_version(client: redis.Redis, game_id: str) -> tuple[str, int] | None:
    """(status, version) of a stored game, or None."""
    status, version = client.hmget(game_keys(game_id).meta, "status", "version")
    if status is None:
        return None
    return status.decode(), int(version or 0)


def load_meta(client: redis.Redis, game_id: str) -> GameLog | None:
    """A game's metadata only (``events`` left empty): enough for its archive summary
    (``service.summaries.summary_of``)."""
    meta = compact.unchunk(client.hgetall(game_keys(game_id).meta))
    if not meta:
        return None
    return GameLog(
        game_id=game_id, meta={k.decode(): v.decode() for k, v in meta.items()}, events=[], snapshot=None
    )


def iter_all_events(store: GameStore, game_id: str, page: int = 1000) -> Iterable[StreamEntry]:
    """Every event of a game, paged so a long log never arrives in one reply."""
    after = 0
    while True:
        batch = store.read_events(game_id, after=after, limit=page)
        yield from batch
        if len(batch) < page:
            return
        after = batch[-1].version
