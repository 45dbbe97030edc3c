"""Compaction of finished games (issue 13, item 5): the log becomes one compressed value, the stream,
snapshot and configuration go, idempotency records expire soon, and every reader answers the same
from either form."""

from __future__ import annotations

import gzip
import random
import threading

import orjson
import pytest

from service.compaction import Compaction
from store import GameStore, compact
from store.game_logs import events_of, load_log
from store.keys import game_keys
from tests.api.sse import read_messages
from tests.app_fixtures import make_app, run_queued_jobs


@pytest.fixture()
def app(redis_client, redis_server, monkeypatch):
    monkeypatch.setenv("COMPACT_DELAY_MS", "0")
    yield from make_app(redis_server, SSE_HEARTBEAT_SECONDS=0.2)


def play(client, players: int = 3, seed: int = 1) -> tuple[str, list[str], dict[str, tuple]]:
    """A Condottiere game played to its end over HTTP with random legal moves, each move sent with an
    Idempotency-Key. Returns the id, the seats' tokens and, per key, (seat, body, answer)."""
    rng = random.Random(seed)
    created = client.post("/v1/games", json={"game": "condottiere", "config": {"players": players}})
    game_id = created.get_json()["id"]
    tokens = [
        client.post(f"/v1/games/{game_id}/seats", json={"name": f"P{s}"}).get_json()["token"]
        for s in range(players)
    ]
    sent: dict[str, tuple] = {}
    while True:
        summary = client.get(f"/v1/games/{game_id}").get_json()
        if summary["status"] == "finished":
            return game_id, tokens, sent
        seat = rng.choice(summary["awaiting"])
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        view = client.get(f"/v1/games/{game_id}/view", headers=auth).get_json()["view"]
        key = f"k{len(sent)}"
        body = {"command": rng.choice(view["legal_moves"])}
        answer = client.post(
            f"/v1/games/{game_id}/moves", json=body, headers={**auth, "Idempotency-Key": key}
        )
        assert answer.status_code == 200, answer.get_json()
        sent[key] = (seat, body, answer.get_json())


def sse(client, url: str, headers=None) -> list:
    response = client.get(url, headers=headers or {})
    assert response.status_code == 200
    messages = list(read_messages(response.response, stop=lambda m: m.event == "end"))
    response.close()
    return [(m.id, m.event, m.data) for m in messages if m.comment is None]


def job_result(client, redis_client, url: str, body=None) -> bytes:
    started = client.post(url, json=body) if body is not None or "verify" in url else client.get(url)
    if started.status_code == 200:
        return started.data
    assert started.status_code == 202, started.get_json()
    run_queued_jobs(client.application.extensions["game_service"].store.queue_redis)  # RQ's Redis
    job = client.get(started.headers["Location"]).get_json()
    assert job["status"] == "finished", job
    return client.get(job["result"]).data


def everything(client, redis_client, game_id: str, tokens: list[str]) -> dict:
    """What every reader answers about a finished game (job results and kept replays are computed
    afresh: their records are dropped first)."""
    for key in redis_client.scan_iter("jobs:*"):
        if not key.endswith(b"id-secret"):
            redis_client.delete(key)
    redis_client.delete(f"game:{{g:{game_id}}}:replays")
    seat0 = {"Authorization": f"Bearer {tokens[0]}"}
    base = f"/v1/games/{game_id}"
    found = {
        "summary": client.get(base).get_json(),
        "view": client.get(f"{base}/view", headers=seat0).get_json(),
        "spectator": client.get(f"{base}/view").get_json(),
        "events": client.get(f"{base}/events?limit=500").get_json(),
        "events_page": client.get(f"{base}/events?after=7&limit=5").get_json(),
        "events_seat": client.get(f"{base}/events?after=3&limit=50", headers=seat0).get_json(),
        "replay": client.get(f"{base}/replay").get_json(),
        "replay_9": client.get(f"{base}/replay?version=9").get_json(),
        "replay_9_as_1": client.get(f"{base}/replay?version=9&as=1").get_json(),
        "replay_as_0": client.get(f"{base}/replay?as=0").get_json(),
        "battles": client.get(f"{base}/battles").get_json(),
        "annotations": client.get(f"{base}/annotations?limit=500").get_json(),
        "stream": sse(client, f"{base}/stream"),
        "stream_after": sse(client, f"{base}/stream?after=20", seat0),
        "view_stream": sse(client, f"{base}/view/stream", seat0),
        "archive": client.get(f"/v1/archive/{game_id}").get_json(),
    }
    for fmt in ("log", "json", "markdown", "html"):
        found[f"export_{fmt}"] = job_result(client, redis_client, f"{base}/exports", {"format": fmt})
    found["bulk"] = job_result(client, redis_client, "/v1/exports/bulk", {"format": "ndjson"})
    found["observations"] = gzip.decompress(job_result(client, redis_client, "/v1/exports/observations", {}))
    found["game_stats"] = job_result(client, redis_client, f"{base}/stats")
    verified = orjson.loads(job_result(client, redis_client, f"{base}/verify"))
    found["verify"] = {k: verified[k] for k in ("ok", "version", "log_error", "game_id", "status")}
    return found


def test_every_reader_answers_the_same_from_the_compact_form(client, svc, redis_client):
    game_id, tokens, _ = play(client)
    keys = game_keys(game_id)
    assert redis_client.exists(keys.events, keys.snapshot, keys.config, keys.idem) == 4
    before = everything(client, redis_client, game_id, tokens)
    assert before["events"]["events"] and before["stream"][-1][1] == "end"
    assert before["replay_9_as_1"]["viewer"] == "seat 1" and before["observations"].count(b"\n") > 10

    report = Compaction(GameStore(redis_client)).run_due()
    assert report.compacted == [game_id]
    assert redis_client.exists(keys.events, keys.snapshot, keys.config) == 0
    assert redis_client.exists(keys.log) == 1
    assert 0 < redis_client.ttl(keys.idem) <= compact.IDEMPOTENCY_AFTER_COMPACTION_SECONDS
    assert 0 < redis_client.ttl(keys.seats) <= compact.IDEMPOTENCY_AFTER_COMPACTION_SECONDS
    assert redis_client.hget(keys.meta, "compacted") == b"1"
    # Long values (configuration, result) are kept in parts: the hash stays in compact encoding
    assert redis_client.object("encoding", keys.meta) == b"listpack"
    assert redis_client.hget(keys.meta, "config") is None and redis_client.hget(keys.meta, "name:0") is None

    svc.cache.clear()  # the final state is folded from the compact log, not taken from a cache
    after = everything(client, redis_client, game_id, tokens)
    for reader, answer in before.items():
        assert after[reader] == answer, reader


def test_a_late_retry_gets_its_first_answer_then_a_clear_refusal(client, redis_client):
    """A retry of a move of a finished game: its first answer while the idempotency records are kept
    (an hour after the compaction), then 409 GAME_FINISHED (the service cannot tell a retry of an
    applied move from a new one), never a 200 that applies it again or a misleading rule refusal."""
    game_id, tokens, sent = play(client, seed=4)
    Compaction(GameStore(redis_client)).run_due()
    last_key = list(sent)[-1]
    seat, body, first = sent[last_key]
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    retry = client.post(
        f"/v1/games/{game_id}/moves", json=body, headers={**auth, "Idempotency-Key": last_key}
    )
    assert retry.status_code == 200 and retry.headers.get("Idempotent-Replayed") == "true"
    assert retry.get_json() == first

    redis_client.delete(game_keys(game_id).idem)  # what the expiry does
    version = client.get(f"/v1/games/{game_id}").get_json()["version"]
    late = client.post(f"/v1/games/{game_id}/moves", json=body, headers={**auth, "Idempotency-Key": last_key})
    assert late.status_code == 409, late.get_json()
    assert late.get_json()["code"] == "GAME_FINISHED" and late.get_json()["current_version"] == version
    pinned = client.post(
        f"/v1/games/{game_id}/moves",
        json={**body, "expected_version": first["version"] - 1},
        headers={**auth, "Idempotency-Key": last_key},
    )
    assert pinned.status_code == 409 and pinned.get_json()["code"] == "GAME_FINISHED"
    assert client.get(f"/v1/games/{game_id}").get_json()["version"] == version  # nothing applied


def test_after_the_seat_tokens_expire_a_late_request_is_told_the_game_is_over(client, svc, redis_client):
    """The seat token hashes expire with the idempotency records (an hour after the compaction):
    a late move is then told the game is finished (409 GAME_FINISHED with a key, 422 GAME_OVER
    without, as a checked token would have been), a seat's view is refused with a detail that says
    why, and everyone's view and events stay readable."""
    game_id, tokens, sent = play(client, seed=5)
    Compaction(GameStore(redis_client)).run_due()
    keys = game_keys(game_id)
    redis_client.delete(keys.idem, keys.seats)  # what their expiry does
    svc.cache.clear()
    seat, body, first = sent[list(sent)[-1]]
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    version = client.get(f"/v1/games/{game_id}").get_json()["version"]
    base = f"/v1/games/{game_id}"
    keyed = client.post(f"{base}/moves", json=body, headers={**auth, "Idempotency-Key": "late"})
    assert keyed.status_code == 409 and keyed.get_json()["code"] == "GAME_FINISHED", keyed.get_json()
    assert keyed.get_json()["current_version"] == version
    plain = client.post(f"{base}/moves", json=body, headers=auth)
    assert plain.status_code == 422 and plain.get_json()["code"] == "GAME_OVER", plain.get_json()
    view = client.get(f"{base}/view", headers=auth)
    assert view.status_code == 401 and view.get_json()["code"] == "INVALID_TOKEN"
    assert "no longer kept" in view.get_json()["detail"]
    assert client.get(f"{base}/view").status_code == 200
    assert client.get(f"{base}/events?limit=500").get_json()["events"][-1]["version"] == version
    assert client.get(base).get_json()["version"] == version  # nothing applied


def test_compaction_is_idempotent_and_a_rerun_after_a_crash_finishes_it(client, redis_client):
    game_id, _, _ = play(client, seed=2)
    keys = game_keys(game_id)
    compaction = Compaction(GameStore(redis_client))
    log = load_log(redis_client, game_id)
    # A process killed after the script but before taking the game off the queue: the game is
    # taken again and only leaves the queue.
    assert compaction.compactor.compact(game_id, log.name, log.events) == "ok"
    assert compaction.compactor.compact(game_id, log.name, log.events) == "already"
    assert compaction.queue.due_at(game_id) is not None
    assert compaction.run_due().compacted == [game_id]
    assert compaction.queue.due_at(game_id) is None
    assert load_log(redis_client, game_id).events == log.events
    assert redis_client.exists(keys.events, keys.snapshot, keys.config) == 0


def test_metadata_changed_while_compacting_leave_the_game_as_it_was(client, redis_client, monkeypatch):
    """The metadata are packed from what the compactor read; a field written between that read and
    the script makes the script refuse ('stale'): nothing lost, the stream kept, tried again later."""
    game_id, _, _ = play(client, seed=6)
    keys = game_keys(game_id)
    compaction = Compaction(GameStore(redis_client))
    log = load_log(redis_client, game_id)
    packed_meta = compact.packed_meta

    def written_meanwhile(meta):
        redis_client.hset(keys.meta, "late", "1")
        return packed_meta(meta)

    monkeypatch.setattr(compact, "packed_meta", written_meanwhile)
    assert compaction.compactor.compact(game_id, log.name, log.events) == "stale"
    assert redis_client.exists(keys.events) == 1 and redis_client.exists(keys.log) == 0
    assert redis_client.hget(keys.meta, "late") == b"1"
    monkeypatch.setattr(compact, "packed_meta", packed_meta)
    assert compaction.compactor.compact(game_id, log.name, log.events) == "ok"
    assert GameStore(redis_client).meta(game_id)["late"] == "1"  # packed with the rest, read back
    assert redis_client.hget(keys.meta, "late") is None


def test_a_log_that_does_not_verify_is_not_compacted(client, redis_client):
    game_id, _, _ = play(client, seed=3)
    keys = game_keys(game_id)
    snapshot = orjson.loads(redis_client.get(keys.snapshot))
    snapshot["version"] -= 1
    redis_client.set(keys.snapshot, orjson.dumps(snapshot))
    assert Compaction(GameStore(redis_client)).run_due().refused == [game_id]
    assert redis_client.exists(keys.events) == 1 and redis_client.exists(keys.log) == 0


def test_a_game_is_not_compacted_before_its_delay(client, redis_client, monkeypatch):
    monkeypatch.setenv("COMPACT_DELAY_MS", "60000")
    game_id, _, _ = play(client, seed=5)
    compaction = Compaction(GameStore(redis_client))
    assert compaction.run_due().compacted == []
    assert redis_client.exists(game_keys(game_id).events) == 1
    assert compaction.queue.due_at(game_id) is not None


def test_readers_racing_with_compaction_always_see_the_whole_log(client, svc, redis_client):
    """The script swaps the stream for the compact value in one step and readers read both in one
    round trip: a reader never sees a partial or empty log."""
    games = [play(client, players=2, seed=10 + i)[0] for i in range(4)]
    logs = {game_id: load_log(redis_client, game_id).events for game_id in games}
    wrong: list[str] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            for game_id, events in events_of(redis_client, games):
                if events != logs[game_id]:
                    wrong.append(f"events_of {game_id}")
            for game_id in games:
                if [e.event for e in svc.store.read_events(game_id, limit=10_000)] != logs[game_id]:
                    wrong.append(f"read_events {game_id}")

    reader = threading.Thread(target=read)
    reader.start()
    try:
        assert sorted(Compaction(GameStore(redis_client)).run_due().compacted) == sorted(games)
    finally:
        stop.set()
        reader.join()
    assert wrong == []


def test_an_imported_game_is_stored_compact(client, redis_client):
    game_id, _, _ = play(client, players=2, seed=6)
    exported = job_result(client, redis_client, f"/v1/games/{game_id}/exports", {"format": "log"})
    new_id = orjson.loads(job_result(client, redis_client, "/v1/archive/import", orjson.loads(exported)))[
        "id"
    ]
    keys = game_keys(new_id)
    assert redis_client.exists(keys.log) == 1
    assert redis_client.exists(keys.events, keys.snapshot, keys.config) == 0
    assert redis_client.object("encoding", keys.meta) == b"listpack"
    assert load_log(redis_client, new_id).events == load_log(redis_client, game_id).events
    replay = client.get(f"/v1/games/{new_id}/replay").get_json()
    assert replay["finished"] is True and replay["version"] == len(load_log(redis_client, game_id).events)
