"""The tournament resource on a real Redis (private server): create, join, withdraw, start, and
every refusal's stable code with nothing changed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from service.account_tokens import Identity
from service.errors import ServiceError
from service.tournament.service import TournamentService
from store.tournaments import tournament_keys


def who(name: str) -> Identity:
    return Identity(name, f"tok-{name}", "session", ("play",))


@pytest.fixture()
def service(redis_client):
    return TournamentService(SimpleNamespace(redis=redis_client))


def _snapshot(redis_client, tid):
    keys = tournament_keys(tid)
    return (
        redis_client.hgetall(keys.record),
        redis_client.hgetall(keys.entrants),
        redis_client.hgetall(keys.rounds),
    )


def _refused(code, redis_client, tid, call):
    before = _snapshot(redis_client, tid)
    with pytest.raises(ServiceError) as caught:
        call()
    assert caught.value.code == code
    assert _snapshot(redis_client, tid) == before


def test_a_table_size_the_game_does_not_allow_is_refused(service, redis_client):
    with pytest.raises(ServiceError) as caught:
        service.create(who("org"), {"game": "condottiere", "table_size": 7})
    assert caught.value.code == "TABLE_SIZE_NOT_ALLOWED" and caught.value.status == 422
    assert redis_client.keys("tour:*") == []


def test_join_withdraw_start_and_their_refusals(service, redis_client):
    t = service.create(who("org"), {"game": "condottiere", "table_size": 4, "rounds": 3, "capacity": 8})
    tid = t["id"]
    for i in range(7):
        service.join(tid, who(f"a{i}"), f"player {i}")
    _refused("ALREADY_ENTERED", redis_client, tid, lambda: service.join(tid, who("a0"), "again"))
    service.join(tid, who("a7"), "player 7")
    _refused("TOURNAMENT_FULL", redis_client, tid, lambda: service.join(tid, who("a8"), "late"))
    service.withdraw(tid, who("a7"))
    _refused("NOT_ENTERED", redis_client, tid, lambda: service.withdraw(tid, who("a7")))
    _refused("NOT_ORGANISER", redis_client, tid, lambda: service.start(tid, who("a1")))
    view = service.start(tid, who("org"))
    assert view["status"] == "running" and view["round"] == 1
    tables = [t["players"] for t in view["rounds"][0]["tables"]]
    assert sorted(len(t) for t in tables) == [3, 4]  # 7 at 4: 4+3
    assert "a7" not in {p for t in tables for p in t}  # withdrawn: never paired
    _refused("TOURNAMENT_NOT_OPEN", redis_client, tid, lambda: service.join(tid, who("a9"), "late"))
    _refused("TOURNAMENT_NOT_OPEN", redis_client, tid, lambda: service.start(tid, who("org")))


def test_a_round_is_recorded_once(service, redis_client):
    """A scheduler that runs twice (killed after recording, run again) records a round once."""
    tid = service.create(who("org"), {"game": "condottiere", "table_size": 3})["id"]
    for i in range(6):
        service.join(tid, who(f"a{i}"), f"p{i}")
    service.start(tid, who("org"))
    assert service.store.record_round(tid, 1, {"tables": []}, "", "running") == "recorded_before"
    assert service.store.record_round(tid, 3, {"tables": []}, "", "running") == "out_of_order"
    assert len(service.store.load(tid).rounds[1]["tables"]) == 2


def test_entry_by_list_and_code(service, redis_client):
    listed = service.create(
        who("org"), {"game": "condottiere", "table_size": 4, "entry": "list", "accounts": ["a1"]}
    )
    _refused("NOT_ADMITTED", redis_client, listed["id"], lambda: service.join(listed["id"], who("a2"), "x"))
    service.join(listed["id"], who("a1"), "x")
    coded = service.create(who("org"), {"game": "condottiere", "table_size": 4, "entry": "code"})
    assert "code" not in service.view(coded["id"])["settings"]
    _refused(
        "NOT_ADMITTED",
        redis_client,
        coded["id"],
        lambda: service.join(coded["id"], who("a2"), "x", code="nope"),
    )
    service.join(coded["id"], who("a2"), "x", code=coded["code"])


def test_a_small_swiss_runs_to_the_end_and_standings_equal_a_recount(service, redis_client):
    """Seven players, tables of 4 and 3, three rounds: every table's result recorded (twice, as a
    follow-up run again would), rounds paired once each, no repeat opponents, standings equal to
    a recount from the results."""
    import random
    from itertools import combinations

    from service.tournament.scoring import TableResult, standings

    rng = random.Random(5)
    tid = service.create(who("org"), {"game": "condottiere", "table_size": 4, "rounds": 3})["id"]
    for i in range(7):
        service.join(tid, who(f"a{i}"), f"p{i}", rating=1500 + i)
    view = service.start(tid, who("org"))
    for number in (1, 2, 3):
        assert view["round"] == number and view["status"] == "running"
        for index, table in enumerate(view["rounds"][number - 1]["tables"]):
            placing = [[p] for p in rng.sample(table["players"], len(table["players"]))]
            service.record_result(tid, number, index, placing)
            service.store.record_result(tid, number, index, [[p] for p in table["players"]])  # ignored
            service.next_step(service.store.load(tid))  # run again: nothing doubles
            view = service.view(tid)
    assert view["status"] == "finished" and len(view["rounds"]) == 3
    results = [
        [TableResult(tuple(t["players"]), tuple(tuple(g) for g in t["placing"])) for t in r["tables"]]
        for r in view["rounds"]
    ]
    recount = standings({f"a{i}": 1500.0 + i for i in range(7)}, results)
    assert [(s["account"], s["score"]) for s in view["standings"]] == [
        (s.player, float(s.score)) for s in recount
    ]
    assert sum(s["score"] for s in view["standings"]) == pytest.approx(3 * 2 * 13)
    pairs = [frozenset(p) for r in view["rounds"] for t in r["tables"] for p in combinations(t["players"], 2)]
    # 7 players, 3 rounds of 4+3: 9 pairs a round out of 21; the first repeat is unavoidable in
    # round 3 at the latest, so only the count is bounded: no pair meets three times
    assert max(pairs.count(p) for p in set(pairs)) <= 2


def test_late_entry_joins_a_running_swiss_from_its_next_round(service, redis_client):
    """With ``late_entry`` an account joins a running Swiss and is paired from the next round (with
    no points for the rounds before); without it a running tournament refuses, nothing changed."""
    closed = service.create(who("org"), {"game": "condottiere", "table_size": 3, "rounds": 2})["id"]
    tid = service.create(
        who("org"), {"game": "condottiere", "table_size": 3, "rounds": 2, "late_entry": True}
    )["id"]
    for t in (closed, tid):
        for i in range(6):
            service.join(t, who(f"a{i}"), f"p{i}")
        service.start(t, who("org"))
    _refused("TOURNAMENT_NOT_OPEN", redis_client, closed, lambda: service.join(closed, who("late"), "late"))
    service.join(tid, who("late"), "late")
    view = service.view(tid)
    assert "late" not in {p for t in view["rounds"][0]["tables"] for p in t["players"]}
    for index, table in enumerate(view["rounds"][0]["tables"]):
        service.record_result(tid, 1, index, [[p] for p in table["players"]])
    view = service.view(tid)
    assert view["round"] == 2
    second = view["rounds"][1]["tables"]
    assert "late" in {p for t in second for p in t["players"]}
    assert sorted(len(t["players"]) for t in second) == [2, 2, 3]  # 7 at tables of 3: 3+2+2


def test_withdrawals_that_leave_no_table_end_the_tournament_after_the_round(service, redis_client):
    tid = service.create(who("org"), {"game": "condottiere", "table_size": 3, "rounds": 3})["id"]
    for i in range(6):
        service.join(tid, who(f"a{i}"), f"p{i}")
    view = service.start(tid, who("org"))
    for i in range(1, 6):
        service.withdraw(tid, who(f"a{i}"))
    for index, table in enumerate(view["rounds"][0]["tables"]):
        service.record_result(tid, 1, index, [[p] for p in table["players"]])
    view = service.view(tid)
    assert view["status"] == "finished" and view["round"] == 1
