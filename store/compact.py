"""The compact form of a finished game: its whole log as one compressed value.

Once a finished game is archived and verified (``service.compaction``), its event stream (one entry
per event: about 36 KiB for a 4-player Condottiere game) is replaced by one string
``game:{g:<id>}:log`` (about 1.9 KiB), and the keys a finished game no longer needs go: the snapshot
(the fold of the log gives the final state), the full configuration (the genesis events carry it),
and the idempotency records and seat token hashes expire soon (``IDEMPOTENCY_AFTER_COMPACTION_SECONDS``;
after it, a request with a seat token is answered that the game is over, see ``service.games``).

The switch is one Lua script on the game's own keys (one Cluster slot): it writes the compressed
value, deletes the stream and marks the metadata (``compacted``) in one atomic step, so a reader sees
the stream or the compressed value, never neither. Readers (``read_events``, ``load_log``,
``events_of``) read both in one MULTI and take whichever is there.

Value format: one format byte, then the payload.

* ``1``: zlib (level 9) of the JSON array of the events.
* ``2``: an 8-byte dictionary id, then a raw deflate stream (level 9) of the JSON array compressed
  with that preset dictionary (``compact:dict:<id>``). A small log shares most of its vocabulary
  (event types, field names, the game's names for things) with any other log of its engine, so the
  first compacted log of each engine becomes that engine's dictionary (``compact:dict-for:<game>``,
  written once with SET NX and never changed; values name the dictionary they need, so a new one
  could be introduced later without touching old values). It saves a quarter to a third (zlib
  alone: 2.3-2.4 KiB). Dictionaries live outside the games' slots and are read once per process.
"""

from __future__ import annotations

import hashlib
import os
import threading
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson
import redis

from store.keys import game_keys
from store.outbox import TakeDueCall
from store.scripts import ScriptCall, bind

# A late retry of a move of a finished game still gets its first answer for this long after the
# compaction; after it, the append script finds no record and answers that the game is finished.
IDEMPOTENCY_AFTER_COMPACTION_SECONDS = int(os.environ.get("IDEMPOTENCY_AFTER_COMPACTION_SECONDS") or 3600)

FORMAT_ZLIB = 1
FORMAT_DICT = 2
DICT_BYTES = 32 * 1024  # deflate's window: a longer dictionary is not used

_dictionaries: dict[bytes, bytes] = {}
_dictionaries_lock = threading.Lock()


def dictionary_key(dict_id: bytes) -> str:
    return f"compact:dict:{dict_id.hex()}"


def dictionary_for_key(game: str) -> str:
    return f"compact:dict-for:{game}"


def log_key(game_id: str) -> str:
    return game_keys(game_id).log


def _dict_id(dictionary: bytes) -> bytes:
    return hashlib.sha256(dictionary).digest()[:8]


def _remember(dict_id: bytes, dictionary: bytes) -> None:
    with _dictionaries_lock:
        _dictionaries[dict_id] = dictionary


def _dictionary(client: redis.Redis, dict_id: bytes) -> bytes:
    found = _dictionaries.get(dict_id)
    if found is None:
        found = client.get(dictionary_key(dict_id))
        if found is None:
            raise LookupError(f"compression dictionary {dict_id.hex()} is missing")
        found = bytes(found)
        _remember(dict_id, found)
    return found


def engine_dictionary(client: redis.Redis, game: str, sample: bytes) -> tuple[bytes, bytes]:
    """The dictionary of engine ``game`` (id, bytes); the first caller makes ``sample`` (a complete
    log of that engine, as JSON) its dictionary. Written dictionary first, then the pointer, so a
    pointer never names a missing dictionary."""
    raw_id = client.get(dictionary_for_key(game))
    if raw_id is not None:
        dict_id = bytes.fromhex(raw_id.decode())
        return dict_id, _dictionary(client, dict_id)
    dictionary = sample[-DICT_BYTES:]
    dict_id = _dict_id(dictionary)
    client.set(dictionary_key(dict_id), dictionary, nx=True)
    if not client.set(dictionary_for_key(game), dict_id.hex(), nx=True):
        return engine_dictionary(client, game, sample)  # another process won: use theirs
    _remember(dict_id, dictionary)
    return dict_id, dictionary


def encode(events: Sequence[Any], dictionary: tuple[bytes, bytes] | None = None) -> bytes:
    """The compact value of a complete log (with ``dictionary`` = (id, bytes) when given)."""
    raw = orjson.dumps(list(events))
    if dictionary is None:
        return bytes([FORMAT_ZLIB]) + zlib.compress(raw, 9)
    dict_id, zdict = dictionary
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, zdict)
    return bytes([FORMAT_DICT]) + dict_id + packer.compress(raw) + packer.flush()


def decode(client: redis.Redis, value: bytes) -> list[dict[str, Any]]:
    """The events of a compact value (the dictionary it names is read once per process)."""
    kind = value[0]
    if kind == FORMAT_ZLIB:
        return orjson.loads(zlib.decompress(value[1:]))
    if kind == FORMAT_DICT:
        dict_id = bytes(value[1:9])
        unpacker = zlib.decompressobj(-15, _dictionary(client, dict_id))
        return orjson.loads(unpacker.decompress(value[9:]) + unpacker.flush())
    raise ValueError(f"unknown compact log format {kind}")


# A metadata value at most this long keeps the hash in listpack encoding (hash-max-listpack-value).
CHUNK = 64

# KEYS: meta, events, snapshot, config, idem, log, seats
# ARGV: 1 compact value, 2 the version it holds, 3 idempotency TTL after compaction (seconds), 4 the
# number n of metadata fields read, then the n field/value pairs read, then the packed metadata's pairs
# The seat token hashes expire with the idempotency records: a finished game takes no more moves,
# and the move script checks the token before it looks for a kept answer, so a late retry needs
# them exactly as long as the records (0.4 KiB per 4-player game otherwise kept for good).
# Returns 'ok', 'already' (compacted before: the leftovers are removed again, harmlessly),
# 'not_finished', or 'stale' (the stream does not hold exactly that version: nothing changed).
_COMPACT = r"""
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'finished' then
  return 'not_finished'
end
local function shorten_idem()
  local ttl = tonumber(ARGV[3])
  local left = redis.call('TTL', KEYS[5])
  if left == -1 or left > ttl then
    redis.call('EXPIRE', KEYS[5], ttl)
  end
  left = redis.call('TTL', KEYS[7])
  if left == -1 or left > ttl then
    redis.call('EXPIRE', KEYS[7], ttl)
  end
end
if redis.call('EXISTS', KEYS[6]) == 1 then
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
  shorten_idem()
  return 'already'
end
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '-1')
if version ~= tonumber(ARGV[2]) or redis.call('XLEN', KEYS[2]) ~= version then
  return 'stale'
end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
if #last == 0 or last[1][1] ~= (version .. '-1') then
  return 'stale'
end
-- The metadata are replaced by their packed form (``packed_meta``, computed by the caller from the
-- fields it read): only if they are still exactly what it read (ARGV[4]: the number of fields, then
-- the pairs as read), so nothing written meanwhile is lost. The new fields follow the read pairs.
local count = tonumber(ARGV[4])
if redis.call('HLEN', KEYS[1]) ~= count then
  return 'stale'
end
for i = 5, 4 + 2 * count, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then
    return 'stale'
  end
end
redis.call('SET', KEYS[6], ARGV[1])
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
-- The hash is written anew: Redis never converts a hash back to listpack once it has grown out of it.
local fields = {}
for i = 5 + 2 * count, #ARGV do
  fields[#fields + 1] = ARGV[i]
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(fields))
shorten_idem()
return 'ok'
"""
COMPACT = _COMPACT


# A compacted game's metadata keep these fields as they are (the scripts and HMGETs read them: the
# status and version, whether and how it was stored); all the others go into one packed field ``z``
# (raw deflate of their JSON, read back by :func:`unchunk`): 0.98 KiB -> about 0.6 KiB for a 4-player game.
PLAIN_FIELDS = frozenset({"status", "version", "compacted", "imported"})
PACKED = "z"


def packed_meta(meta: Mapping[Any, Any]) -> dict[str, Any]:
    """``meta`` (field -> text or bytes) as a compacted game keeps it: the fields of ``PLAIN_FIELDS``
    as they are, ``compacted``, and the others packed into ``PACKED``, in parts (``chunked``)."""
    plain: dict[str, Any] = {"compacted": "1"}
    rest: dict[str, str] = {}
    for field, value in meta.items():
        name = field.decode() if isinstance(field, bytes) else str(field)
        text = value.decode() if isinstance(value, bytes) else str(value)
        if name in PLAIN_FIELDS:
            plain[name] = text
        else:
            rest[name] = text
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    plain[PACKED] = packer.compress(orjson.dumps(rest)) + packer.flush()
    return chunked(plain)


def _unpacked(value: bytes | str, like: Any) -> dict[Any, Any]:
    raw = value.encode("latin-1") if isinstance(value, str) else value
    fields = orjson.loads(zlib.decompressobj(-15).decompress(raw))
    if isinstance(like, bytes):
        return {k.encode(): v.encode() for k, v in fields.items()}
    return fields


def chunked(meta: dict[str, Any]) -> dict[str, Any]:
    """``meta`` as a compacted game keeps it: values longer than ``CHUNK`` bytes in numbered parts."""
    out: dict[str, Any] = {}
    for field, value in meta.items():
        raw = (
            value.encode() if isinstance(value, str) else bytes(value) if isinstance(value, bytes) else value
        )
        if isinstance(raw, bytes) and len(raw) > CHUNK:
            for part, at in enumerate(range(0, len(raw), CHUNK)):
                out[f"{field}#{part}"] = raw[at : at + CHUNK]
        else:
            out[field] = value
    return out


def pairs(reply: Any) -> dict[Any, Any]:
    """An HGETALL reply as a mapping: redis-py's cluster client skips the response callbacks inside a
    MULTI pipeline and hands back the raw ``[field, value, ...]`` list."""
    if isinstance(reply, list):
        return dict(zip(reply[::2], reply[1::2], strict=True))
    return dict(reply)


def unchunk(meta: Any) -> dict[Any, Any]:
    """A compacted game's metadata as written: the numbered parts (``field#0``, ``field#1``...) of a
    long value joined again (see ``COMPACT``). Keys and values as given (bytes or str); ``meta`` may
    be a raw HGETALL reply (see :func:`pairs`)."""
    parts: dict[Any, list[tuple[int, Any]]] = {}
    whole: dict[Any, Any] = {}
    for field, value in pairs(meta).items():
        name, mark, index = field.rpartition(b"#" if isinstance(field, bytes) else "#")
        if mark and index.isdigit():
            parts.setdefault(name, []).append((int(index), value))
        else:
            whole[field] = value
    for name, pieces in parts.items():
        pieces.sort(key=lambda piece: piece[0])
        whole[name] = pieces[0][1][:0].join(piece for _, piece in pieces)
    for name in list(whole):
        if name in (PACKED, PACKED.encode()):
            whole = {**_unpacked(whole.pop(name), name), **whole}
    return whole


@dataclass(frozen=True, slots=True)
class CompactCall(ScriptCall):
    """:data:`COMPACT`: a finished game's stream replaced by its compact value."""

    SCRIPT: ClassVar[str] = COMPACT
    KEYS: ClassVar[tuple[str, ...]] = ("meta", "events", "snapshot", "config", "idem", "log", "seats")
    meta: str
    events: str
    snapshot: str
    config: str
    idem: str
    log: str
    seats: str
    value: bytes
    version: int
    idempotency_ttl: int
    fields_read: int
    rest: Sequence[Any]  # the metadata pairs read, then the packed metadata's pairs


class Compactor:
    """Replaces a finished game's stream by its compact value (see the module docstring)."""

    def __init__(self, client: redis.Redis):
        self.redis = client
        self._compact = bind(client, CompactCall)

    def compact(self, game_id: str, game: str, events: Sequence[Any]) -> str:
        """Store ``events`` (the game's complete log, read from its stream) as its compact value and
        drop the stream, snapshot and configuration. Idempotent; see ``COMPACT`` for the outcomes."""
        sample = orjson.dumps(list(events))
        value = encode(events, engine_dictionary(self.redis, game, sample))
        if decode(self.redis, value) != orjson.loads(sample):  # never trade a log for a wrong value
            raise AssertionError(f"compact value of {game_id} does not decode to its log")
        keys = game_keys(game_id)
        read = pairs(self.redis.hgetall(keys.meta))
        if b"compacted" in read or "compacted" in read:  # packed already: the script says 'already'
            read = {}
        current = [item for pair in read.items() for item in pair]
        packed = [item for pair in packed_meta(read).items() for item in pair] if read else []
        reply = self._compact(
            CompactCall(
                meta=keys.meta,
                events=keys.events,
                snapshot=keys.snapshot,
                config=keys.config,
                idem=keys.idem,
                log=log_key(game_id),
                seats=keys.seats,
                value=value,
                version=len(events),
                idempotency_ttl=IDEMPOTENCY_AFTER_COMPACTION_SECONDS,
                fields_read=len(read),
                rest=[*current, *packed],
            )
        )
        return reply.decode() if isinstance(reply, bytes) else reply

    def is_compacted(self, game_id: str) -> bool:
        return bool(self.redis.exists(log_key(game_id)))


# Games waiting to be compacted: game id -> the time (ms) from which it may be. One key for all
# games (a Cluster slot of its own): it holds only the games finished in the last minute or so, and
# takes one ZADD and one ZREM per finished game.
DUE = "compact:due"

# The games due now are taken with the outbox's lease script (store.outbox.TakeDueCall): pushed a
# lease later, so two janitors do not compact the same game at once.


class CompactionQueue:
    """Which finished games are to be compacted, and from when (see ``DUE``)."""

    def __init__(self, client: redis.Redis):
        self.redis = client
        self._take = bind(client, TakeDueCall)

    def schedule(self, game_id: str, at_ms: int) -> None:
        """Compact ``game_id`` from ``at_ms`` on (idempotent; an earlier time already set stays)."""
        self.redis.zadd(DUE, {game_id: at_ms}, lt=True)

    def take_due(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]:
        return [
            i.decode() if isinstance(i, bytes) else i
            for i in self._take(TakeDueCall(DUE, now_ms, lease_ms, limit))
        ]

    def done(self, game_id: str) -> None:
        self.redis.zrem(DUE, game_id)

    def due_at(self, game_id: str) -> float | None:
        return self.redis.zscore(DUE, game_id)
