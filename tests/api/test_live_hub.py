"""The live hub's subscriptions (service.live, issue 12): a waiting stream gets exactly the entries
after the version it holds, oldest first, from the few the hub keeps; ``None`` once some of them
are no longer kept (the stream then reads the store); ``[]`` when nothing came in time."""

from __future__ import annotations

from service.live import RECENT_ENTRIES, LiveHub
from store import StreamEntry


class IdleReader:
    """Never reached: the hub's reader thread is not started by these tests."""

    def read(self, after, block_ms):
        raise AssertionError("no Redis read expected")

    def wake(self):
        pass

    def close(self):
        pass


def entry(version: int) -> StreamEntry:
    return StreamEntry(version=version, event={"type": "toy", "n": version})


def hub_with(versions: range) -> tuple[LiveHub, object]:
    hub = LiveHub(IdleReader())
    hub._ensure_running = lambda: None  # the reader thread is not needed: news are handed over below
    subscription = hub.subscribe("g1", 0)
    hub._deliver("g1", [entry(v) for v in versions])
    return hub, subscription


def test_a_stream_gets_the_entries_after_its_version_in_order():
    _, subscription = hub_with(range(1, 11))
    assert [e.version for e in subscription.wait(7, 0.01)] == [8, 9, 10]
    assert [e.version for e in subscription.wait(0, 0.01)] == list(range(1, 11))
    assert [e.version for e in subscription.wait(9, 0.01)] == [10]


def test_nothing_new_is_an_empty_list_after_the_timeout():
    _, subscription = hub_with(range(1, 4))
    assert subscription.wait(3, 0.01) == []


def test_entries_no_longer_kept_send_the_stream_to_the_store():
    _, subscription = hub_with(range(1, RECENT_ENTRIES + 11))
    assert subscription.wait(5, 0.01) is None  # 6..10 are gone from the hub
    kept = subscription.wait(10, 0.01)
    assert [e.version for e in kept] == list(range(11, RECENT_ENTRIES + 11))


def test_pushers_get_each_delivery_after_the_fold_until_their_subscription_closes():
    """Pushed streams (api/edge/view_push.py): the reader calls each stream's push with the new position
    right after ``on_news`` has folded the entries (the view it computes must include them), a
    failing push does not keep the next one from its news, and a closed subscription's push is
    never called again (a stream that went away must not be written to)."""
    folded: list[int] = []
    calls: list[tuple[str, int, list[int]]] = []
    hub = LiveHub(IdleReader(), on_news=lambda game_id, entries: folded.append(entries[-1].version))
    hub._ensure_running = lambda: None

    def failing(position: int) -> None:
        calls.append(("failing", position, list(folded)))
        raise OSError("a client that went away")

    def second(position: int) -> None:
        calls.append(("second", position, list(folded)))

    first = hub.subscribe("g1", 0, push=failing)
    kept = hub.subscribe("g1", 0, push=second)
    hub._deliver("g1", [entry(1), entry(2)])
    assert calls == [("failing", 2, [2]), ("second", 2, [2])]
    first.close()
    hub._deliver("g1", [entry(3)])
    assert calls[2:] == [("second", 3, [2, 3])]
    kept.close()
    assert hub.watched_games() == 0


def test_an_interrupted_wait_ends_at_once_and_later_waits_wait_their_time():
    """A stream whose client hung up interrupts its wait (api/edge/view_push.py's HangUpWatch): the wait
    ends at once with nothing new, from another thread too, and the game's next waits, its own
    streams' included, wait their whole timeout again rather than returning at once."""
    import threading
    import time

    hub, subscription = hub_with(range(1, 4))
    other = hub.subscribe("g1", 3)
    waited: list[float] = []

    def wait() -> None:
        started = time.monotonic()
        assert subscription.wait(3, 5.0) == []
        waited.append(time.monotonic() - started)

    waiter = threading.Thread(target=wait)
    waiter.start()
    # Interrupted until it returns: one interrupt sent before the waiter waits would be lost (and
    # the thread may start waiting late on a loaded machine); a wait that only its timeout ends
    # takes 5 s.
    deadline = time.monotonic() + 30
    while waiter.is_alive() and time.monotonic() < deadline:
        subscription.interrupt()
        waiter.join(timeout=0.05)
    assert waited and waited[0] < 1.0
    started = time.monotonic()
    assert other.wait(3, 0.3) == []
    assert subscription.wait(3, 0.3) == []
    assert time.monotonic() - started >= 0.55
