"""GET /v1/me/stream is woken by the process's live reader (service.live: the feed is named in the
XREAD the game streams share), not by polling its feed (issue 31: it read it once a second); a
lost wake is made up by the bounded fallback read."""

from __future__ import annotations

import threading

import pytest

from store.accounts import AccountStore
from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, session
from tests.api.test_me_stream import messages, one_card_game, play_out

DEADLINE_SECONDS = 60  # the bound on every wait below
NEVER = 3600.0  # a heartbeat or fallback that never comes within a test


def make(redis_server, poll_seconds):
    return app_fixtures.make_app(
        redis_server,
        SSE_HEARTBEAT_SECONDS=NEVER,
        PASSWORD_HASH_PARAMETERS=FAST_HASH,
        ACCOUNT_STREAM_POLL_SECONDS=poll_seconds,
    )


@pytest.fixture()
def app(redis_client, redis_server):
    yield from make(redis_server, NEVER)


EVERYTHING = ["game_started", "your_turn", "game_finished"]


class Reader:
    """Reads a streamed response on a thread until its messages' kinds, open_games aside, are
    ``until``, then closes it there (the generator is closed by the thread that runs it, as a
    server does): ``wait_for(kinds)`` waits (bounded) for those kinds."""

    def __init__(self, response, until=EVERYTHING):
        self.response = response
        self.until = until
        self.got: list[tuple[str, str | None, dict]] = []
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        for message in messages(self.response):
            with self.changed:
                self.got.append(message)
                self.changed.notify_all()
            if self.kinds() == self.until:
                break
        self.response.close()

    def end(self):
        self.thread.join(DEADLINE_SECONDS)
        assert not self.thread.is_alive()

    def kinds(self):
        return [kind for kind, _, _ in self.got if kind != "open_games"]

    def wait_for(self, kinds):
        with self.changed:
            self.changed.wait_for(lambda: self.kinds() == kinds, timeout=DEADLINE_SECONDS)
            return self.kinds()


def counted_feed_reads(monkeypatch):
    """Counts the feed's reads (AccountStore.feed_after, which still reads Redis)."""
    calls = []
    original = AccountStore.feed_after

    def counting(self, *args, **kwargs):
        calls.append(args[0])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(AccountStore, "feed_after", counting)
    return calls


def test_the_live_reader_wakes_an_idle_stream_for_each_event(app, client, monkeypatch):
    """Heartbeat and fallback far away: the start, the turn and the finish still arrive, woken by
    the live reader, and the stream read its feed only on those wakes (at most two reads a wake:
    the one that finds the entries, the one that finds no more), never in a loop."""
    reads = counted_feed_reads(monkeypatch)
    token = session(client)
    reader = Reader(client.get("/v1/me/stream", headers=bearer(token), buffered=False))
    hub = app.extensions["game_service"].live
    with reader.changed:
        assert reader.changed.wait_for(lambda: reader.got, timeout=DEADLINE_SECONDS)
    assert reader.got[0][0] == "open_games" and hub.watched_feeds() == 1
    game, ann, bob = one_card_game(app.test_client(), token)
    play_out(app.test_client(), game, ann["token"], bob["token"])
    assert reader.wait_for(EVERYTHING) == EVERYTHING
    reader.end()
    assert 2 <= len(reads) <= 1 + 2 * 3, reads
    assert hub.watched_feeds() == 0  # the stream's subscription went with it


def test_a_lost_wake_is_made_up_by_the_fallback_read(redis_client, redis_server, monkeypatch):
    """The live reader never wakes the stream (its feed delivery fails here); with a short
    fallback the events still arrive, read by the fallback."""
    from service.live import LiveHub

    def lost(self, key, newest):  # the reader moves on, and wakes nobody
        with self._lock:
            feed = self._feeds.get(key)
            if feed is not None:
                feed.position = newest
        return True

    monkeypatch.setattr(LiveHub, "_deliver_feed", lost)
    for app in make(redis_server, 0.05):
        client = app.test_client()
        token = session(client)
        reader = Reader(client.get("/v1/me/stream", headers=bearer(token), buffered=False))
        game, ann, bob = one_card_game(app.test_client(), token)
        play_out(app.test_client(), game, ann["token"], bob["token"])
        assert reader.wait_for(EVERYTHING) == EVERYTHING
        reader.end()


def test_streams_of_one_account_share_one_feed_and_each_gets_every_event(app, client):
    """Two streams of one account in one process: one feed followed, both told everything."""
    token = session(client)
    readers = [Reader(client.get("/v1/me/stream", headers=bearer(token), buffered=False)) for _ in range(2)]
    for reader in readers:
        with reader.changed:
            assert reader.changed.wait_for(lambda r=reader: r.got, timeout=DEADLINE_SECONDS)
    assert app.extensions["game_service"].live.watched_feeds() == 1
    game, ann, bob = one_card_game(app.test_client(), token)
    play_out(app.test_client(), game, ann["token"], bob["token"])
    for reader in readers:
        assert reader.wait_for(EVERYTHING) == EVERYTHING
        reader.end()
