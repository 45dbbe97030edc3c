"""The archive index (store/archive.py) and job bookkeeping (store/jobs.py) on the private Redis."""

from __future__ import annotations

import orjson
import pytest

from service.summaries import build_summary, index_entry, summary_of
from store.archive import Archive, BadCursor
from store.jobs import JobBook, id_secret, job_id
from store.keys import game_keys

BASE = 1_790_000_000_000  # ms


def summary(
    i, players, winners, *, ruleset="2006", options=(), outcome="adjacent", finished=None, game="condottiere"
):
    return build_summary(
        game_id=f"g{i:03d}",
        game=game,
        labels={"ruleset": [ruleset] if ruleset else [], "option": list(options)},
        players=players,
        result={"winners": winners, "reason": outcome},
        version=100 + i,
        finished=BASE + (finished if finished is not None else i) * 1000,
    )


def enter(archive, entry):
    """Store the metadata a finished game with archive summary ``entry`` has (an archive entry is
    built from its game's metadata), then enter it."""
    meta = {
        "game": entry["game"],
        "status": "finished",
        "seat_count": entry["player_count"],
        "version": entry["version"],
        "finished": entry["finished"],
        "config": orjson.dumps({"ruleset": entry["ruleset"], "options": {o: True for o in entry["options"]}}),
        "result": orjson.dumps({"winners": entry["winners"], "reason": entry["outcome"]}),
        "prearranged": "true" if entry["prearranged"] else "false",
        **{f"name:{seat}": name for seat, name in enumerate(entry["players"])},
    }
    archive.redis.hset(game_keys(entry["id"]).meta, mapping=meta)
    return archive.enter(index_entry(entry))


def test_entering_is_idempotent_and_bumps_the_archive_version_once(redis_client):
    archive = Archive(redis_client)
    first = summary(1, ["Ann", "Bob"], [0])
    assert enter(archive, first) == (True, 1)
    assert enter(archive, first) == (False, 1)
    assert enter(archive, summary(2, ["Ann", "Bob"], [1])) == (True, 2)
    assert archive.count() == 2 and archive.version() == 2
    assert summary_of(archive.record("g001")) == first  # built from the game's metadata, as entered
    assert summary_of(archive.record("g001"))["winner_names"] == ["Ann"]


def test_the_whole_archive_is_the_merge_of_the_engines_sets_newest_first(redis_client):
    """No set lists every game: an unfiltered search, a date range, the count and the ids merge the
    engines' sets, ties of finish time included, and the cursor visits every game once."""
    archive = Archive(redis_client)
    for i in range(1, 14):
        game = "condottiere" if i % 3 else "rio_de_la_plata"
        enter(archive, summary(i, ["Ann", "Bob"], [0], finished=i // 2, game=game))  # ties of 2
    expected = [f"g{i:03d}" for i in sorted(range(1, 14), key=lambda i: (i // 2, f"g{i:03d}"), reverse=True)]
    assert archive.count() == 13 and archive.ids() == expected
    assert archive.ids(newest_first=False) == expected[::-1]
    seen, cursor = [], None
    while True:
        page = archive.search(cursor=cursor, limit=4)
        seen += ids(page)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == expected
    assert ids(archive.search(finished_from=BASE + 2000, finished_to=BASE + 3000)) == expected[6:10]
    assert ids(archive.search(filters={"game": ["rio_de_la_plata"]})) == [
        game_id for game_id in expected if int(game_id[1:]) % 3 == 0
    ]
    assert archive.record("g003").name == "rio_de_la_plata" and archive.record("g099") is None
    # Games archived before the set of engines existed: the engines the service knows are read too
    redis_client.delete("archive:{archive}:games")
    assert Archive(redis_client).count() == 0
    assert Archive(redis_client, engines=["condottiere", "rio_de_la_plata"]).ids() == expected


@pytest.fixture()
def filled(redis_client):
    archive = Archive(redis_client)
    enter(archive, summary(1, ["Ann", "Bob"], [0]))
    enter(archive, summary(2, ["ann", "Cid", "Dee", "Eve"], [2], options=("capturing",), outcome="total"))
    enter(
        archive,
        summary(3, ["Bob", "Cid", "Ann"], [1], ruleset="classic", options=("capturing", "hidden_cards")),
    )
    enter(archive, summary(4, ["Bob", "Cid"], [], outcome="no_winner"))
    enter(archive, summary(5, ["Eve", "Ann", "Bob", "Cid"], [1], options=("hidden_cards",)))
    return archive


def ids(page):
    return [record.game_id for record in page.items]


def test_search_by_each_field_newest_first(filled):
    assert ids(filled.search()) == ["g005", "g004", "g003", "g002", "g001"]
    assert ids(filled.search(filters={"player": ["ANN"]})) == ["g005", "g003", "g002", "g001"]
    assert ids(filled.search(filters={"ruleset": ["classic"]})) == ["g003"]
    assert ids(filled.search(filters={"option": ["capturing"]})) == ["g003", "g002"]
    assert ids(filled.search(filters={"option": ["capturing", "hidden_cards"]})) == ["g003"]
    assert ids(filled.search(filters={"players": [4]})) == ["g005", "g002"]
    assert ids(filled.search(filters={"winner": ["ann"]})) == ["g005", "g001"]
    assert ids(filled.search(filters={"outcome": ["no_winner"]})) == ["g004"]
    assert ids(filled.search(filters={"player": ["Ann", "Bob"], "players": [4]})) == ["g005"]
    assert ids(filled.search(filters={"player": ["Nobody"]})) == []


def test_search_by_date_range_is_inclusive(filled):
    page = filled.search(finished_from=BASE + 2000, finished_to=BASE + 4000)
    assert ids(page) == ["g004", "g003", "g002"]


def test_cursor_pagination_visits_every_game_once_even_with_equal_finish_times(redis_client):
    archive = Archive(redis_client)
    for i in range(1, 12):
        enter(archive, summary(i, ["Ann", "Bob"], [0], finished=i // 3))  # ties of 3
    seen, cursor = [], None
    while True:
        page = archive.search(filters={"player": ["Ann"]}, cursor=cursor, limit=4)
        seen += ids(page)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert sorted(seen) == [f"g{i:03d}" for i in range(1, 12)] and len(seen) == 11
    finishes = [summary_of(archive.record(i))["finished"] for i in seen]
    assert finishes == sorted(finishes, reverse=True)
    with pytest.raises(BadCursor):
        archive.search(cursor="%%%")


def test_identical_job_requests_share_one_job_until_the_data_changes(redis_client):
    book = JobBook(redis_client)
    jid, created = book.create("verify", {"game_id": "g1"}, "game:finished:10")
    assert created and jid == job_id("verify", {"game_id": "g1"}, "game:finished:10", id_secret(redis_client))
    assert book.create("verify", {"game_id": "g1"}, "game:finished:10") == (jid, False)
    other, created = book.create("verify", {"game_id": "g1"}, "game:finished:11")
    assert created and other != jid

    book.started(jid)
    book.finish(jid, b'{"ok": true}', "application/json")
    record = book.get(jid)
    assert record.status == "finished" and record.progress == 1.0 and record.completions == 1
    assert book.result(jid) == b'{"ok": true}'
    assert book.create("verify", {"game_id": "g1"}, "game:finished:10") == (jid, False)

    # A result that expired is computed again under the same id.
    redis_client.delete(f"jobs:{{jobs}}:{jid}:result")
    assert book.create("verify", {"game_id": "g1"}, "game:finished:10") == (jid, True)


def test_a_failed_job_is_started_again_on_the_next_request(redis_client):
    book = JobBook(redis_client)
    jid, _ = book.create("export", {"game_id": "g1", "format": "html"}, "game:finished:3")
    book.started(jid)
    book.fail(jid, {"code": "JOB_FAILED"}, final=False)
    assert book.get(jid).status == "queued"  # a retry is coming
    book.fail(jid, {"code": "JOB_FAILED"}, final=True)
    assert book.get(jid).status == "failed" and book.get(jid).error == {"code": "JOB_FAILED"}
    assert book.create("export", {"game_id": "g1", "format": "html"}, "game:finished:3") == (jid, True)
    assert book.get(jid).status == "queued" and book.get(jid).error is None


def test_a_resumed_import_rewrites_a_half_written_game_and_a_plain_one_refuses_the_id(redis_client):
    """An import job whose worker died between claiming the game id (status ``importing``) and the
    MULTI that writes the game: its retry (``resume``) writes the whole game; without ``resume`` an
    id already there is refused."""
    from service.archive import import_finished_game
    from store import GameStore
    from store.game_logs import load_log

    events = [{"type": "start", "config": {}}, {"type": "end"}]
    game = dict(
        game_id="01m8kknrfm9bbbbbbbbb",
        name="toy",
        title="Toy",
        public_config={},
        full_config={},
        players=["Ann", "Bob"],
        events=events,
        snapshot_state={"over": True},
        result={"winners": [0], "reason": "points"},
        now="2026-11-30T12:00:00Z",
    )
    redis_client.hset("game:{g:01m8kknrfm9bbbbbbbbb}:meta", "status", "importing")
    redis_client.xadd("game:{g:01m8kknrfm9bbbbbbbbb}:events", {"e": b'{"type": "partial"}'}, id="1-1")
    assert import_finished_game(GameStore(redis_client), **game) is None
    summary = import_finished_game(GameStore(redis_client), **game, resume=True)
    assert summary is not None and summary["imported"] is True
    log = load_log(redis_client, "01m8kknrfm9bbbbbbbbb")
    assert log.events == events and log.status == "finished"
    # Run again (the retry of a run that got this far): the same game, entered once.
    assert import_finished_game(GameStore(redis_client), **game, resume=True) == summary
    assert Archive(redis_client).count() == 1
