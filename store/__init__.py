"""The only package that talks to Redis (see docs/architecture.md, "Event store")."""

from store.connections import connect
from store.game_logs import iter_all_events
from store.games import GameStore
from store.keys import GameKeys, game_keys
from store.queues import QueueRedisRequired, queue_connection, queue_url
from store.records import AppendResult, ClaimResult, StoredGame, StreamEntry
from store.scripts import SNAPSHOT_INTERVAL

__all__ = [
    "SNAPSHOT_INTERVAL",
    "AppendResult",
    "ClaimResult",
    "GameKeys",
    "GameStore",
    "StoredGame",
    "StreamEntry",
    "QueueRedisRequired",
    "connect",
    "queue_connection",
    "queue_url",
    "game_keys",
    "iter_all_events",
]
