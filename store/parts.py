"""The store's parts on a store object's own connection (the services ask the store for
them and never hand ``GameStore.redis`` around; ``tests/test_store_boundary.py`` keeps it so).

Each part is built once per connection (a Redis client) and kept with it: building one registers
its Lua scripts (a SHA-1 of each source), which the hot paths used to redo on every call.

Functions of the store rather than ``GameStore`` properties: ``store.archive_import`` and ``store.live``
import ``store.games``, so ``GameStore`` cannot import them back without an import circle. A part
is asked of a ``GameStore`` or of an ``Archive`` (the ratings' and the statistics' functions are
handed the archive alone): either is one connection.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import redis

from store.account_deletion import AccountDeletionStore
from store.accounts import AccountStore
from store.analysis import AnalysisStore
from store.archive import Archive
from store.archive_import import import_finished_game as _import_finished_game
from store.bot_accounts import BotAccounts
from store.bound_games import BoundGames
from store.challenges import ChallengeStore
from store.chat import ChatStore
from store.compact import CompactionQueue, Compactor
from store.facts_lease import FactsLease
from store.game_logs import GameLog
from store.game_logs import game_version as _game_version
from store.game_logs import load_log as _load_log
from store.game_logs import load_meta as _load_meta
from store.games import GameStore
from store.jobs import JobBook
from store.ladder import LadderStore
from store.live import EventsReader
from store.lobby import LobbyStore
from store.outbox import Outbox
from store.ratings import RatingStore
from store.replay_cache import ReplayCache
from store.seat_changes import SeatChanges
from store.seeks import SeekStore
from store.tournaments import TournamentStore
from store.webhooks import WebhookStore

Connected = GameStore | Archive
Part = TypeVar("Part")

# connection -> (kind of part, its arguments) -> the part. Weak: a part lives as long as its client.
_built: weakref.WeakKeyDictionary[Any, dict[Any, Any]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _client(on: Connected) -> redis.Redis:
    return on.redis


def _once(on: Connected, kind: Callable[..., Part], *args: Any) -> Part:
    """The part ``kind(client, *args)`` of ``on``'s connection, built on first use."""
    client = _client(on)
    key = (kind, args)
    parts = _built.get(client)
    if parts is not None and key in parts:
        found: Part = parts[key]
        return found
    with _lock:
        parts = _built.setdefault(client, {})
        if key not in parts:
            parts[key] = kind(client, *args)
        made: Part = parts[key]
        return made


def facts_lease(store: GameStore) -> FactsLease:
    """The lease on the analytical store's scheduled compaction (``store.facts_lease``)."""
    return _once(store, FactsLease)


def outbox(store: GameStore) -> Outbox:
    """The follow-up actions' outbox (``store.outbox``)."""
    return _once(store, Outbox)


def webhooks(store: Connected) -> WebhookStore:
    """Webhook subscriptions and deliveries (``store.webhooks``)."""
    return _once(store, WebhookStore)


def archive(store: GameStore, engines: Iterable[str] = ()) -> Archive:
    """The archive index of finished games (``store.archive``); ``engines``: see ``Archive``."""
    return _once(store, _archive, tuple(engines))


def _archive(client: redis.Redis, engines: tuple[str, ...]) -> Archive:
    return Archive(client, engines=engines)


def analyses(store: GameStore) -> AnalysisStore:
    """Finished games' analyses and the accounts' request counters (``store.analysis``)."""
    return AnalysisStore(store.redis)


def accounts(store: Connected) -> AccountStore:
    """Accounts, their tokens, games and feeds (``store.accounts``)."""
    return _once(store, AccountStore)


def account_deletion(store: Connected) -> AccountDeletionStore:
    """An account deletion's first step and its pointers elsewhere (``store.account_deletion``)."""
    return AccountDeletionStore(_client(store))


def challenges(store: GameStore) -> ChallengeStore:
    """Challenges: invitations whose acceptance creates their game (``store.challenges``)."""
    return ChallengeStore(store.redis, store.followup_grace_ms)


def tournaments(store: Connected) -> TournamentStore:
    """Tournaments: record, entrants and rounds under one hash tag (``store.tournaments``)."""
    return _once(store, TournamentStore, int(getattr(store, "followup_grace_ms", 2000)))


def bound_games(store: GameStore) -> BoundGames:
    """Started games with every seat bound, created once under an id known beforehand."""
    return _once(store, BoundGames, store.followup_grace_ms)


def ladder(store: Connected) -> LadderStore:
    """The bot ladder's pairings and tallies under one hash tag (``store.ladder``)."""
    return _once(store, LadderStore, int(getattr(store, "followup_grace_ms", 2000)))


def chat(store: GameStore) -> ChatStore:
    """A game's chat rooms (``store.chat``)."""
    return ChatStore(store.redis)


def lobby(store: GameStore) -> LobbyStore:
    """The live lobby's stream (``store.lobby``)."""
    return LobbyStore(store.redis)


def seeks(store: GameStore) -> SeekStore:
    """Seek pools and the matcher's claimed tables (``store.seeks``)."""
    return SeekStore(store.redis)


def ratings(store: Connected) -> RatingStore:
    """The ratings of the archive's games (``store.ratings``)."""
    return _once(store, RatingStore)


def job_book(store: GameStore) -> JobBook:
    """The jobs' records (``store.jobs``)."""
    return _once(store, JobBook)


def replay_cache(store: GameStore) -> ReplayCache:
    """Finished games' kept answers (``store.replay_cache``)."""
    return _once(store, ReplayCache)


def load_log(store: Connected, game_id: str) -> GameLog | None:
    """A game's whole log, metadata and snapshot in one read (``store.game_logs.load_log``)."""
    return _load_log(_client(store), game_id)


def load_meta(store: Connected, game_id: str) -> GameLog | None:
    """A game's metadata only (``store.game_logs.load_meta``)."""
    return _load_meta(_client(store), game_id)


def import_finished_game(
    store: GameStore,
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
    """Store a validated log as a finished game and list it (``store.archive_import``)."""
    return _import_finished_game(
        store.redis,
        game_id=game_id,
        name=name,
        title=title,
        public_config=public_config,
        full_config=full_config,
        players=players,
        events=events,
        snapshot_state=snapshot_state,
        result=result,
        now=now,
        resume=resume,
    )


def game_version(store: GameStore, game_id: str) -> tuple[str, int] | None:
    """(status, version) of a stored game, or None (``store.game_logs.game_version``)."""
    return _game_version(store.redis, game_id)


def compaction_queue(store: GameStore) -> CompactionQueue:
    """The finished games due for compaction (``store.compact``)."""
    return _once(store, CompactionQueue)


def compactor(store: GameStore) -> Compactor:
    """The script that replaces a finished game's stream by its compact log (``store.compact``)."""
    return _once(store, Compactor)


def events_reader(store: GameStore) -> EventsReader:
    """The live reader's connection to the games' event streams (``store.live``): one per caller
    (each live hub reads on its own), so not kept."""
    return EventsReader(store.redis)


def seat_changes(store: Connected) -> SeatChanges:
    """Seats left before the start, rematch offers (``store.seat_changes``)."""
    return SeatChanges(_client(store))


def bot_accounts(store: Connected) -> BotAccounts:
    """Bot accounts: the upgrade and who is online (``store.bot_accounts``)."""
    return BotAccounts(_client(store))
