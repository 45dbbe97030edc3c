"""A tournament's start time (``starts_at``, ``service.tournament.schedule``): created with one, it
is started by the workers (the janitor's sweep runs its follow-up, recorded with it and due then),
not before that time and once, however many sweeps run; with too few entrants then it stays open
until a join brings enough, which starts it. A start time in the past or unparsable is refused
(422, nothing created)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from store.outbox import Outbox, due_key
from store.tournaments import outbox_id
from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, session
from tests.janitors import janitor_for

START_AHEAD_SECONDS = 3
BOUND_SECONDS = 60


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def _create(client, org: str, starts_at, bots: int) -> str:
    body = {"game": "condottiere", "table_size": 3, "rounds": 1, "starts_at": starts_at}
    made = client.post("/v1/tournaments", json=body, headers=bearer(org))
    assert made.status_code == 201, made.get_json()
    tid = made.get_json()["id"]
    for _ in range(bots):
        added = client.post(f"/v1/tournaments/{tid}/bots", json={"level": "random"}, headers=bearer(org))
        assert added.status_code == 200, added.get_json()
    return tid


def _view(client, tid: str) -> dict:
    answer = client.get(f"/v1/tournaments/{tid}")
    assert answer.status_code == 200
    return answer.get_json()


def _tick_until(janitor, done, bound: float = BOUND_SECONDS) -> None:
    """Tick the janitor (as ``python -m worker.janitor`` does) until ``done()``, within ``bound``."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        janitor.tick()
        if done():
            return
        time.sleep(0.2)
    raise AssertionError(f"not done within {bound} s")


def _table_games(svc, tid: str) -> list[str]:
    found = []
    for key in svc.store.redis.scan_iter(match="game:{g:*}:meta", count=1000):
        if svc.store.redis.hget(key, "tournament") == tid.encode():
            found.append(key.decode().split("{g:")[1].split("}")[0])
    return sorted(found)


def test_a_tournament_with_a_start_time_is_started_by_the_workers_then_and_once(client, svc):
    org = session(client, "TimedOrg")
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=START_AHEAD_SECONDS + 1)
    tid = _create(client, org, _iso(start).replace("Z", "+00:00"), bots=6)
    view = _view(client, tid)
    assert view["status"] == "open" and view["settings"]["starts_at"] == _iso(start)
    janitor = janitor_for(svc)
    janitor.tick()
    if datetime.now(UTC) < start:  # a sweep before the start time starts nothing
        assert _view(client, tid)["status"] == "open"

    def round_one_started() -> bool:
        now = _view(client, tid)
        if now["status"] != "running":
            return False
        games = [t["game"] for t in now["rounds"][0]["tables"]]
        return all(client.get(f"/v1/games/{g}").status_code == 200 for g in games)

    _tick_until(janitor, round_one_started)
    view = _view(client, tid)
    games = [t["game"] for t in view["rounds"][0]["tables"]]
    assert len(games) == 2 and view["round"] == 1
    for game_id in games:  # made at the start time, not before it
        assert datetime.fromisoformat(svc.store.meta(game_id)["created"]) >= start
    outbox = Outbox(svc.store.redis)
    _tick_until(janitor, lambda: not outbox.pending(outbox_id(tid)))
    for _ in range(3):
        janitor.tick()
    assert _view(client, tid)["rounds"] == view["rounds"]
    assert _table_games(svc, tid) == sorted(games)  # every table one game
    again = client.post(f"/v1/tournaments/{tid}/start", headers=bearer(org))
    assert again.status_code == 409 and again.get_json()["code"] == "TOURNAMENT_NOT_OPEN"


def _waited_at_the_start_time(client, svc, org: str, bots: int) -> str:
    """A tournament whose start time came with ``bots`` entrants, too few: the sweep looked (its
    start follow-up acknowledged) and left it open."""
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=2)
    tid = _create(client, org, _iso(start), bots=bots)
    outbox = Outbox(svc.store.redis)
    assert outbox.pending(outbox_id(tid)) == {"tournament": "s"}
    _tick_until(janitor_for(svc), lambda: not outbox.pending(outbox_id(tid)))
    assert datetime.now(UTC) >= start
    view = _view(client, tid)
    assert view["status"] == "open" and view["round"] == 0
    return tid


def test_too_few_entrants_at_the_start_time_leave_it_open_and_the_organiser_may_still_start_it(client, svc):
    org = session(client, "WaitingOrg")
    tid = _waited_at_the_start_time(client, svc, org, bots=1)
    started = client.post(f"/v1/tournaments/{tid}/start", headers=bearer(org))
    assert started.status_code == 422 and started.get_json()["code"] == "TABLE_SIZE_NOT_ALLOWED"
    assert _view(client, tid)["status"] == "open"


def _round_one_made(client, svc, tid: str) -> bool:
    now = _view(client, tid)
    if now["status"] != "running" or not now["rounds"]:
        return False
    return all(svc.store.meta(t["game"]) is not None for t in now["rounds"][0]["tables"])


def test_a_join_after_the_start_time_that_brings_enough_entrants_starts_it_by_itself(client, svc):
    """Rule TIMED-START-LATE-JOIN: too few at the start time, the tournament waits open; the join
    that brings it to a table's worth (here an account's, over HTTP) records its start with the
    entrant, and round 1 starts with that player seated, once."""
    org = session(client, "LateJoinOrg")
    tid = _waited_at_the_start_time(client, svc, org, bots=1)
    player = session(client, "LateJoiner")
    joined = client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(player))
    assert joined.status_code == 200, joined.get_json()
    janitor = janitor_for(svc)
    _tick_until(janitor, lambda: _round_one_made(client, svc, tid))
    view = _view(client, tid)
    assert view["round"] == 1 and len(view["rounds"][0]["tables"]) == 1
    seated = view["rounds"][0]["tables"][0]["players"]
    assert len(seated) == 2 and any(
        e["name"] == "LateJoiner" and e["account"] in seated for e in view["entrants"]
    )
    outbox = Outbox(svc.store.redis)
    _tick_until(janitor, lambda: not outbox.pending(outbox_id(tid)))
    assert _view(client, tid)["rounds"] == view["rounds"]
    assert _table_games(svc, tid) == [view["rounds"][0]["tables"][0]["game"]]


def test_an_organisers_bot_after_the_start_time_that_brings_enough_starts_it_too(client, svc):
    """Rule TIMED-START-LATE-JOIN, by the organiser's server bot (the same join script)."""
    org = session(client, "LateBotOrg")
    tid = _waited_at_the_start_time(client, svc, org, bots=1)
    added = client.post(f"/v1/tournaments/{tid}/bots", json={"level": "random"}, headers=bearer(org))
    assert added.status_code == 200, added.get_json()
    _tick_until(janitor_for(svc), lambda: _round_one_made(client, svc, tid))
    assert _view(client, tid)["round"] == 1


def _in(seconds: float) -> str:
    return _iso(datetime.now(UTC) + timedelta(seconds=seconds))


@pytest.mark.parametrize(
    ("starts_at", "code"),
    [
        (lambda: _in(-60), "START_TIME_PASSED"),
        (lambda: "tomorrow at nine", "INVALID_START_TIME"),
        (lambda: _in(3600)[:-1], "INVALID_START_TIME"),  # no offset: which nine?
        (lambda: _in(2 * 366 * 86400), "INVALID_START_TIME"),
    ],
)
def test_a_start_time_in_the_past_or_unparsable_is_refused_and_nothing_is_created(client, starts_at, code):
    org = session(client, f"Refused{code[:5]}{len(starts_at())}")
    before = client.get("/v1/tournaments").get_json()["tournaments"]
    body = {"game": "condottiere", "table_size": 3, "starts_at": starts_at()}
    refused = client.post("/v1/tournaments", json=body, headers=bearer(org))
    assert refused.status_code == 422, refused.get_json()
    assert refused.mimetype == "application/problem+json" and refused.get_json()["code"] == code
    assert client.get("/v1/tournaments").get_json()["tournaments"] == before


def test_a_start_follow_up_run_early_starts_nothing_and_is_put_back_to_the_start_time(client, svc):
    """Its follow-up run before the start time (another process's clock, a run in-line) leaves
    the tournament open and its follow-up pending, due at the start time again."""
    org = session(client, "EarlyOrg")
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=300)
    tid = _create(client, org, _iso(start), bots=3)
    outbox = Outbox(svc.store.redis)
    pending = outbox.pending(outbox_id(tid))  # the last entrant's start (s<token>), due then
    assert list(pending) == ["tournament"] and pending["tournament"].startswith("s")
    report = svc.followups.run(outbox_id(tid))
    assert report.left == 1 and report.done == 0
    assert _view(client, tid)["status"] == "open"
    assert outbox.pending(outbox_id(tid)) == pending
    due = svc.store.redis.zscore(due_key(outbox_id(tid)), outbox_id(tid))
    assert due == start.timestamp() * 1000
