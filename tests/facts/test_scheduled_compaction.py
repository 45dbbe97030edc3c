"""The analytical store's compaction on a schedule (service.facts.scheduled_compaction, run by the
janitor's tick): one compaction per period across every machine, by a lease in Redis
(store.facts_lease) that nobody releases, so a janitor killed mid-compaction blocks nobody past it."""

from __future__ import annotations

import time

from service.facts import scheduled_compaction
from store import GameStore, parts
from store.facts import FactStore
from store.facts_lease import KEY
from tests.facts.test_filters import _append


def _wait_for(condition, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


def test_one_machine_compacts_per_period(redis_client, tmp_path):
    store = GameStore(redis_client)
    facts = FactStore(tmp_path / "shared")  # the files every machine sees
    _append(facts)
    own = [p for p in facts.files("games") if p.name.startswith("g-")]
    assert own
    assert scheduled_compaction(store, facts, "machine-a", every_s=3600) > 0
    assert parts.facts_lease(store).holder() == "machine-a"
    assert all(p.name.startswith("c-") for p in facts.files("games"))
    _append(facts)  # the same games written again: new own files, left for the next period
    assert scheduled_compaction(store, facts, "machine-b", every_s=3600) is None
    assert any(p.name.startswith("g-") for p in facts.files("games"))


def test_the_next_period_compacts_again_on_whichever_machine_takes_it(redis_client, tmp_path):
    store = GameStore(redis_client)
    facts = FactStore(tmp_path / "shared")
    _append(facts)
    assert scheduled_compaction(store, facts, "machine-a", every_s=600) > 0
    _append(facts)
    assert scheduled_compaction(store, facts, "machine-b", every_s=600) is None
    redis_client.pexpire(KEY, 100)  # the period ends (as if 600 s had passed)
    _wait_for(lambda: parts.facts_lease(store).holder() is None)  # expired: nobody released it
    assert scheduled_compaction(store, facts, "machine-b", every_s=600) > 0
    assert parts.facts_lease(store).holder() == "machine-b"
    assert all(p.name.startswith("c-") for p in facts.files("games"))
    con = facts.connect()
    try:
        assert con.execute("SELECT count(*), count(DISTINCT game_id) FROM games").fetchone() == (5, 5)
    finally:
        con.close()
