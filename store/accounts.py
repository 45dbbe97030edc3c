"""Accounts in Redis: records, handles, hashed tokens, the account's games and its event feed.

Every key of one account carries the hash tag ``{a:<account id>}`` (one Cluster slot), so each
script below touches one slot. The handle directory is one key per handle, tagged by the handle
(``acct-handle:{h:<folded handle>}``): creating an account writes its record first with a short
expiry, then claims the handle (``SET NX``), then makes the record permanent, so a process killed
in between leaves either an unreachable record that expires, or a handle naming a record that
expires: :meth:`AccountStore.claim_handle` takes such a dangling handle over.

Only hashes of tokens are stored (SHA-256 hex of the whole token, in ``tokens``, field = the
token's id), never a token; a password only as its Argon2id hash.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from store import account_scripts as lua
from store import compact
from store.archive_keys import index_key as archive_index
from store.archive_keys import stats_account_key, stats_forgotten_key
from store.keys import game_keys
from store.scripts import bind

# The revocations stream keeps about this many entries, each for this long: it only wakes the streams
# open now (they then check their token), so nothing in it is ever read back.
REVOKED_LENGTH = 16
REVOKED_SECONDS = 3600
# A record written before its handle is claimed lives this long unless made permanent.
PENDING_RECORD_SECONDS = 60
# The feed keeps about this many events (XADD MAXLEN ~): a client away for longer resumes from
# the stream's start and reads its games again (GET /v1/me/games).
FEED_LENGTH = 200


def _tag(account_id: str) -> str:
    return f"{{a:{account_id}}}"


@dataclass(frozen=True)
class AccountKeys:
    record: str  # hash: handle, folded, password (Argon2id), bot, created
    tokens: str  # hash: token id -> JSON {hash, kind, name, scopes, created, expires}
    used: str  # hash: token id -> last use (ISO), written at most once a minute per token and process
    games: str  # hash: game id -> JSON {seat, game, status, turn, version, ...} (what the feed said)
    finished: str  # sorted set: finished game ids scored by finish time (ms)
    stats: str  # hash: played:<game>, won:<game>
    feed: str  # stream: the account's events (game_started, your_turn, game_finished), capped
    streams: str  # sorted set: open /v1/me/stream connections -> lease expiry (ms)
    # stream: one entry per revocation of the account's tokens (no token in it), capped and expiring;
    # every web process's live reader follows it while a stream opened with one of them is open
    revoked: str

    def all(self) -> list[str]:
        return [
            self.record,
            self.tokens,
            self.used,
            self.games,
            self.finished,
            self.stats,
            self.feed,
            self.streams,
            self.revoked,
        ]


def account_keys(account_id: str) -> AccountKeys:
    tag = _tag(account_id)
    return AccountKeys(
        record=f"acct:{tag}:record",
        tokens=f"acct:{tag}:tokens",
        used=f"acct:{tag}:used",
        games=f"acct:{tag}:games",
        finished=f"acct:{tag}:finished",
        stats=f"acct:{tag}:stats",
        feed=f"acct:{tag}:feed",
        streams=f"acct:{tag}:streams",
        revoked=f"acct:{tag}:revoked",
    )


def handle_key(folded: str) -> str:
    return f"acct-handle:{{h:{folded}}}"


# Sorted set: accounts whose deletion began -> when (ms). The janitor finishes those a dead process
# left (``service.account_deletion.finish_deletions``); the first step is ``store.account_deletion``.
DELETING = "accounts:deleting"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True)
class FeedEntry:
    id: str  # the stream entry id ("<ms>-<n>"): the SSE id
    kind: str
    body: dict[str, Any]


class AccountStore:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._claim_handle = bind(client, lua.ClaimHandleCall)
        self._release_handle = bind(client, lua.ReleaseHandleCall)
        self._add_token = bind(client, lua.AddTokenCall)
        self._record_game = bind(client, lua.RecordGameCall)
        self._lease_stream = bind(client, lua.LeaseStreamCall)
        self._note_uses = bind(client, lua.NoteUsesCall)

    # -- records and handles ----------------------------------------------------------------------
    def write_pending(self, account_id: str, fields: Mapping[str, str]) -> None:
        """The record of a new account, expiring unless :meth:`confirm` follows its handle's claim."""
        keys = account_keys(account_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(keys.record, mapping=dict(fields))
        pipe.expire(keys.record, PENDING_RECORD_SECONDS)
        pipe.execute()

    def claim_handle(self, folded: str, account_id: str) -> bool:
        """Point ``folded`` at ``account_id`` if it is free or names an account with no record."""
        key = handle_key(folded)
        current = self.redis.get(key)
        seen = ""
        if current is not None:
            seen = _text(current)
            if self.redis.exists(account_keys(seen).record):
                return False
        return bool(self._claim_handle(lua.ClaimHandleCall(key, account_id, seen)))

    def discard_pending(self, account_id: str) -> None:
        self.redis.delete(account_keys(account_id).record)

    def confirm(self, account_id: str) -> None:
        self.redis.persist(account_keys(account_id).record)

    def account_for_handle(self, folded: str) -> str | None:
        value = self.redis.get(handle_key(folded))
        return _text(value) if value is not None else None

    def handles(self, account_ids: Sequence[str]) -> list[str | None]:
        """Each account's handle (None: no such account), in one pipelined round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for account_id in account_ids:
            pipe.hget(account_keys(account_id).record, "handle")
        return [_text(h) if h is not None else None for h in (pipe.execute() if account_ids else [])]

    def record(self, account_id: str) -> dict[str, str] | None:
        raw = self.redis.hgetall(account_keys(account_id).record)
        return {_text(k): _text(v) for k, v in raw.items()} if raw else None

    def set_password(self, account_id: str, password_hash: str) -> None:
        self.redis.hset(account_keys(account_id).record, "password", password_hash)

    # -- tokens -----------------------------------------------------------------------------------
    def add_token(
        self,
        account_id: str,
        token_id: str,
        entry: Mapping[str, Any],
        bound: int,
        refuse_beyond: bool = False,
    ) -> bool | None:
        """True when added, False when the account is gone; with ``refuse_beyond``, None (nothing
        written) when the account already holds ``bound`` tokens of the kind, else the oldest of
        the kind go to make room."""
        keys = account_keys(account_id)
        call = lua.AddTokenCall(
            keys.tokens,
            keys.record,
            token_id,
            orjson.dumps(dict(entry)),
            entry["kind"],
            bound,
            "1" if refuse_beyond else "0",
        )
        added = int(self._add_token(call))
        return None if added < 0 else bool(added)

    def token(self, account_id: str, token_id: str) -> dict[str, Any] | None:
        raw = self.redis.hget(account_keys(account_id).tokens, token_id)
        return orjson.loads(raw) if raw else None

    def tokens(self, account_id: str) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
        """Every token's entry and last use, by token id."""
        keys = account_keys(account_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(keys.tokens)
        pipe.hgetall(keys.used)
        entries, used = pipe.execute()
        return (
            {_text(k): orjson.loads(v) for k, v in entries.items()},
            {_text(k): _text(v) for k, v in used.items()},
        )

    def revoke(self, account_id: str, token_ids: Sequence[str]) -> int:
        """Remove the tokens and announce it (:meth:`announce_revoked`), in one transaction."""
        if not token_ids:
            return 0
        keys = account_keys(account_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(keys.tokens, *token_ids)
        pipe.hdel(keys.used, *token_ids)
        self._announce(pipe, keys)
        removed, *_ = pipe.execute()
        return int(removed)

    def announce_revoked(self, account_id: str) -> None:
        """Wake whoever follows the account's revocations (``revocation_feed``): the streams opened
        with its tokens then check theirs at once rather than at their next heartbeat."""
        pipe = self.redis.pipeline(transaction=True)
        self._announce(pipe, account_keys(account_id))
        pipe.execute()

    @staticmethod
    def _announce(pipe: Any, keys: AccountKeys) -> None:
        pipe.xadd(keys.revoked, {"r": "1"}, maxlen=REVOKED_LENGTH, approximate=True)
        pipe.expire(keys.revoked, REVOKED_SECONDS)

    def revocation_feed(self, account_id: str) -> tuple[str, str]:
        """The key of the account's revocations stream and its newest entry id ("0-0": none)."""
        key = account_keys(account_id).revoked
        rows = self.redis.xrevrange(key, "+", "-", count=1)
        return key, _text(rows[0][0]) if rows else "0-0"

    def note_uses(self, uses: Mapping[str, Mapping[str, str]]) -> None:
        """Last uses, {account id: {token id: ISO time}}: one script per account (the service
        coalesces, so this runs about once a minute), written only for tokens that still exist."""
        for account_id, times in uses.items():
            keys = account_keys(account_id)
            pairs = [item for pair in times.items() for item in pair]
            self._note_uses(lua.NoteUsesCall(keys.tokens, keys.used, pairs))

    # -- the account's games and feed ---------------------------------------------------------
    def record_game(
        self, account_id: str, game_id: str, now: Mapping[str, Any], webhooks: tuple[str, str]
    ) -> tuple[list[str], bool]:
        """Tell the account ``now`` of its game (the feed's new entries' ids), and whether its
        webhooks' fan-out has anything to feed (``webhooks``: the keys of its subscriptions and
        cursor, ``WebhookStore.fan_out_keys``), read in the same step."""
        keys = account_keys(account_id)
        fed, *ids = self._record_game(
            lua.RecordGameCall(
                keys.games,
                keys.finished,
                keys.stats,
                keys.feed,
                keys.record,
                *webhooks,
                game_id,
                orjson.dumps(dict(now)),
                FEED_LENGTH,
            )
        )
        return [_text(i) for i in ids], bool(int(fed))

    def games(self, account_id: str) -> dict[str, dict[str, Any]]:
        raw = self.redis.hgetall(account_keys(account_id).games)
        return {_text(k): orjson.loads(v) for k, v in raw.items()}

    def finished_page(self, account_id: str, before: float | None, limit: int) -> list[tuple[str, float]]:
        """Finished games, newest first, finished before ``before`` (ms; None: from the newest)."""
        top: Any = f"({before}" if before is not None else "+inf"
        rows = self.redis.zrevrangebyscore(
            account_keys(account_id).finished, top, "-inf", start=0, num=limit, withscores=True
        )
        return [(_text(member), float(score)) for member, score in rows]

    def game_entries(self, account_id: str, game_ids: Iterable[str]) -> list[dict[str, Any] | None]:
        ids = list(game_ids)
        if not ids:
            return []
        raw = self.redis.hmget(account_keys(account_id).games, ids)
        return [orjson.loads(v) if v else None for v in raw]

    def stats(self, account_id: str) -> dict[str, int]:
        raw = self.redis.hgetall(account_keys(account_id).stats)
        return {_text(k): int(v) for k, v in raw.items()}

    def feed_after(self, account_id: str, after: str | None, count: int = 100) -> list[FeedEntry]:
        key = account_keys(account_id).feed
        low = f"({after}" if after else "-"
        rows = self.redis.xrange(key, low, "+", count=count)
        entries = []
        for entry_id, fields in rows:
            fields = {_text(k): v for k, v in fields.items()}
            entries.append(FeedEntry(_text(entry_id), _text(fields["t"]), orjson.loads(fields["d"])))
        return entries

    def index_archived(self, account_id: str, game_id: str, finished_ms: int) -> None:
        """The archive's index of the account's finished games (``?account=``), beside its other
        ``by:*`` sets and in their slot, scored as they are (the finish time in ms): idempotent."""
        self.redis.zadd(archive_index("account", account_id), {game_id: finished_ms})

    def feed_last_id(self, account_id: str) -> str:
        rows = self.redis.xrevrange(account_keys(account_id).feed, "+", "-", count=1)
        return _text(rows[0][0]) if rows else "0-0"

    def lease_stream(self, account_id: str, stream_id: str, now_ms: int, lease_ms: int, most: int) -> bool:
        key = account_keys(account_id).streams
        return bool(self._lease_stream(lua.LeaseStreamCall(key, stream_id, now_ms, lease_ms, most)))

    def end_stream(self, account_id: str, stream_id: str) -> None:
        self.redis.zrem(account_keys(account_id).streams, stream_id)

    # -- deletion ---------------------------------------------------------------------------------
    def rename_seat(self, game_id: str, seat: int, account_id: str, name: str) -> bool:
        """Give ``seat`` of ``game_id`` the display ``name``, unbind it and mark it ``deleted:<seat>``
        (it counts in no player's statistics: ``service.aggregates``), if it is still bound to
        ``account_id`` (a compacted game's packed metadata is rewritten whole), and take the game
        out of the archive's name indexes of the seat's old name (unless another seat of the game
        has that name too). Optimistic: WATCH the metadata, retried if the game changes meanwhile."""
        key = game_keys(game_id).meta
        for _ in range(5):
            with self.redis.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(key)
                    raw = pipe.hgetall(key)
                    meta = {_text(k): v for k, v in compact.unchunk(raw).items()}
                    if not meta or _text(meta.get(f"account:{seat}", b"")) != account_id:
                        pipe.unwatch()
                        return False
                    pipe.multi()
                    if "compacted" in meta:
                        rest = {k: v for k, v in meta.items() if k != "compacted"}
                        rest[f"name:{seat}"] = name
                        rest[f"deleted:{seat}"] = "1"
                        rest.pop(f"account:{seat}", None)
                        pipe.delete(key)
                        pipe.hset(key, mapping=compact.packed_meta(rest))
                    else:
                        pipe.hset(key, mapping={f"name:{seat}": name, f"deleted:{seat}": "1"})
                        pipe.hdel(key, f"account:{seat}")
                    pipe.execute()
                except redis.WatchError:
                    continue
                old = _text(meta.get(f"name:{seat}", b""))
                others = {
                    _text(v).casefold()
                    for k, v in meta.items()
                    if k.startswith("name:") and k != f"name:{seat}"
                }
                if old and old.casefold() not in others:
                    self.redis.zrem(archive_index("player", old), game_id)
                    self.redis.zrem(archive_index("winner", old), game_id)
                return True
        return False

    def forget_game(self, account_id: str, game_id: str) -> None:
        self.redis.hdel(account_keys(account_id).games, game_id)

    def deletions_begun_before(self, before_ms: int) -> list[str]:
        return [_text(member) for member in self.redis.zrangebyscore(DELETING, "-inf", before_ms)]

    def finish_delete(self, account_id: str, engines: Iterable[str] = ()) -> None:
        """Remove the account's every key, its statistics of each of ``engines`` included, and free
        its handle: the last step of a deletion."""
        keys = account_keys(account_id)
        folded = self.redis.hget(keys.record, "folded")
        self.redis.delete(*keys.all())
        archived = [archive_index("account", account_id), stats_forgotten_key(account_id)]
        self.redis.delete(*archived, *(stats_account_key(engine, account_id) for engine in engines))
        if folded is not None:
            self._release_handle(lua.ReleaseHandleCall(handle_key(_text(folded)), account_id))
        self.redis.zrem(DELETING, account_id)
