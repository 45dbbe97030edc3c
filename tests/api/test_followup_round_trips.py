"""The follow-up work a change implies (service.followups), run by the process that made the change:
it runs what the change has just recorded without reading the outbox back, and acknowledges (and
counts) every action it did in one round trip at the end (issue 12: a game's end cost one outbox
read and two round trips per action, about 3.5-5 ms of a web worker's CPU per game)."""

from __future__ import annotations

import redis.cluster

from store.keys import game_keys
from store.outbox import Outbox, due_key
from tests.api.conftest import Table
from tests.api.test_stream import next_move
from tests.redis_metrics import count_round_trips


def test_the_changes_follow_ups_run_without_reading_the_outbox(client, redis_client, monkeypatch):
    def unreadable(self, game_id):
        raise AssertionError("the outbox was read back")

    monkeypatch.setattr(Outbox, "pending", unreadable)
    table = Table(client, hand_size=2)  # the create's index action, then the start's
    assert redis_client.hlen(game_keys(table.id).outbox) == 0
    assert redis_client.zscore(due_key(table.id), table.id) is None
    stats = Outbox(redis_client).stats()
    assert stats["runs:index"] == 2 and "duplicates:index" not in stats


def cards_left(table: Table) -> int:
    return sum(len(table.view(seat)["view"]["hand"]) for seat in (0, 1))


def test_a_games_end_acknowledges_and_counts_its_actions_in_one_round_trip(client, redis_client, svc):
    """The toy game ends with the last card played (tests/api/toy_game.py): its index, archive and
    verify actions are acknowledged and counted together.

    The actions' grace period is made longer than any run here: with the usual 2 s, a loaded
    machine let it run out before this process acknowledged, and any sweeper on the session's Redis
    (a janitor of another test) then ran and acknowledged them itself, so this process's
    acknowledgements found duplicates and sent their counts apart (issue 35). What is tested is the
    changing process's own round trips, whatever the time they take."""
    svc.store.followup_grace_ms = 3_600_000
    table = Table(client, hand_size=2)
    while cards_left(table) > 1:
        assert table.move(*next_move(table)).status_code == 200
    last = next_move(table)
    with count_round_trips(redis_client) as trips:
        assert table.move(*last).status_code == 200
    assert table.view()["status"] == "finished"
    acks, counts = ["EVALSHA"] * 3, ["HINCRBY"] * 3
    if isinstance(redis_client, redis.cluster.RedisCluster):
        # The counts live in another slot: the same pipeline, answered by another node, or by the
        # same one when both slots are on one master (a third of the game ids, with three masters).
        assert acks + counts in trips.commands or (acks in trips.commands and counts in trips.commands)
    else:
        assert acks + counts in trips.commands
    assert ["HINCRBY"] not in trips.commands  # no count sent on its own
    # Only the facts are left, by design, to the janitor (service.facts: turning a log into facts
    # is CPU work a web process does not do), so the game stays due for its sweep.
    assert redis_client.hkeys(game_keys(table.id).outbox) == [b"facts"]
    assert redis_client.zscore(due_key(table.id), table.id) is not None
    stats = Outbox(redis_client).stats()
    assert (stats["runs:archive"], stats["runs:verify"], stats["runs:index"]) == (1, 1, 3)
