"""Importing a finished game (split out of ``store.archive``): a complete, already
validated log written as a finished game (:func:`store_finished_game`) and listed with the other
games (:func:`import_finished_game`); the caller enters it into the archive (``Archive.enter``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson
import redis

from store import compact
from store.game_logs import GameLog, load_log
from store.keys import game_keys
from store.records import encode_field


def store_finished_game(
    client: redis.Redis,
    game_id: str,
    *,
    meta: Mapping[str, Any],
    full_config: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    snapshot: Mapping[str, Any],
    resume: bool = False,
) -> bool:
    """Write a complete, already validated log as a finished game (an import). Refuses (False)
    when the id exists, unless ``resume`` and an earlier attempt of this import died between
    claiming the id and writing (status ``importing``): the write is then done again. The whole
    game appears at once (MULTI/EXEC on the game's own keys)."""
    keys = game_keys(game_id)
    if not client.hsetnx(keys.meta, "status", "importing"):
        if not (resume and _text(client.hget(keys.meta, "status")) == "importing"):
            return False
    # Stored compact at once (store.compact): an imported log was replayed through the rules on
    # its way in, and a finished game needs neither a stream nor a snapshot.
    packed = compact.encode(
        events, compact.engine_dictionary(client, str(meta["game"]), orjson.dumps(list(events)))
    )
    pipe = client.pipeline(transaction=True)
    pipe.delete(keys.events, keys.snapshot, keys.config)
    pipe.set(keys.log, packed)
    pipe.delete(keys.meta)  # written anew, in compact encoding (store.compact.chunked)
    pipe.hset(keys.meta, mapping=compact.packed_meta({k: _json_text(v) for k, v in meta.items()}))
    pipe.execute()
    return True


def _json_text(value: Any) -> str:
    """A metadata value as the text Redis would keep for it (``encode_field``, then decoded)."""
    stored = encode_field(value)
    return stored.decode() if isinstance(stored, bytes) else str(stored)


def import_finished_game(
    client: redis.Redis,
    *,
    game_id: str,
    name: str,
    title: str,
    public_config: Mapping[str, Any],
    full_config: Mapping[str, Any],
    players: Sequence[str | None],
    events: Sequence[Mapping[str, Any]],
    snapshot_state: Any,
    result: Mapping[str, Any] | None,
    now: str,
    resume: bool = False,
) -> GameLog | None:
    """Store an already validated, complete log as a finished game and list it with the other
    games. Returns it as stored (None when the id is taken); the caller enters it into the archive
    (``Archive.enter``), with the summary and statistics it makes of it.

    ``resume``: this import may have run before under the same id (a job retried after its worker
    died): a game it left half written is written again, one it wrote is listed again (idempotent),
    so the retry ends where the first run would have."""
    from store.games import GameStore

    meta: dict[str, Any] = {
        "game": name,
        "title": title,
        "status": "finished",
        "version": len(events),
        "seat_count": len(players),
        "config": dict(public_config),
        "created": now,
        "updated": now,
        "started": now,
        "finished": now,
        "awaiting": [],
        "result": dict(result) if result is not None else None,
        "imported": 1,
    }
    for seat, player in enumerate(players):
        meta[f"name:{seat}"] = player or f"Seat {seat}"
        meta[f"kind:{seat}"] = "human"
        meta[f"bot:{seat}"] = ""
    stored = store_finished_game(
        client,
        game_id,
        meta=meta,
        full_config=full_config,
        events=events,
        snapshot={"version": len(events), "state": snapshot_state},
        resume=resume,
    )
    if not stored and not (resume and _imported(client, game_id)):
        return None
    GameStore(client).index.add(game_id, name, "finished")
    # None only for a game removed meanwhile: the import stored it just now
    return load_log(client, game_id)


def _text(value: Any) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def _imported(client: redis.Redis, game_id: str) -> bool:
    """Was ``game_id`` stored by an import (and completely)?"""
    status, imported = client.hmget(game_keys(game_id).meta, "status", "imported")
    return _text(status) == "finished" and _text(imported) == "1"
