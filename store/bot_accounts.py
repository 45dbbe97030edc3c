"""Bot accounts (as Lichess has them): the irreversible upgrade of an account with no games, and
the set of bot accounts online (with an open ``/v1/me/stream``).

``acct:{a:<id>}:record`` field ``bot`` (``1``/``0``) is the account's own mark (``store.accounts``).
``bots:online`` (sorted set): bot account id -> the expiry (ms) of its newest stream lease, renewed
with the lease at every heartbeat (``service.accounts.STREAM_LEASE_SECONDS``), so a bot whose process
was killed drops out within a lease; a listing reads only unexpired members.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import redis

from store.accounts import account_keys
from store.scripts import ScriptCall, bind

ONLINE = "bots:online"

# KEYS: record, games, finished. Returns 'upgraded', 'already', 'has_games' or 'missing'.
_UPGRADE = r"""
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 'missing'
end
if redis.call('HGET', KEYS[1], 'bot') == '1' then
  return 'already'
end
if redis.call('HLEN', KEYS[2]) > 0 or redis.call('ZCARD', KEYS[3]) > 0 then
  return 'has_games'
end
redis.call('HSET', KEYS[1], 'bot', '1')
return 'upgraded'
"""


@dataclass(frozen=True, slots=True)
class UpgradeCall(ScriptCall):
    """:data:`_UPGRADE`: an account with no game marked a bot."""

    SCRIPT: ClassVar[str] = _UPGRADE
    KEYS: ClassVar[tuple[str, ...]] = ("record", "games", "finished")
    record: str
    games: str
    finished: str
    rest: Sequence[Any] = ()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class BotAccounts:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._upgrade = bind(client, UpgradeCall)

    def upgrade(self, account_id: str) -> str:
        """Mark the account a bot if it has no game, open, running or finished (one atomic step)."""
        keys = account_keys(account_id)
        return _text(self._upgrade(UpgradeCall(keys.record, keys.games, keys.finished)))

    def are_bots(self, account_ids: Sequence[str]) -> list[bool]:
        """Whether each account is a bot account (False: a person's, or no such account)."""
        if not account_ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for account_id in account_ids:
            pipe.hget(account_keys(account_id).record, "bot")
        return [value is not None and _text(value) == "1" for value in pipe.execute()]

    def online(self, account_id: str, until_ms: int) -> None:
        self.redis.zadd(ONLINE, {account_id: until_ms}, gt=True)

    def offline_unless_streaming(self, account_id: str, now_ms: int) -> None:
        """Out of the online set when none of the account's streams holds a live lease."""
        if not self.redis.zcount(account_keys(account_id).streams, now_ms, "+inf"):
            self.redis.zrem(ONLINE, account_id)

    def online_ids(self, now_ms: int, most: int) -> list[str]:
        """Bot accounts with a live stream lease, the most recently renewed first."""
        self.redis.zremrangebyscore(ONLINE, "-inf", now_ms)
        return [_text(m) for m in self.redis.zrevrangebyscore(ONLINE, "+inf", now_ms, start=0, num=most)]
