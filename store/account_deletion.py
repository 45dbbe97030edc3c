"""The first step of an account's deletion, in one script in the account's slot: every credential
(tokens, their last uses, open-stream leases, the password) and every webhook of the account (its
subscriptions with their URLs and secrets, pending deliveries, delivery logs, cursor, job notices)
go together, and the record says ``deleting``. Nothing can fire a webhook of the account once it
has run: the fan-out and the game-wide events read the subscriptions it removed.

The account's webhook keys and its credentials share the hash tag ``{a:<account id>}``
(``store.accounts``, ``store.webhooks``), so the step is atomic on Redis Cluster too. What lives in
other slots (the delivery loop's hint and account set, ``hooks:{hooks}:*``; the sets of accounts
watching a game, ``hook:{g:<game>}:watchers``) only points at the account: :meth:`unhook` removes
those pointers afterwards, from the game ids the script wrote into the record (``unwatch``), and
is idempotent, so the janitor reruns it after a crash (``service.account_deletion``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson
import redis

from store.accounts import DELETING, AccountStore, account_keys
from store.scripts import ScriptCall, bind
from store.webhooks import ACCOUNTS, HINTS, hook_keys, watchers_key

# KEYS: 1 record, 2 tokens, 3 used, 4 streams, 5 subs, 6 cursor, 7 deliveries, 8 due, 9 told,
# 10 pings, 11.. the log of each subscription id in ARGV (the ids the caller read). Returns 1 when begun,
# 0 for no account, -1 when the subscriptions changed since the caller read them (read again):
# every key a script touches is one it was given, as Redis Cluster asks.
_BEGIN = r"""
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local seen = {}
for i = 1, #ARGV do seen[ARGV[i]] = true end
local unwatch = {}
local subs = redis.call('HGETALL', KEYS[5])
for i = 1, #subs, 2 do
  if not seen[subs[i]] then
    return -1
  end
  local s = cjson.decode(subs[i + 1])
  if s.game_wide == true and type(s.game_id) == 'string' then
    unwatch[#unwatch + 1] = s.game_id
  end
end
for i = 11, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10])
redis.call('HDEL', KEYS[1], 'password')
-- The game ids whose watcher sets (other slots) still name the account, kept until it is finished.
local prior = redis.call('HGET', KEYS[1], 'unwatch')
if prior then
  for _, g in ipairs(cjson.decode(prior)) do unwatch[#unwatch + 1] = g end
end
if #unwatch > 0 then
  redis.call('HSET', KEYS[1], 'unwatch', cjson.encode(unwatch))
end
redis.call('HSET', KEYS[1], 'deleting', '1')
return 1
"""


@dataclass(frozen=True, slots=True)
class BeginCall(ScriptCall):
    """:data:`_BEGIN`: an account's credentials and webhooks removed, its deletion begun."""

    SCRIPT: ClassVar[str] = _BEGIN
    KEYS: ClassVar[tuple[str, ...]] = (
        "record", "tokens", "used", "streams", "subs", "cursor", "deliveries", "due", "told", "pings"
    )  # fmt: skip
    record: str
    tokens: str
    used: str
    streams: str
    subs: str
    cursor: str
    deliveries: str
    due: str
    told: str
    pings: str
    rest_keys: Sequence[str]  # the log of each subscription in ``rest``
    rest: Sequence[Any]  # the subscription ids the caller read


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class AccountDeletionStore:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._begin = bind(client, BeginCall)

    def begin(self, account_id: str, now_ms: int) -> bool:
        """Note the deletion (for the janitor, first), then remove every credential and webhook of
        the account in one step. False (and nothing changed) when there is no such account."""
        self.redis.zadd(DELETING, {account_id: now_ms})
        keys = account_keys(account_id)
        hooks = hook_keys(account_id)
        for _ in range(10):  # a subscription added between the read and the script: read again
            sub_ids = [_text(s) for s in self.redis.hkeys(hooks.subs)]
            done = int(
                self._begin(
                    BeginCall(
                        record=keys.record,
                        tokens=keys.tokens,
                        used=keys.used,
                        streams=keys.streams,
                        subs=hooks.subs,
                        cursor=hooks.cursor,
                        deliveries=hooks.deliveries,
                        due=hooks.due,
                        told=hooks.told,
                        pings=hooks.pings,
                        rest_keys=[hooks.log(s) for s in sub_ids],
                        rest=sub_ids,
                    )
                )
            )
            if done >= 0:
                break
        else:
            raise RuntimeError("the account's subscriptions kept changing during its deletion")
        if done == 0:
            self.redis.zrem(DELETING, account_id)
        else:  # the streams opened with its tokens end at once (store.accounts)
            AccountStore(self.redis).announce_revoked(account_id)
        return done == 1

    def unhook(self, account_id: str) -> None:
        """Remove what still points at the deleted account from other slots: the delivery loop's
        hint and account set, and the watcher sets of the games it had game-wide webhooks on.
        Idempotent; the record (read for ``unwatch``) goes later, with the account's other keys."""
        raw = self.redis.hget(account_keys(account_id).record, "unwatch")
        for game_id in orjson.loads(raw) if raw else []:
            self.redis.srem(watchers_key(game_id), account_id)
        self.redis.srem(ACCOUNTS, account_id)
        self.redis.zrem(HINTS, account_id)
