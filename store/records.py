"""What the game store hands back: a game as read (its metadata, seat hashes, snapshot and the
events after it), the outcomes of the change scripts, stream entries, and how values are encoded
for the scripts and read back from them. Plain values: no Redis."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson


@dataclass(frozen=True)
class StoredGame:
    """A consistent read of one game: metadata, seat token hashes and the latest snapshot."""

    game_id: str
    meta: dict[str, str]
    seat_hashes: dict[int, str]
    snapshot: dict[str, Any] | None  # {"version": n, "state": ...}; None before the game starts
    # A compacted game has no snapshot: its whole log instead (the caller folds it)
    compact_log: list[dict[str, Any]] | None = None
    # The events after the snapshot, oldest first, up to the metadata's version (the snapshot is
    # not rewritten at every append: the caller folds these into it)
    tail: tuple[StreamEntry, ...] = ()

    @property
    def version(self) -> int:
        return int(self.meta.get("version", "0"))

    @property
    def status(self) -> str:
        return self.meta["status"]


@dataclass(frozen=True)
class AppendResult:
    """Outcome of the append script. ``outcome`` is one of ``ok``, ``replay``, ``conflict``,
    ``idem_mismatch``, ``bad_token``, ``not_active``, ``not_found``."""

    outcome: str
    version: int = 0  # ok, conflict, not_active: the game's version (0 for the other outcomes)
    # conflict: the stored snapshot, and the game's last events (SNAPSHOT_INTERVAL of them, oldest
    # first), enough to bring it to ``version`` without another round trip
    snapshot: dict[str, Any] | None = None
    tail: tuple[StreamEntry, ...] = ()
    response: dict[str, Any] | None = None  # replay: the response stored with the key
    status: str | None = None  # not_active: the game's status


@dataclass(frozen=True)
class ClaimResult:
    """Outcome of the claim script: ``claimed``, ``started`` (this claim filled the last seat and
    the genesis events were appended), ``need_start`` (it would have, but was sent without the
    start: nothing changed), ``taken``, ``no_such_seat``, ``full``, ``not_open``, ``not_found``."""

    outcome: str
    seat: int | None = None
    version: int = 0
    status: str | None = None
    bound: bool = False  # started with a seat bound to an account: 'accounts' was recorded too


@dataclass(frozen=True)
class StreamEntry:
    version: int
    event: dict[str, Any]


def stream_entry(entry_id: bytes | str, fields: Mapping[Any, Any]) -> StreamEntry:
    """A stream entry as read back: its version (the id's first part) and its event."""
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    version = int(text.split("-", 1)[0])
    raw = fields.get(b"e", fields.get("e"))
    return StreamEntry(version=version, event=orjson.loads(raw))


def encode_field(value: Any) -> Any:
    if isinstance(value, (dict, list, bool)) or value is None:
        return orjson.dumps(value)
    return value


def flatten(mapping: Mapping[str, Any]) -> list[Any]:
    flat: list[Any] = []
    for key, value in mapping.items():
        flat.append(key)
        flat.append(encode_field(value))
    return flat


def entry_fields(fields: Any) -> Mapping[Any, Any]:
    """A stream entry's fields as a mapping: redis-py's cluster client skips the XRANGE response
    callback inside a MULTI pipeline and hands back the raw ``[field, value, ...]`` list."""
    if isinstance(fields, Mapping):
        return fields
    return dict(zip(fields[::2], fields[1::2], strict=True))


def snapshot_bytes(snapshot: Mapping[str, Any] | bytes | None) -> bytes:
    """A snapshot ({"version": n, "state": ...}) as stored: the caller may hand it over encoded;
    None (b"" to the scripts) keeps the stored one."""
    if snapshot is None:
        return b""
    return snapshot if isinstance(snapshot, bytes) else orjson.dumps(snapshot)
