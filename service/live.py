"""The per-process live listener: one :class:`store.live.EventsReader` for every open stream.

Every stream of a web process (event streams and per-seat view streams alike) subscribes here
instead of holding its own blocking ``XREAD``: one background thread (a greenlet under gunicorn's
gevent worker, whose monkey patching makes ``threading`` cooperative) reads the new events of every
watched game on one connection and wakes the streams of each game that moved. Before waking them
it hands the events to ``on_news`` (the service folds them into its cached state once per process,
so N streams of one game cost one evolve per event, not N).

Each watched game keeps its last few entries, so a stream that was waiting gets its events without
another Redis read; a stream that fell further behind is told so (``None``) and reads the store.

Other streams can be followed on the same read (``follow_feed``): an account's feed
(``GET /v1/me/stream``, ``service.accounts``) is named in the very ``XREAD``, so an idle account
stream costs no read of its own; the reader only notes where the feed now stands and wakes its
subscribers, which read the new entries themselves (they are rare: a game's start, a turn, an end).

A move this process took itself is delivered as it commits (``deliver_local``), not when the reader
reads it back: with game-affine connections (``api.edge.affinity``) that is nearly every move of the
games this process streams. The reader still wakes on that entry (Redis wakes a blocked ``XREAD``
on any new entry of a stream it names) and finds nothing new; it then waits a few milliseconds
before it reads again (``ECHO_PAUSE_SECONDS``), so that a busy process reads once for several moves
rather than once for each (0.85 ``XREAD`` per move with no pause, under 0.06 now).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from store import StreamEntry
from store.errors import StoreError
from store.live import EventsReader

log = logging.getLogger(__name__)

RECENT_ENTRIES = 64
# The longest one XREAD blocks. A stream that opens for a new game wakes the reader (CLIENT UNBLOCK),
# but that wake can be lost in a race (sent just before the XREAD reaches Redis); this bounds how long
# the new game's first events may then wait. Cost: one XREAD per second per idle process.
MAX_BLOCK_SECONDS = 1.0
# How long the reader waits before its next XREAD when the last one brought only entries this
# process had already delivered itself (``LiveHub.deliver_local``): without it, each of a game's
# moves taken here wakes the reader once more for nothing. It delays, by at most this much, the
# streams of a game whose move another process took (a bot's worker, another web process), and only
# while this process is busy with moves of its own. 20 ms rather than 5: the reader's share of a
# busy web worker went from 4.3-4.8% to 1.5%, and a delay of 20 ms is far below what a
# player notices, or what a bot's move spends in its worker's queue.
ECHO_PAUSE_SECONDS = 0.02


class _Watched:
    __slots__ = ("position", "recent", "changed", "subscribers", "pushers")

    def __init__(self, position: int):
        self.position = position  # the highest version the reader has seen (or the first `after`)
        # The last entries, oldest first. Replaced whole (never mutated) by the one thread that
        # delivers, before ``position``: a stream reads both without a lock.
        self.recent: tuple[StreamEntry, ...] = ()
        # Set (and replaced by a fresh one) at every delivery. One Event per delivery rather than a
        # Condition: under gevent a Condition's wait allocates and takes three locks, the largest
        # share of a stream message's CPU in a profile of the hot path; an Event's wait is one switch.
        self.changed = threading.Event()
        self.subscribers = 0
        # Called by the reader right after each delivery, with the new position (see ``subscribe``).
        # A tuple replaced whole under the hub's lock, so the reader iterates it without one.
        self.pushers: tuple[Callable[[int], None], ...] = ()


def _stream_id(entry_id: str) -> tuple[int, int]:
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


class _Feed:
    __slots__ = ("position", "generation", "changed", "subscribers", "callbacks")

    def __init__(self, position: str):
        self.position = position  # the newest entry id the reader has seen: its next XREAD's start
        self.generation = 0  # bumped at every delivery (before ``changed`` is set)
        self.changed = threading.Event()  # replaced by a fresh one at every delivery, as _Watched's
        self.subscribers = 0
        # Called by the reader after each delivery (``follow_feed``'s ``on_news``); a tuple replaced
        # whole under the hub's lock, as _Watched's pushers.
        self.callbacks: tuple[Callable[[], None], ...] = ()


class FeedSubscription:
    """One stream's interest in a feed (see :meth:`LiveHub.follow_feed`). Close it (or use it as
    a context manager)."""

    def __init__(self, hub: LiveHub, key: str, feed: _Feed, on_news: Callable[[], None] | None = None):
        self.hub = hub
        self.key = key
        self._feed = feed
        self._seen = feed.generation
        self._closed = False
        self._on_news = on_news

    def wait(self, timeout: float) -> bool:
        """True as soon as the feed has news since the last call (or since the subscription, for
        the first), False after ``timeout`` seconds without (or when interrupted)."""
        feed = self._feed
        changed = feed.changed  # taken before the check: a delivery after it sets this one
        if feed.generation == self._seen:
            changed.wait(timeout)
        if feed.generation == self._seen:
            return False
        self._seen = feed.generation
        return True

    def interrupt(self) -> None:
        """End this subscription's wait now (a stream whose client hung up); the feed's other
        waiting streams wake too, find nothing new, and wait again."""
        self.hub._wake_feed(self._feed)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.hub._release_feed(self.key, self._feed, self._on_news)

    def __enter__(self) -> FeedSubscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Subscription:
    """One stream's interest in one game. Close it (or use it as a context manager)."""

    def __init__(
        self, hub: LiveHub, game_id: str, watched: _Watched, push: Callable[[int], None] | None = None
    ):
        self.hub = hub
        self.game_id = game_id
        self._watched = watched
        self._push = push
        self._closed = False

    def wait(self, after: int, timeout: float) -> list[StreamEntry] | None:
        """Entries with a version above ``after`` once there are some, waiting up to ``timeout``
        seconds: ``[]`` when nothing came, ``None`` when some came but are no longer all kept here
        (the caller reads them from the store)."""
        watched = self._watched
        if watched.position <= after:
            changed = watched.changed  # taken before the check: a delivery after it sets this one
            if watched.position <= after:
                changed.wait(timeout)
            if watched.position <= after:
                return []
        # Versions grow along ``recent``: walk back from the newest (every stream of a game wakes on
        # each move, and most want only the last entry or two of the 64 kept).
        recent = watched.recent
        entries = []
        for entry in reversed(recent):
            if entry.version <= after:
                break
            entries.append(entry)
        entries.reverse()
        if not entries or entries[0].version != after + 1:
            return None
        return entries

    @property
    def position(self) -> int:
        return self._watched.position

    def interrupt(self) -> None:
        """End this subscription's wait now, with nothing new (a stream whose client hung up). The
        game's other waiting streams wake too, find nothing new, and wait again."""
        self.hub._wake(self._watched)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.hub._release(self.game_id, self._watched, self._push)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LiveHub:
    """Fans one reader's news out to the local subscriptions (see the module docstring)."""

    def __init__(
        self,
        reader: EventsReader,
        on_news: Callable[[str, list[StreamEntry]], None] | None = None,
        block_seconds: float = 5.0,
    ):
        self.reader = reader
        self.on_news = on_news
        self.block_ms = max(1, int(min(block_seconds, MAX_BLOCK_SECONDS) * 1000))
        self.echo_pause_seconds = ECHO_PAUSE_SECONDS
        self._changed = threading.Event()  # a game to watch appeared (wakes an idle reader)
        self._games: dict[str, _Watched] = {}
        self._feeds: dict[str, _Feed] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()
        self._closed = False

    def subscribe(self, game_id: str, after: int, push: Callable[[int], None] | None = None) -> Subscription:
        """Follow ``game_id`` from version ``after`` on. With ``push``, the reader also calls
        ``push(position)`` itself right after each delivery, before any waiting stream runs: a
        stream that can write without blocking sends its message there and then, with no wake of
        its own (``api.edge.view_push``). ``push`` must never block: it runs on the one reader of every
        stream of the process, or on the request that took the move (``deliver_local``)."""
        self._ensure_running()
        with self._lock:
            watched = self._games.get(game_id)
            new = watched is None
            if watched is None:
                watched = self._games[game_id] = _Watched(after)
            watched.subscribers += 1
            if push is not None:
                watched.pushers = (*watched.pushers, push)
        if new:
            self._changed.set()
            # The reader may be blocked on an XREAD that does not name this game: wake it so the next
            # one does. Were the wake lost (the reader between two reads), the new key waits at most
            # MAX_BLOCK_SECONDS, and no event is lost: the XREAD starts from `after`.
            try:
                self.reader.wake()
            except StoreError:
                log.warning("could not wake the live reader", exc_info=True)
        return Subscription(self, game_id, watched, push)

    def follow_feed(
        self, key: str, position: Callable[[], str], on_news: Callable[[], None] | None = None
    ) -> FeedSubscription:
        """Be woken when stream ``key`` gets an entry. ``position()`` (the stream's newest entry id
        now, "0-0" when empty) is asked only when no stream of this process follows ``key`` yet:
        the reader reads from there on. The subscriber reads the entries itself, after its own last
        one, and so may be woken once for entries it has already read (it then reads nothing).
        With ``on_news``, the reader also calls it after each delivery, for a subscriber that waits
        on something else (a game stream told that its account token may have been revoked); it
        must never block."""
        self._ensure_running()
        with self._lock:
            feed = self._feeds.get(key)
        new = feed is None
        start = position() if new else ""  # read outside the lock: it is a round trip
        with self._lock:
            feed = self._feeds.get(key)
            if feed is None:
                feed = self._feeds[key] = _Feed(start)
            else:
                new = False
            feed.subscribers += 1
            if on_news is not None:
                feed.callbacks = (*feed.callbacks, on_news)
        if new:
            self._changed.set()
            try:  # as for a new game (subscribe): else the new key waits for the XREAD in progress
                self.reader.wake()
            except StoreError:
                log.warning("could not wake the live reader", exc_info=True)
        return FeedSubscription(self, key, feed, on_news)

    def _release_feed(self, key: str, feed: _Feed, on_news: Callable[[], None] | None = None) -> None:
        with self._lock:
            if on_news is not None:
                feed.callbacks = tuple(c for c in feed.callbacks if c is not on_news)
            feed.subscribers -= 1
            if feed.subscribers <= 0 and self._feeds.get(key) is feed:
                del self._feeds[key]

    def _wake_feed(self, feed: _Feed) -> None:
        with self._lock:
            changed, feed.changed = feed.changed, threading.Event()
        changed.set()

    def _deliver_feed(self, key: str, newest: str) -> bool:
        with self._lock:
            feed = self._feeds.get(key)
            if feed is None or _stream_id(newest) <= _stream_id(feed.position):
                return False
            feed.position = newest
            feed.generation += 1
            changed, feed.changed = feed.changed, threading.Event()
        changed.set()
        for callback in feed.callbacks:
            try:
                callback()
            except Exception:  # noqa: BLE001 - one failing stream must not stop the others
                log.exception("live reader: a feed callback for %s failed", key)
        return True

    def watched_feeds(self) -> int:
        with self._lock:
            return len(self._feeds)

    def _release(self, game_id: str, watched: _Watched, push: Callable[[int], None] | None = None) -> None:
        with self._lock:
            if push is not None:
                watched.pushers = tuple(p for p in watched.pushers if p is not push)
            watched.subscribers -= 1
            if watched.subscribers <= 0 and self._games.get(game_id) is watched:
                del self._games[game_id]

    def _wake(self, watched: _Watched) -> None:
        """Wake every wait on ``watched`` once (a set Event left in place would end every later wait
        at once)."""
        with self._lock:
            changed, watched.changed = watched.changed, threading.Event()
        changed.set()

    def watched_games(self) -> int:
        with self._lock:
            return len(self._games)

    def _ensure_running(self) -> None:
        if self._pid != os.getpid():  # forked after use: the parent's thread and connection are not ours
            self._pid = os.getpid()
            self._thread = None
            self._games = {}
            self._feeds = {}
            self.reader.forget()
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="live-reader", daemon=True)
                    self._thread.start()

    def close(self) -> None:
        """Stop the reader (after its current read) and close its connection."""
        self._closed = True
        self._changed.set()
        try:
            self.reader.wake()
        except StoreError:
            pass
        if self._thread is not None:
            self._thread.join(self.block_ms / 1000 + 1)
        self.reader.close()

    def _run(self) -> None:
        while not self._closed:
            self._changed.clear()
            with self._lock:
                after = {game_id: watched.position for game_id, watched in self._games.items()}
                feeds = {key: feed.position for key, feed in self._feeds.items()}
            if not after and not feeds:
                self._changed.wait(self.block_ms / 1000)
                continue
            try:
                if feeds:
                    news, moved = self.reader.read_with_feeds(after, feeds, self.block_ms)
                else:  # the games' usual path, unchanged
                    news, moved = self.reader.read(after, self.block_ms), {}
            except StoreError:
                if self._closed:
                    return
                log.warning("live reader: Redis error; retrying", exc_info=True)
                time.sleep(0.5)
                continue
            fresh = False
            for key, newest in moved.items():
                fresh = self._deliver_feed(key, newest) or fresh
            for game_id, entries in news.items():
                fresh = self._deliver(game_id, entries) or fresh
            if news and not fresh:
                # Only echoes of this process's own moves: wait (a new game to watch ends the wait).
                self._changed.wait(self.echo_pause_seconds)

    def deliver_local(self, game_id: str, after: int, events: list[dict[str, Any]]) -> None:
        """Hand this process's streams of ``game_id`` the ``events`` it has just appended itself
        after version ``after``, now, rather than when the reader reads them back from Redis (which
        it then skips). The caller
        has already brought the cached game to them (so ``on_news`` has nothing left to fold).
        With game-affine connections (``api.edge.affinity``) the process that takes a game's moves is
        the one that serves its streams: the move reaches them without a round trip through the
        reader. Does nothing where no stream of the game is open (an RQ worker, say)."""
        if self._pid != os.getpid() or game_id not in self._games:
            return  # checked before the entries are built: most moves of a worker have no stream here
        try:
            self._deliver(game_id, [StreamEntry(after + i, event) for i, event in enumerate(events, 1)])
        except Exception:  # noqa: BLE001 - the move is committed: the reader delivers it anyway
            log.exception("live hub: local delivery failed for game %s", game_id)

    def _deliver(self, game_id: str, entries: list[StreamEntry]) -> bool:
        if self.on_news is not None:
            try:
                self.on_news(game_id, entries)
            except Exception:  # noqa: BLE001 - a failing receiver must not stop every stream
                log.exception("live reader: on_news failed for game %s", game_id)
        # Two deliverers (the reader and a request's deliver_local) may race here with real
        # threads: the lock keeps ``recent`` and ``position`` moving forward together.
        with self._lock:
            watched = self._games.get(game_id)
            if watched is None:
                return False
            news = tuple(entry for entry in entries if entry.version > watched.position)
            if not news:
                return False
            watched.recent = (watched.recent + news)[-RECENT_ENTRIES:]
            watched.position = news[-1].version
            changed, watched.changed = watched.changed, threading.Event()
        changed.set()
        position = watched.position
        for push in watched.pushers:
            try:
                push(position)
            except Exception:  # noqa: BLE001 - one failing stream must not stop the others
                log.exception("live reader: a push for game %s failed", game_id)
        return True
