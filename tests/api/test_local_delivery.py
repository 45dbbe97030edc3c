"""A move reaches the streams of the process that took it as it commits (issue 12): the request
hands it to the process's live hub (``LiveHub.deliver_local``) instead of leaving it to the reader's
next ``XREAD``. The reader, woken by the same entry, pauses briefly before it reads again; a move
another process took still reaches every stream, after that pause at most."""

from __future__ import annotations

import threading
import time

import pytest

from tests import app_fixtures
from tests.api.conftest import Table


def first_move(table: Table) -> dict:
    hand = table.view(0)["view"]["hand"]
    return {"type": "play", "card": hand[0]}


def wait_for_position(subscription, version: int, seconds: float) -> float:
    """Seconds until ``subscription`` holds ``version`` (fails after ``seconds``)."""
    started = time.monotonic()
    while subscription.position < version:
        assert time.monotonic() - started < seconds, f"version {version} never reached the hub"
        time.sleep(0.005)
    return time.monotonic() - started


class ReaderWatch:
    """What the live reader is doing, for a test to wait on rather than to guess by sleeping."""

    def __init__(self):
        self.condition = threading.Condition()
        self.reading: set[str] | None = None  # the games named by the read under way
        self.returned: list[set[str]] = []  # the games each finished read brought news of

    def blocked_on(self, game_id: str) -> bool:
        """A read naming ``game_id`` is under way, and not the first: the first may start before
        the subscription has woken the reader (its wake then ends that read, and the flag it raises
        would cut the next pause short), the next starts after the wake."""
        return self.reading is not None and game_id in self.reading and len(self.returned) >= 1

    def wait(self, predicate, what: str, seconds: float = 30.0) -> None:
        with self.condition:
            assert self.condition.wait_for(predicate, seconds), f"the reader never {what}"


def slow_reader(svc, before: float = 0.0, after_news: float = 0.0) -> ReaderWatch:
    """Make the live reader start each read ``before`` seconds late, and hand over what it read
    ``after_news`` seconds late; it still reads Redis as usual. The reader and the request that took
    a move race to deliver it (both wake when Redis answers): ``after_news`` lets the request win.
    Returns a watch of its reads."""
    real_read = svc.live.reader.read
    watch = ReaderWatch()

    def read(after, block_ms):
        time.sleep(before)
        with watch.condition:
            watch.reading = set(after)
            watch.condition.notify_all()
        news = real_read(after, block_ms)
        if news:
            time.sleep(after_news)
        with watch.condition:
            watch.reading = None
            watch.returned.append(set(news))
            watch.condition.notify_all()
        return news

    svc.live.reader.read = read
    return watch


def test_a_move_reaches_this_processs_streams_as_it_commits(client, svc):
    """The reader is slowed down here (each of its reads starts a second late): the move's entry must
    already be with the game's subscribers, in order and whole, when the move's answer comes back."""
    table = Table(client)
    version = table.view(0)["version"]
    subscription = svc.live.subscribe(table.id, version)
    slow_reader(svc, before=1.0)
    try:
        answer = table.move(0, first_move(table))
        assert answer.status_code == 200, answer.get_json()
        new_version = answer.get_json()["version"]
        assert subscription.position == new_version
        entries = subscription.wait(version, 0)
        assert [entry.version for entry in entries] == list(range(version + 1, new_version + 1))
        assert entries[0].event["type"] == "card_played" and entries[0].event["seat"] == 0
    finally:
        subscription.close()


@pytest.fixture()
def other_process(redis_server):
    """A second app on the same Redis: another web process, with its own cache and live hub."""
    yield from app_fixtures.make_app(redis_server)


def test_after_reading_only_its_own_moves_the_reader_pauses_and_loses_nothing(client, svc, other_process):
    """The reader wakes on the entry of a move this process took and finds it delivered already: it
    then waits ``echo_pause_seconds`` (one second here, to be measurable) before it reads again. A
    move another process takes meanwhile reaches the subscribers after that wait, not lost."""
    svc.live.echo_pause_seconds = 1.0
    watch = slow_reader(svc, after_news=0.1)
    table = Table(client)
    subscription = svc.live.subscribe(table.id, table.view(0)["version"])
    try:
        watch.wait(lambda: watch.blocked_on(table.id), "blocked on an XREAD that names the game")
        local = table.move(0, first_move(table))
        assert local.status_code == 200, local.get_json()
        # The reader has read the echo (and pauses right after handing it over, finding it delivered).
        watch.wait(lambda: any(table.id in news for news in watch.returned), "read the echo")
        hand = table.view(1)["view"]["hand"]
        remote = other_process.test_client().post(
            f"/v1/games/{table.id}/moves",
            json={"command": {"type": "play", "card": hand[0]}},
            headers=table.auth(1),
        )
        assert remote.status_code == 200, remote.get_json()
        waited = wait_for_position(subscription, remote.get_json()["version"], 5.0)
        assert waited > 0.4, f"the other process's move arrived {waited:.3f} s later: no pause"
        entries = subscription.wait(local.get_json()["version"], 0)
        assert [entry.event["seat"] for entry in entries] == [1]
    finally:
        subscription.close()


def test_a_new_game_to_watch_ends_the_readers_pause(client, svc, other_process):
    """A stream that opens on another game during the pause must not wait for it: its first moves
    come at once."""
    svc.live.echo_pause_seconds = 5.0
    watch = slow_reader(svc, after_news=0.1)
    table = Table(client)
    subscription = svc.live.subscribe(table.id, table.view(0)["version"])
    second = Table(other_process.test_client())
    try:
        watch.wait(lambda: watch.blocked_on(table.id), "blocked on an XREAD that names the game")
        assert table.move(0, first_move(table)).status_code == 200
        # The reader has read the echo: it is in its pause (5 s) from then on.
        watch.wait(lambda: any(table.id in news for news in watch.returned), "read the echo")
        watching = svc.live.subscribe(second.id, second.view(0)["version"])
        try:
            moved = second.move(0, first_move(second))
            assert moved.status_code == 200, moved.get_json()
            assert wait_for_position(watching, moved.get_json()["version"], 4.0) < 2.0
        finally:
            watching.close()
    finally:
        subscription.close()
