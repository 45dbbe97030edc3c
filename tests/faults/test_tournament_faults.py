"""A tournament's scheduler killed mid-round loses and doubles nothing. The process that plays a
round's last table to its end (whose last move's follow-ups write the table's result, pair the next
round and start its tables) is killed at each point: after the game's end, before its result (the
game's follow-up pending), after the table's result (``d1`` pending in
the tournament's outbox, the game's own follow-up pending too), after the next round's pairing
record (its tables not made), and between the next round's tables (one made, one not). The
janitor finishes the work: every table of every round is exactly one game, every result is
recorded once, and the tournament runs to its end with standings worth every table once."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from service import bot_turns, composition
from store import parts
from store.outbox import Outbox
from store.tournaments import outbox_id
from tests.api.test_accounts import FAST_HASH
from tests.faults.test_crash_points import recover
from tests.janitors import janitor_for

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 2


def kill_actor(url: str, fault: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, FAULT_POINT=fault, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "tests.faults.tournament_actor", url, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=300,
    )


def tournament_games(redis, tournament_id: str) -> list[str]:
    """Every game in Redis that is a table of ``tournament_id`` (a second creation would be one
    more: a table's id is derived, its game written only if absent)."""
    found = []
    for key in redis.scan_iter(match="game:{g:*}:meta", count=1000):
        if redis.hget(key, "tournament") == tournament_id.encode():
            found.append(key.decode().split("{g:")[1].split("}")[0])
    return sorted(found)


@pytest.mark.parametrize(
    "fault",
    [
        "before_tournament_result",
        "after_tournament_result",
        "after_tournament_pairing",
        "between_tournament_tables:3",
    ],
)
def test_a_scheduler_killed_mid_round_loses_and_doubles_nothing(service, redis_server, fault):
    settings = composition.Settings(redis_url=redis_server.url, password_parameters=FAST_HASH)
    services = composition.build(settings, store=service.store)
    accounts, tournaments = services.accounts, services.tournaments
    accounts.create_account("Org", "correct horse")
    org = accounts.identify(accounts.sign_in("Org", "correct horse")["token"])
    tid = tournaments.create(org, {"game": "condottiere", "table_size": 3, "rounds": ROUNDS})["id"]
    for _ in range(6):
        tournaments.add_bot(tid, org, "random")
    view = tournaments.start(tid, org)
    first, last = (t["game"] for t in view["rounds"][0]["tables"])
    assert tournament_games(service.store.redis, tid) == sorted([first, last])
    bot_turns.play_bot_turns(service, first)
    assert tournaments.view(tid)["rounds"][0]["tables"][0]["placing"]

    killed = kill_actor(redis_server.url, fault, "play", last)
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    assert service.store.meta(last)["status"] == "finished"
    outbox = Outbox(service.store.redis)
    assert outbox.pending(outbox_id(tid)) or outbox.pending(last)  # what the dead process left

    def round_two_started() -> bool:
        now = tournaments.view(tid)
        if now["round"] != 2 or outbox.pending(outbox_id(tid)) or outbox.pending(last):
            return False
        return all(service.store.meta(t["game"]) is not None for t in now["rounds"][1]["tables"])

    recover(janitor_for(service), round_two_started)
    view = tournaments.view(tid)
    for table in view["rounds"][1]["tables"]:
        bot_turns.play_bot_turns(service, table["game"])
    view = tournaments.view(tid)
    assert view["status"] == "finished"
    tables = [t for r in view["rounds"] for t in r["tables"]]
    assert len(tables) == ROUNDS * 2 and all(t["placing"] for t in tables)
    assert tournament_games(service.store.redis, tid) == sorted(t["game"] for t in tables)
    assert sum(s["score"] for s in view["standings"]) == pytest.approx(ROUNDS * 2 * 13)
    # The follow-up that finished it recorded one more step ('f'), which the janitor runs: nothing
    # changes but the outbox, emptied.
    recover(janitor_for(service), lambda: not outbox.pending(outbox_id(tid)))
    assert tournaments.view(tid)["standings"] == view["standings"]


@pytest.mark.parametrize("fault", ["after_tournament_start", "between_tournament_tables"])
def test_a_start_killed_before_or_between_its_tables_makes_each_table_once(service, redis_server, fault):
    """The organiser's start killed after round 1's record (the pairing and its follow-up, one
    script), before any table was made or after the first: the janitor makes the rest, once each."""
    settings = composition.Settings(redis_url=redis_server.url, password_parameters=FAST_HASH)
    services = composition.build(settings, store=service.store)
    accounts, tournaments = services.accounts, services.tournaments
    accounts.create_account("Org", "correct horse")
    token = accounts.sign_in("Org", "correct horse")["token"]
    org = accounts.identify(token)
    tid = tournaments.create(org, {"game": "condottiere", "table_size": 3, "rounds": 1})["id"]
    for _ in range(9):
        tournaments.add_bot(tid, org, "random")
    killed = kill_actor(redis_server.url, fault, "start", tid, token)
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    view = tournaments.view(tid)
    assert view["round"] == 1 and view["status"] == "running"
    made = tournament_games(service.store.redis, tid)
    assert len(made) == (0 if fault == "after_tournament_start" else 1)
    outbox = Outbox(service.store.redis)
    assert outbox.pending(outbox_id(tid)) == {"tournament": "r1"}
    games = [t["game"] for t in view["rounds"][0]["tables"]]

    def started() -> bool:
        return not outbox.pending(outbox_id(tid)) and tournament_games(service.store.redis, tid) == sorted(
            games
        )

    recover(janitor_for(service), started)
    for game_id in games:
        assert service.store.meta(game_id)["status"] == "active"


@pytest.mark.parametrize("fault", ["after_tournament_timed_start", "between_tournament_tables"])
def test_a_sweep_killed_in_a_timed_start_makes_each_table_once(service, redis_server, fault):
    """The janitor's sweep that starts a tournament at its start time (``starts_at``), killed after
    round 1's record or between its tables: the next sweeps make the rest, each table once, and
    record no round twice."""
    settings = composition.Settings(redis_url=redis_server.url, password_parameters=FAST_HASH)
    services = composition.build(settings, store=service.store)
    accounts, tournaments = services.accounts, services.tournaments
    accounts.create_account("Org", "correct horse")
    org = accounts.identify(accounts.sign_in("Org", "correct horse")["token"])
    start = datetime.now(UTC) + timedelta(seconds=2)
    body = {"game": "condottiere", "table_size": 3, "rounds": 1, "starts_at": start.isoformat()}
    tid = tournaments.create(org, body)["id"]
    for _ in range(9):
        tournaments.add_bot(tid, org, "random")
    deadline = time.monotonic() + 30
    while datetime.now(UTC) < start + timedelta(milliseconds=100):  # the follow-up is due then
        assert time.monotonic() < deadline
        time.sleep(0.05)
    killed = kill_actor(redis_server.url, fault, "sweep")
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    view = tournaments.view(tid)
    assert view["round"] == 1 and view["status"] == "running"
    made = tournament_games(service.store.redis, tid)
    assert len(made) == (0 if fault == "after_tournament_timed_start" else 1)
    outbox = Outbox(service.store.redis)
    assert outbox.pending(outbox_id(tid)) == {"tournament": "r1"}
    games = [t["game"] for t in view["rounds"][0]["tables"]]

    def started() -> bool:
        return not outbox.pending(outbox_id(tid)) and tournament_games(service.store.redis, tid) == sorted(
            games
        )

    recover(janitor_for(service), started)
    assert tournaments.view(tid)["rounds"] == view["rounds"]
    for game_id in games:
        assert service.store.meta(game_id)["status"] == "active"


def test_a_join_killed_after_recording_the_late_start_starts_it_once(service, redis_server):
    """Rule TIMED-START-LATE-JOIN: a tournament left open at its start time with too few entrants;
    the join that brings enough records its start with the entrant (one script) and is killed
    before running it (``after_tournament_entry_start``): the janitor starts round 1, once."""
    settings = composition.Settings(redis_url=redis_server.url, password_parameters=FAST_HASH)
    services = composition.build(settings, store=service.store)
    accounts, tournaments = services.accounts, services.tournaments
    accounts.create_account("Org", "correct horse")
    org = accounts.identify(accounts.sign_in("Org", "correct horse")["token"])
    accounts.create_account("Joiner", "correct horse")
    joiner = accounts.sign_in("Joiner", "correct horse")["token"]
    start = datetime.now(UTC) + timedelta(seconds=2)
    body = {"game": "condottiere", "table_size": 3, "rounds": 1, "starts_at": start.isoformat()}
    tid = tournaments.create(org, body)["id"]
    tournaments.add_bot(tid, org, "random")
    outbox = Outbox(service.store.redis)
    recover(janitor_for(service), lambda: not outbox.pending(outbox_id(tid)))  # looked: too few
    assert tournaments.view(tid)["status"] == "open"
    killed = kill_actor(redis_server.url, "after_tournament_entry_start", "join", tid, joiner)
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    view = tournaments.view(tid)
    assert view["status"] == "open" and len(view["entrants"]) == 2
    assert outbox.pending(outbox_id(tid))["tournament"].startswith("s")

    def started() -> bool:
        now = tournaments.view(tid)
        if now["round"] != 1 or outbox.pending(outbox_id(tid)):
            return False
        return tournament_games(service.store.redis, tid) == [now["rounds"][0]["tables"][0]["game"]]

    recover(janitor_for(service), started)
    view = tournaments.view(tid)
    assert len(view["rounds"]) == 1 and sorted(view["rounds"][0]["tables"][0]["players"]) == sorted(
        e["account"] for e in view["entrants"]
    )


def test_a_withdrawal_killed_before_the_handover_hands_the_seat_over_once(service, redis_server):
    """A withdrawal from a running tournament records, with the entrant, the follow-up that hands
    its seat at its running table to the bot; killed before running it
    (``after_tournament_withdrawal``), the janitor hands the seat over, once."""
    settings = composition.Settings(redis_url=redis_server.url, password_parameters=FAST_HASH)
    services = composition.build(settings, store=service.store)
    accounts, tournaments = services.accounts, services.tournaments
    accounts.create_account("Org", "correct horse")
    org = accounts.identify(accounts.sign_in("Org", "correct horse")["token"])
    accounts.create_account("Leaver", "correct horse")
    leaver = accounts.sign_in("Leaver", "correct horse")["token"]
    tid = tournaments.create(org, {"game": "condottiere", "table_size": 3, "rounds": 1})["id"]
    tournaments.add_bot(tid, org, "random")
    tournaments.add_bot(tid, org, "random")
    tournaments.join(tid, accounts.identify(leaver), "Leaver")
    view = tournaments.start(tid, org)
    (table,) = view["rounds"][0]["tables"]
    game_id = table["game"]
    seat = table["players"].index(accounts.identify(leaver).account_id)
    killed = kill_actor(redis_server.url, "after_tournament_withdrawal", "withdraw", tid, leaver)
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    outbox = Outbox(service.store.redis)
    assert outbox.pending(outbox_id(tid))["tournament"] == "w"
    assert service.store.meta(game_id)[f"kind:{seat}"] == "human"  # withdrawn, not handed over yet

    def handed_over() -> bool:
        return not outbox.pending(outbox_id(tid)) and service.store.meta(game_id)[f"kind:{seat}"] == "bot"

    recover(janitor_for(service), handed_over)
    found = parts.load_log(service.store, game_id)
    assert found is not None
    events = [e for e in found.events if e.get("type") == "seat_handed_to_bot"]
    assert [e["seat"] for e in events] == [seat]
