"""Webhooks in Redis: an account's subscriptions, its pending deliveries, their log.

Every key of one account's webhooks carries the account's hash tag ``{a:<account id>}``, the slot
of its feed (``store.accounts``), so the script that turns the feed's new entries into deliveries
(``store.webhook_scripts``) reads the feed and writes the deliveries in one atomic, single-slot step. The
only keys of another slot are the hints (``hooks:{hooks}:due``, account -> when its next delivery
is due) and the set of accounts with subscriptions (``hooks:{hooks}:accounts``), which a delivery
loop re-reads now and then so a hint lost to a crash only delays work.

A subscription's signing secret is stored as it is (an HMAC needs the key itself, unlike a token,
which is stored hashed): it is returned once, by the call that creates it, and never by a listing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from store import webhook_scripts as lua
from store.accounts import account_keys
from store.scripts import bind

HINTS = "hooks:{hooks}:due"
ACCOUNTS = "hooks:{hooks}:accounts"
# At most this many subscriptions per account, feed entries read per fan-out step.
MOST_SUBSCRIPTIONS = 20
FAN_OUT_BATCH = 100


@dataclass(frozen=True)
class HookKeys:
    subs: str  # hash: subscription id -> JSON {id, url, events, game_id, format, secret, paused, ...}
    cursor: str  # string: the last feed entry id turned into deliveries
    deliveries: str  # hash: delivery id -> JSON {id, sub, type, ms, data, attempts, created_ms}
    due: str  # sorted set: delivery id -> next attempt (ms); a taken one is leased forward
    feed: str  # the account's feed (store.accounts)
    told: str  # sorted set: finished jobs the account was told of (job id@record creation) -> ms
    pings: str  # string: test pings asked for in the current window (expires with it)

    def log(self, sub_id: str) -> str:
        """list: the subscription's last attempts, newest first (JSON)."""
        return self.subs.replace(":subs", f":log:{sub_id}")


def hook_keys(account_id: str) -> HookKeys:
    tag = f"{{a:{account_id}}}"
    return HookKeys(
        subs=f"hook:{tag}:subs",
        cursor=f"hook:{tag}:cursor",
        deliveries=f"hook:{tag}:deliveries",
        due=f"hook:{tag}:due",
        feed=account_keys(account_id).feed,
        told=f"hook:{tag}:told",
        pings=f"hook:{tag}:pings",
    )


def creator_key(game_id: str) -> str:
    """string: the account that created the game (in the game's slot)."""
    return f"hook:{{g:{game_id}}}:creator"


def watchers_key(game_id: str) -> str:
    """set: accounts with a game-wide subscription to the game (in the game's slot)."""
    return f"hook:{{g:{game_id}}}:watchers"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class WebhookStore:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._add = bind(client, lua.AddCall)
        self._fan_out = bind(client, lua.FanOutCall)
        self._take = bind(client, lua.TakeCall)
        self._settle = bind(client, lua.SettleCall)
        self._update = bind(client, lua.UpdateCall)
        self._drop_hint = bind(client, lua.DropHintCall)
        self._game_event = bind(client, lua.GameEventCall)
        self._job_event = bind(client, lua.JobEventCall)
        self._count_ping = bind(client, lua.CountPingCall)

    # -- game-wide subscriptions --------------------------------------------------------------
    def set_creator(self, game_id: str, account_id: str) -> None:
        self.redis.set(creator_key(game_id), account_id, nx=True)

    def creator(self, game_id: str) -> str | None:
        raw = self.redis.get(creator_key(game_id))
        return _text(raw) if raw else None

    def add_watcher(self, game_id: str, account_id: str) -> None:
        self.redis.sadd(watchers_key(game_id), account_id)

    def watchers(self, game_id: str) -> list[str]:
        return sorted(_text(a) for a in self.redis.smembers(watchers_key(game_id)))

    def game_event(
        self, account_id: str, game_id: str, kind: str, data: Mapping[str, Any], now_ms: int
    ) -> int:
        keys = hook_keys(account_id)
        made = int(
            self._game_event(
                lua.GameEventCall(
                    keys.subs, keys.deliveries, keys.due, game_id, kind, orjson.dumps(dict(data)), now_ms
                )
            )
        )
        if made:
            self.hint(account_id, now_ms)
        return made

    # -- finished jobs (verified, export_ready) --------------------------------------
    def job_event(
        self,
        account_id: str,
        notice: str,
        kind: str,
        data: Mapping[str, Any],
        now_ms: int,
        feed_length: int,
        keep_ms: int,
    ) -> bool:
        """Put a finished job's notice on the account's feed unless it is there already (see
        :data:`_JOB_EVENT`); the caller then runs :meth:`fan_out`. True when this call added it."""
        keys = hook_keys(account_id)
        return bool(
            self._job_event(
                lua.JobEventCall(
                    told=keys.told,
                    feed=keys.feed,
                    record=account_keys(account_id).record,
                    notice=notice,
                    kind=kind,
                    data_json=orjson.dumps(dict(data)),
                    now_ms=now_ms,
                    feed_length=feed_length,
                    forget_before_ms=now_ms - keep_ms,
                    keep_ms=keep_ms,
                )
            )
        )

    # -- subscriptions ----------------------------------------------------------------------
    def add(self, account_id: str, sub: Mapping[str, Any]) -> bool:
        keys = hook_keys(account_id)
        added = self._add(
            lua.AddCall(keys.subs, keys.cursor, keys.feed, sub["id"], orjson.dumps(sub), MOST_SUBSCRIPTIONS)
        )
        if added:
            self.redis.sadd(ACCOUNTS, account_id)
        return bool(added)

    def subscriptions(self, account_id: str) -> dict[str, dict[str, Any]]:
        raw = self.redis.hgetall(hook_keys(account_id).subs)
        return {_text(k): orjson.loads(v) for k, v in raw.items()}

    def subscription(self, account_id: str, sub_id: str) -> dict[str, Any] | None:
        raw = self.redis.hget(hook_keys(account_id).subs, sub_id)
        return orjson.loads(raw) if raw else None

    def update(self, account_id: str, sub_id: str, fields: Mapping[str, Any]) -> dict[str, Any] | None:
        out = self._update(lua.UpdateCall(hook_keys(account_id).subs, sub_id, orjson.dumps(dict(fields))))
        return orjson.loads(out) if out else None

    def delete(self, account_id: str, sub_id: str) -> bool:
        keys = hook_keys(account_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(keys.subs, sub_id)
        pipe.delete(keys.log(sub_id))
        return bool(pipe.execute()[0])  # its pending deliveries are dropped when next taken

    def log(self, account_id: str, sub_id: str, count: int) -> list[dict[str, Any]]:
        return [
            orjson.loads(row) for row in self.redis.lrange(hook_keys(account_id).log(sub_id), 0, count - 1)
        ]

    # -- deliveries -------------------------------------------------------------------------
    @staticmethod
    def fan_out_keys(account_id: str) -> tuple[str, str]:
        """The keys :meth:`fan_out` first looks at (subscriptions, cursor): with no subscription or
        no cursor it returns at once, having changed nothing (``AccountStore.record_game`` reads
        them in its step, so that a game's follow-up skips the fan-out's round trip then)."""
        keys = hook_keys(account_id)
        return keys.subs, keys.cursor

    def fan_out(self, account_id: str, now_ms: int) -> int:
        """Turn the account's new feed entries into deliveries (idempotent); hint the delivery
        loop when any were made. Returns how many."""
        keys = hook_keys(account_id)
        made_total = 0
        for _ in range(50):  # bounded: FAN_OUT_BATCH entries a step, the feed holds ~200
            made, more = self._fan_out(
                lua.FanOutCall(
                    keys.subs, keys.cursor, keys.feed, keys.deliveries, keys.due, now_ms, FAN_OUT_BATCH
                )
            )
            made_total += int(made)
            if not int(more):
                break
        if made_total:
            self.hint(account_id, now_ms)
        return made_total

    def add_delivery(self, account_id: str, record: Mapping[str, Any], now_ms: int) -> bool:
        """A delivery made outside the feed (a test ping)."""
        keys = hook_keys(account_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hsetnx(keys.deliveries, record["id"], orjson.dumps(dict(record)))
        pipe.zadd(keys.due, {record["id"]: now_ms})
        pipe.execute()
        self.hint(account_id, now_ms)
        return True

    def count_ping(self, account_id: str, most: int, window_ms: int) -> int | None:
        """Count a test ping of the account: None when it may be sent, else the milliseconds until
        the window that holds ``most`` pings ends."""
        key = hook_keys(account_id).pings
        if self._count_ping(lua.CountPingCall(key, most, window_ms)):
            return None
        return max(1, int(self.redis.pttl(key)))

    def hint(self, account_id: str, due_ms: int) -> None:
        self.redis.zadd(HINTS, {account_id: due_ms})

    def due_accounts(self, now_ms: int, most: int) -> list[tuple[str, float]]:
        rows = self.redis.zrangebyscore(HINTS, "-inf", now_ms, start=0, num=most, withscores=True)
        return [(_text(a), float(s)) for a, s in rows]

    def settle_hint(self, account_id: str, seen: float) -> None:
        """After a pass over the account: hint its next due delivery, or drop the hint (unless a
        writer moved it meanwhile)."""
        nxt = self.redis.zrange(hook_keys(account_id).due, 0, 0, withscores=True)
        if nxt:
            self.redis.zadd(HINTS, {account_id: int(nxt[0][1])})
        else:
            self._drop_hint(lua.DropHintCall(HINTS, account_id, seen))

    def rehint_all(self) -> int:
        """The backstop for hints lost between a script and its hint: every account with
        subscriptions whose due set holds anything is hinted again."""
        accounts = [_text(a) for a in self.redis.smembers(ACCOUNTS)]
        pipe = self.redis.pipeline(transaction=False)
        for account_id in accounts:
            pipe.zrange(hook_keys(account_id).due, 0, 0, withscores=True)
        count = 0
        for account_id, first in zip(accounts, pipe.execute(), strict=True):
            if first:
                self.redis.zadd(HINTS, {account_id: int(first[0][1])}, nx=True)
                count += 1
        return count

    def take(self, account_id: str, now_ms: int, lease_ms: int, most: int) -> list[dict[str, Any]]:
        keys = hook_keys(account_id)
        rows = self._take(lua.TakeCall(keys.deliveries, keys.due, now_ms, lease_ms, most))
        return [orjson.loads(row) for row in rows]

    def settle(
        self,
        account_id: str,
        sub_id: str,
        delivery_id: str,
        outcome: str,
        next_ms: int,
        attempt: Mapping[str, Any],
        log_length: int,
        now_ms: int,
        pause_after_ms: int,
        feed_length: int,
    ) -> None:
        keys = hook_keys(account_id)
        self._settle(
            lua.SettleCall(
                deliveries=keys.deliveries,
                due=keys.due,
                subs=keys.subs,
                log=keys.log(sub_id),
                feed=keys.feed,
                delivery_id=delivery_id,
                outcome=outcome,
                next_ms=next_ms,
                attempt_json=orjson.dumps(dict(attempt)),
                log_length=log_length,
                now_ms=now_ms,
                pause_after_ms=pause_after_ms,
                feed_length=feed_length,
            )
        )

    def pending(self, account_id: str) -> int:
        return int(self.redis.zcard(hook_keys(account_id).due))
