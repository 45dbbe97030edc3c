"""The store's parts on a game store's own connection (issue 29: the services ask the store for
them and never hand ``GameStore.redis`` around).

Functions of the store rather than ``GameStore`` properties: ``store.archive`` and ``store.live``
import ``store.games``, so ``GameStore`` cannot import them back without an import circle.
"""

from __future__ import annotations

from store.archive import Archive, GameLog
from store.archive import load_log as _load_log
from store.compact import CompactionQueue, Compactor
from store.games import GameStore
from store.live import EventsReader
from store.outbox import Outbox
from store.webhooks import WebhookStore


def outbox(store: GameStore) -> Outbox:
    """The follow-up actions' outbox (``store.outbox``)."""
    return Outbox(store.redis)


def webhooks(store: GameStore) -> WebhookStore:
    """Webhook subscriptions and deliveries (``store.webhooks``)."""
    return WebhookStore(store.redis)


def archive(store: GameStore) -> Archive:
    """The archive index of finished games (``store.archive``)."""
    return Archive(store.redis)


def load_log(store: GameStore, game_id: str) -> GameLog | None:
    """A game's whole log, metadata and snapshot in one read (``store.archive.load_log``)."""
    return _load_log(store.redis, game_id)


def compaction_queue(store: GameStore) -> CompactionQueue:
    """The finished games due for compaction (``store.compact``)."""
    return CompactionQueue(store.redis)


def compactor(store: GameStore) -> Compactor:
    """The script that replaces a finished game's stream by its compact log (``store.compact``)."""
    return Compactor(store.redis)


def events_reader(store: GameStore) -> EventsReader:
    """The live reader's connection to the games' event streams (``store.live``)."""
    return EventsReader(store.redis)
