"""The archive, replay, job and statistics routes through the Flask app, on the private Redis,
with jobs run by a real RQ worker in this process."""

from __future__ import annotations

import copy

import orjson
import pytest

from games import get_game
from games.base import fold
from replays import export
from tests import app_fixtures
from tests.archive.scenarios import three_adjacent_game

CONDOTTIERE = get_game("condottiere")
NAMES = ["Ann", "Bob", "Cid", "Dee"]


def exchange(log=None, players=NAMES):
    log = log or three_adjacent_game()
    state = fold(CONDOTTIERE, log)
    return export.export_log(
        CONDOTTIERE, log, players=players, finished=True, result=CONDOTTIERE.result(state)
    )


def run_queued_jobs(client) -> None:
    """Run the app's queued jobs in this process (an RQ SimpleWorker in burst mode), as a worker would."""
    # RQ's Redis, as the app enqueued on it (the store's own, or RQ_REDIS_URL beside a cluster).
    app_fixtures.run_queued_jobs(client.application.extensions["game_service"].store.queue_redis)


def import_job(client, document=None, *, data=None):
    """POST an import (202 + the job's Location), run the job, and return (job, result response)."""
    if data is not None:
        response = client.post("/v1/archive/import", data=data, content_type="application/json")
    else:
        response = client.post("/v1/archive/import", json=document)
    assert response.status_code == 202, response.get_json()
    assert response.headers["Location"].startswith("/v1/jobs/import-")
    run_queued_jobs(client)
    job = client.get(response.headers["Location"]).get_json()
    return job, client.get(f"{response.headers['Location']}/result")


def imported(client, log=None, players=NAMES) -> str:
    job, result = import_job(client, exchange(log, players))
    assert job["status"] == "finished", job
    assert result.status_code == 200 and result.get_json()["id"] == job["params"]["game_id"]
    return result.get_json()["id"]


def import_refusal(client, document=None, *, data=None) -> dict:
    """The problem an import is refused with: by its job (the failed job's error and result), as
    every document is parsed and checked there."""
    if data is not None:
        response = client.post("/v1/archive/import", data=data, content_type="application/json")
    else:
        response = client.post("/v1/archive/import", json=document)
    assert response.status_code == 202, response.get_json()
    run_queued_jobs(client)
    job = client.get(response.headers["Location"]).get_json()
    assert job["status"] == "failed" and job["error"]["status"] in (400, 422), job
    result = client.get(f"{response.headers['Location']}/result")
    assert result.status_code == job["error"]["status"]
    assert result.headers["Content-Type"] == "application/problem+json"
    assert result.get_json()["code"] == job["error"]["code"]
    return result.get_json()


class ToyTable:
    def __init__(self, client, names=("Ann", "Bob")):
        created = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 2, "seed": 3}})
        self.client, self.id = client, created.get_json()["id"]
        self.tokens = [
            client.post(f"/v1/games/{self.id}/seats", json={"name": n}).get_json()["token"] for n in names
        ]

    def auth(self, seat):
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def view(self, seat):
        return self.client.get(f"/v1/games/{self.id}/view", headers=self.auth(seat)).get_json()["view"]

    def play_one(self):
        view = self.view(0)
        seat = view["awaiting"][0]
        move = self.view(seat)["legal_moves"][0]
        response = self.client.post(
            f"/v1/games/{self.id}/moves", json={"command": move}, headers=self.auth(seat)
        )
        assert response.status_code == 200, response.get_json()

    def finish(self):
        while self.view(0)["awaiting"]:
            self.play_one()


def follow(client, response, run_jobs, headers=None):
    """Run the queued jobs, then read the job resource and its result."""
    assert response.status_code == 202, response.get_json()
    location = response.headers["Location"]
    run_jobs()
    job = client.get(location, headers=headers).get_json()
    assert job["status"] == "finished", job
    result = client.get(job["result"], headers=headers)
    assert result.status_code == 200
    return job, result


def test_import_stores_a_finished_public_game_in_the_archive(client):
    game_id = imported(client)
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "finished" and summary["result"]["winners"] == [0]
    assert [s["name"] for s in summary["seats"]] == NAMES
    page = client.get("/v1/archive?player=ann&outcome=adjacent").get_json()
    assert [g["id"] for g in page["games"]] == [game_id]
    assert page["games"][0]["winner_names"] == ["Ann"] and page["games"][0]["imported"] is True
    events = client.get(f"/v1/games/{game_id}/events?limit=500").get_json()["events"]
    dealt = [e["event"] for e in events if e["event"]["type"] == "cards_dealt"]
    assert all(d["cards"] for d in dealt)  # a finished game's log is public, hands included


def test_import_refuses_an_invalid_log_with_the_first_offending_event_and_changes_nothing(
    client, redis_client
):
    doc = exchange()
    plays = [i for i, e in enumerate(doc["events"]) if e["type"] == "card_played"]
    # Seat 0 opens battle 1 with a Bishop it does not hold (its hand is mercenaries and a Heroine).
    doc["events"][plays[0]] = dict(doc["events"][plays[0]], card="bishop")

    def stored_games():  # every game and archive key (job and queue bookkeeping aside)
        return sorted(k for k in redis_client.keys("*") if k.startswith((b"game:", b"games:", b"archive:")))

    before = stored_games()
    body = import_refusal(client, doc)
    assert body["index"] == plays[0] and body["code"] == "CARD_NOT_IN_HAND", body
    assert body["title"] == "The log was refused"
    assert body["event"] == doc["events"][plays[0]] and "rule" in body
    assert stored_games() == before
    assert redis_client.keys("jobs:{jobs}:input:*") == []  # the refused log is not kept


def _last(kind, events):
    return max(i for i, e in enumerate(events) if e["type"] == kind)


@pytest.mark.parametrize(
    "mutate, code",
    [
        # Stopped where a player must decide (before the last battle's token placement).
        (lambda d: d.update(events=d["events"][: _last("token_placed", d["events"])]), "LOG_INCOMPLETE"),
        # Stopped in the middle of the engine's own automatic events: the engine's verify_log says so.
        (lambda d: d.update(events=d["events"][:-3]), "INCOMPLETE_LOG"),
        (lambda d: d.update(result={"winners": [2], "reason": "adjacent"}), "RESULT_MISMATCH"),
        (lambda d: d.update(players=["Ann"]), "INVALID_PLAYERS"),
        (lambda d: d.update(game="chess"), "UNKNOWN_GAME"),
    ],
)
def test_import_refusals_are_problem_documents(client, mutate, code):
    doc = exchange()
    mutate(doc)
    assert import_refusal(client, doc)["code"] == code


def test_an_import_is_a_job_and_the_web_request_replays_nothing(client, redis_client, monkeypatch):
    """Issue 9: the POST keeps the body and queues the job (202 + Location); the engine folds no
    event in the web request; the job replays the log and its result names the game (the id its
    params announced)."""
    document = exchange()
    engine = type(CONDOTTIERE)
    folded = []
    real_evolve = engine.evolve

    def counting_evolve(self, state, event):
        folded.append(event["type"])
        return real_evolve(self, state, event)

    monkeypatch.setattr(engine, "evolve", counting_evolve)
    response = client.post("/v1/archive/import", json=document)
    assert response.status_code == 202 and folded == []
    job = response.get_json()
    assert job["kind"] == "import" and job["status"] == "queued"
    assert response.headers["Location"] == f"/v1/jobs/{job['id']}"
    game_id = job["params"]["game_id"]
    assert client.get(f"/v1/games/{game_id}").status_code == 404  # not before the job ran
    run_queued_jobs(client)
    assert len(folded) >= len(document["events"])  # the worker replayed the whole log
    done = client.get(response.headers["Location"]).get_json()
    assert done["status"] == "finished"
    result = client.get(done["result"]).get_json()
    assert result["id"] == game_id and result["game"]["imported"] is True
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "finished"


def test_a_retried_import_job_ends_with_one_game(client, redis_client):
    """A worker that dies after storing the game and before recording the result: the retry finds
    the game it stored (and no kept log) and answers it instead of importing a second copy."""
    from service import composition
    from store import GameStore

    response = client.post("/v1/archive/import", json=exchange())
    game_id = response.get_json()["params"]["game_id"]
    run_queued_jobs(client)
    service = composition.archive_service(GameStore(redis_client))
    assert redis_client.get(f"jobs:{{jobs}}:input:{game_id}") is None
    body, _ = service.import_job({"game_id": game_id}, lambda fraction: None)
    assert orjson.loads(body)["id"] == game_id
    from store.archive import Archive

    assert Archive(redis_client).count() == 1


def test_import_of_a_malformed_body_is_a_4xx(client):
    """A body that is no JSON object is refused at once, with the problem the request's parser gives
    any other body (issue 36: a body ``\\x00`` answered 202); a JSON object that is no exchange
    document is refused by the job; a body not sent as JSON (415) or too large (413) at once."""

    def refused(data: str) -> dict:
        response = client.post("/v1/archive/import", data=data, content_type="application/json")
        assert response.status_code in (400, 422), response.get_json()
        return response.get_json()

    assert refused("{")["code"] == "MALFORMED_JSON"
    assert refused("\x00")["code"] == "MALFORMED_JSON"
    assert refused("[" * 40 + "]" * 40)["code"] == "JSON_TOO_DEEP"
    assert refused("[1, 2]")["code"] == "VALIDATION_ERROR"
    missing = import_refusal(client, {"format": "game-log"})
    assert missing["code"] == "VALIDATION_ERROR" and "events" in missing["errors"]["json"]
    not_json = client.post("/v1/archive/import", data="format=game-log", content_type="text/plain")
    assert not_json.status_code == 415 and not_json.get_json()["code"] == "UNSUPPORTED_MEDIA_TYPE"


def test_replay_and_battles_of_a_finished_game(client):
    game_id = imported(client)
    battles = client.get(f"/v1/games/{game_id}/battles").get_json()
    assert [c["region"] for c in battles["chapters"]] == ["Torino", "Milano", "Genova", "Milano"]
    second = battles["chapters"][1]
    replay = client.get(second["replay"]).get_json()
    assert replay["version"] == second["end"] and replay["viewer"] == "full"
    assert replay["state"]["regions"]["Torino"] == 0
    assert all("hand" in p for p in replay["state"]["players"])  # finished: complete
    start = client.get(f"/v1/games/{game_id}/replay?version=0").get_json()
    assert start["version"] == 0 and start["state"] is None
    bad = client.get(f"/v1/games/{game_id}/replay?version=100000")
    assert bad.status_code == 422 and bad.get_json()["code"] == "VERSION_OUT_OF_RANGE"
    assert client.get("/v1/games/0000000000000000000z/replay").status_code == 404


def test_replay_of_a_running_game_is_redacted_for_the_viewer(client):
    table = ToyTable(client)
    table.play_one()
    spectator = client.get(f"/v1/games/{table.id}/replay?version=3").get_json()
    assert spectator["finished"] is False and spectator["viewer"] == "spectator"
    assert all("hand" not in p for p in spectator["state"]["players"])
    mine = client.get(f"/v1/games/{table.id}/replay?version=3", headers=table.auth(1)).get_json()
    assert mine["viewer"] == "seat 1" and len(mine["state"]["hand"]) == 2
    wrong = client.get(f"/v1/games/{table.id}/replay", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401


def test_a_game_that_ends_enters_the_archive_with_a_verify_job(client, run_jobs):
    table = ToyTable(client)
    table.finish()
    page = client.get("/v1/archive?game=toy").get_json()
    assert [g["id"] for g in page["games"]] == [table.id]
    assert page["games"][0]["players"] == ["Ann", "Bob"]
    # The verify job was queued when the game ended; asking again shares it.
    response = client.post(f"/v1/games/{table.id}/verify")
    job, result = follow(client, response, run_jobs)
    assert job["kind"] == "verify" and job["attempts"] == 1
    report = result.get_json()
    assert report["ok"] is True and report["snapshot"]["matches"] is True and report["archived"] is True
    again = client.post(f"/v1/games/{table.id}/verify")
    assert again.headers["Location"] == response.headers["Location"]


def test_verify_reports_a_divergent_snapshot_and_leaves_it(client, redis_client, run_jobs):
    # A played game (an imported one is stored compact, without a snapshot: store/compact.py)
    table = ToyTable(client)
    table.finish()
    game_id = table.id
    key = f"game:{{g:{game_id}}}:snapshot"
    snapshot = orjson.loads(redis_client.get(key))
    tampered = copy.deepcopy(snapshot)
    tampered["version"] = snapshot["version"]
    stored_state = tampered["state"]
    # Change one value deep in the stored state (whatever its layout): the first integer found.
    path = _first_int_path(stored_state)
    _set(stored_state, path, _get(stored_state, path) + 1)
    redis_client.set(key, orjson.dumps(tampered))
    _, result = follow(client, client.post(f"/v1/games/{game_id}/verify"), run_jobs)
    report = result.get_json()
    assert report["ok"] is False and report["snapshot"]["matches"] is False
    assert report["snapshot"]["differences"][0]["path"] == "/" + "/".join(map(str, path))
    assert orjson.loads(redis_client.get(key)) == tampered  # reported, never fixed


def _first_int_path(node, path=()):
    if isinstance(node, bool):
        return None
    if isinstance(node, int):
        return path
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        found = _first_int_path(value, path + (key,))
        if found is not None:
            return found
    return None


def _get(node, path):
    for key in path:
        node = node[key]
    return node


def _set(node, path, value):
    _get(node, path[:-1])[path[-1]] = value


def test_exports_in_every_format_and_the_log_round_trips(client, run_jobs):
    game_id = imported(client)
    _, html = follow(client, client.post(f"/v1/games/{game_id}/exports", json={"format": "html"}), run_jobs)
    page = html.get_data(as_text=True)
    assert html.headers["Content-Type"].startswith("text/html")
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 5  # final position + 4 battles
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "Ann (seat 0)" in page and "Battle 3: Genova" in page

    _, md = follow(client, client.post(f"/v1/games/{game_id}/exports", json={"format": "markdown"}), run_jobs)
    text = md.get_data(as_text=True)
    assert "## Battle 4: Milano" in text and "| Ann 🏆 | 5 | 5 |" in text

    _, annotated = follow(
        client, client.post(f"/v1/games/{game_id}/exports", json={"format": "json"}), run_jobs
    )
    doc = annotated.get_json()
    assert len(doc["annotations"]) == len(doc["events"]) == doc["version"]
    assert [c["summary"]["regions"]["Genova"] for c in doc["chapters"]] == [None, None, 0, 0]

    _, log = follow(client, client.post(f"/v1/games/{game_id}/exports", json={"format": "log"}), run_jobs)
    job, again = import_job(client, log.get_json())
    assert job["status"] == "finished", job
    copy_id = again.get_json()["id"]
    first = client.get(f"/v1/games/{game_id}/events?limit=500").get_json()["events"]
    second = client.get(f"/v1/games/{copy_id}/events?limit=500").get_json()["events"]
    assert first == second


def test_export_of_a_running_game_is_redacted_for_the_requesting_viewer(client, run_jobs):
    table = ToyTable(client)
    table.play_one()
    _, spectator = follow(
        client, client.post(f"/v1/games/{table.id}/exports", json={"format": "log"}), run_jobs
    )
    doc = spectator.get_json()
    assert doc["redacted_for"] == "spectator" and doc["result"] is None
    assert [e["cards"] for e in doc["events"] if e["type"] == "cards_dealt"] == [None, None]
    response = client.post(f"/v1/games/{table.id}/exports", json={"format": "log"}, headers=table.auth(1))
    _, seat1 = follow(client, response, run_jobs, headers=table.auth(1))
    dealt = {e["seat"]: e["cards"] for e in seat1.get_json()["events"] if e["type"] == "cards_dealt"}
    assert dealt[0] is None and len(dealt[1]) == 2
    # An export of a running game cannot be imported.
    assert import_refusal(client, seat1.get_json())["code"] == "REDACTED_LOG"


def _unkeyed_job_id(kind, params, data_version):
    """How job ids were made before issue 8: a hash of public data only."""
    import hashlib

    material = orjson.dumps(
        {"kind": kind, "params": params, "data": data_version}, option=orjson.OPT_SORT_KEYS
    )
    return f"{kind}-{hashlib.sha256(material).hexdigest()[:24]}"


def test_a_seats_export_of_a_running_game_is_served_to_that_seats_token_only(client, run_jobs):
    """OPT-HID-4, issue 8 finding 2: the attack (compute the id of seat 0's export from public data,
    read seat 0's hand from it) gets 404; the real id without a token gets 401, with another seat's
    token 404; seat 0's own token gets the export. A spectator's export stays public."""
    table = ToyTable(client)
    table.play_one()
    version = client.get(f"/v1/games/{table.id}").get_json()["version"]
    own = client.post(f"/v1/games/{table.id}/exports", json={"format": "log"}, headers=table.auth(0))
    run_jobs()
    job_id = own.get_json()["id"]
    params = {"game_id": table.id, "format": "log", "viewer": 0}
    guessed = _unkeyed_job_id("export", params, f"game:active:{version}")
    for path in (f"/v1/jobs/{guessed}", f"/v1/jobs/{guessed}/result"):
        answer = client.get(path)
        assert answer.status_code == 404 and answer.get_json()["code"] == "JOB_NOT_FOUND"
    for path in (f"/v1/jobs/{job_id}", f"/v1/jobs/{job_id}/result"):
        bare = client.get(path)
        assert bare.status_code == 401 and bare.get_json()["code"] == "INVALID_TOKEN"
        other = client.get(path, headers=table.auth(1))
        assert other.status_code == 404 and other.get_json()["code"] == "JOB_NOT_FOUND"
        forged = client.get(path, headers={"Authorization": "Bearer not-a-token"})
        assert forged.status_code == 404 and forged.get_json()["code"] == "JOB_NOT_FOUND"
    mine = client.get(f"/v1/jobs/{job_id}/result", headers=table.auth(0))
    assert mine.status_code == 200
    dealt = {e["seat"]: e["cards"] for e in mine.get_json()["events"] if e["type"] == "cards_dealt"}
    assert dealt[1] is None and len(dealt[0]) == 2
    public = client.post(f"/v1/games/{table.id}/exports", json={"format": "log"})
    run_jobs()
    assert client.get(f"/v1/jobs/{public.get_json()['id']}/result").status_code == 200


def test_identical_requests_share_a_job_and_new_data_gives_a_new_one(client, run_jobs):
    table = ToyTable(client)
    first = client.post(f"/v1/games/{table.id}/exports", json={"format": "json"})
    second = client.post(f"/v1/games/{table.id}/exports", json={"format": "json"})
    assert first.status_code == second.status_code == 202
    assert first.headers["Location"] == second.headers["Location"]
    not_yet = client.get(first.get_json()["result"] or first.headers["Location"] + "/result")
    assert not_yet.status_code == 409 and not_yet.get_json()["code"] == "JOB_NOT_FINISHED"
    table.play_one()
    third = client.post(f"/v1/games/{table.id}/exports", json={"format": "json"})
    assert third.headers["Location"] != first.headers["Location"]


def test_statistics_answer_202_then_200_from_the_cache_until_the_archive_changes(client, run_jobs):
    imported(client)
    imported(client, players=["Bob", "Cid", "Dee", "Ann"])
    started = client.get("/v1/stats/global?game=condottiere")
    assert started.status_code == 202
    run_jobs()
    done = client.get("/v1/stats/global?game=condottiere")
    assert done.status_code == 200
    body = done.get_json()
    assert body["games"] == 2 and body["first_seat_advantage"]["wins"] == 2
    assert body["counters"]["contested_regions"][0] == {"key": "Milano", "count": 4}

    player = client.get("/v1/stats/players/ANN")
    assert player.status_code == 202
    run_jobs()
    ann = client.get("/v1/stats/players/ann").get_json()
    assert ann["name"] == "Ann" and ann["games"] == 2 and ann["wins"] == 1
    assert ann["by_seat"]["0"] == {"games": 1, "wins": 1, "win_rate": 1.0}

    imported(client)  # the archive changed: the cached figures are recomputed
    assert client.get("/v1/stats/global?game=condottiere").status_code == 202
    run_jobs()
    assert client.get("/v1/stats/global?game=condottiere").get_json()["games"] == 3


def test_game_statistics_and_unknown_things(client, run_jobs):
    game_id = imported(client)
    assert client.get(f"/v1/games/{game_id}/stats").status_code == 202
    run_jobs()
    facts = client.get(f"/v1/games/{game_id}/stats").get_json()
    assert facts["detail"]["cards"]["m4"]["lost"] == 2 and facts["players"][0]["name"] == "Ann"
    assert client.get("/v1/stats/global?game=chess").get_json()["code"] == "UNKNOWN_GAME"
    assert client.get("/v1/jobs/verify-" + "0" * 24).status_code == 404
    assert client.get("/v1/jobs/../../etc").status_code == 404
    missing = client.get("/v1/stats/players/Zed")
    run_jobs()
    job = client.get(missing.headers["Location"]).get_json()
    assert job["status"] == "failed" and job["error"]["code"] == "PLAYER_NOT_FOUND"
    result = client.get(job["id"].join(["/v1/jobs/", "/result"]))
    assert result.status_code == 404 and result.get_json()["code"] == "PLAYER_NOT_FOUND"


def test_archive_search_validation_and_bulk_export(client, run_jobs):
    ids = [imported(client), imported(client, players=["Bob", "Cid", "Dee", "Eve"])]
    assert client.get("/v1/archive?cursor=zzz").get_json()["code"] == "INVALID_CURSOR"
    assert client.get("/v1/archive?finished_from=yesterday").status_code == 422
    assert client.get("/v1/archive?colour=red").status_code == 422
    page = client.get("/v1/archive?limit=1").get_json()
    assert len(page["games"]) == 1 and page["next_cursor"]
    rest = client.get(f"/v1/archive?limit=1&cursor={page['next_cursor']}").get_json()
    assert {page["games"][0]["id"], rest["games"][0]["id"]} == set(ids) and rest["next_cursor"] is None
    today = page["games"][0]["finished"][:10]
    assert len(client.get(f"/v1/archive?finished_from={today}&finished_to={today}").get_json()["games"]) == 2
    assert client.get("/v1/archive?finished_to=2000-01-01").get_json()["games"] == []

    _, result = follow(client, client.post("/v1/exports/bulk", json={"player": ["eve"]}), run_jobs)
    assert result.headers["Content-Type"] == "application/x-ndjson"
    lines = result.get_data().splitlines()
    assert len(lines) == 1 and orjson.loads(lines[0])["id"] == ids[1]
    _, everything = follow(client, client.post("/v1/exports/bulk", json={}), run_jobs)
    docs = [orjson.loads(line) for line in everything.get_data().splitlines()]
    assert sorted(d["id"] for d in docs) == sorted(ids)
    assert all(export.validate_import(d)["result"]["winners"] == [0] for d in docs)


def test_a_job_rq_gave_up_on_is_reported_failed_not_queued_forever(client, queue_client):
    from rq.job import Job

    game_id = imported(client)
    response = client.post(f"/v1/games/{game_id}/verify")
    job_id = response.get_json()["id"]
    rq_job = Job.fetch(job_id, connection=queue_client)
    rq_job.set_status("failed")  # as after an abandoned run with no retry left
    job = client.get(response.headers["Location"]).get_json()
    assert job["status"] == "failed" and job["error"]["code"] == "JOB_FAILED"
    # Asking again starts a fresh attempt under the same id.
    again = client.post(f"/v1/games/{game_id}/verify")
    assert again.get_json()["id"] == job_id and again.get_json()["status"] == "queued"


def test_import_takes_logs_larger_than_a_move_body_but_not_unbounded(client):
    from tests.archive.test_random_games import random_game

    events, state = random_game({"ruleset": "2006", "players": 5, "options": {"draw_after_battle": True}}, 3)
    doc = export.export_log(
        CONDOTTIERE, events, players=list("ABCDE"), finished=True, result=CONDOTTIERE.result(state)
    )
    body = orjson.dumps(doc)
    assert len(body) > 64 * 1024 or len(events) > 400
    job, _ = import_job(client, data=body + b" " * 70_000)
    assert job["status"] == "finished", job
    huge = client.post("/v1/archive/import", data=b" " * (9 * 1024 * 1024), content_type="application/json")
    assert huge.status_code == 413 and huge.get_json()["code"] == "PAYLOAD_TOO_LARGE"
    # Other routes keep the small limit.
    other = client.post("/v1/games", data=b" " * 70_000, content_type="application/json")
    assert other.status_code == 413


def test_a_failing_job_is_retried_and_a_retry_can_succeed(client, redis_client, queue_client):
    """rq Retry: an unexpected error (here a corrupt stored event) is retried; once the cause is
    gone the retry finishes the job; while retries remain the job reads as queued, not failed."""
    from rq import SimpleWorker

    game_id = imported(client)
    response = client.post(f"/v1/games/{game_id}/exports", json={"format": "json"})
    packed = f"game:{{g:{game_id}}}:log"  # an imported game is stored compact (store/compact.py)
    good = redis_client.get(packed)
    redis_client.set(packed, b"\x01corrupt")
    worker = SimpleWorker(["default"], connection=queue_client)
    worker.work(burst=True, max_jobs=1, logging_level="CRITICAL")
    job = client.get(response.headers["Location"]).get_json()
    assert job["status"] == "queued" and job["attempts"] == 1  # a retry is on its way
    redis_client.set(packed, good)
    worker.work(burst=True, logging_level="CRITICAL")
    job = client.get(response.headers["Location"]).get_json()
    assert job["status"] == "finished" and job["attempts"] == 2
    assert (
        len(client.get(job["result"]).get_json()["annotations"])
        == client.get(f"/v1/games/{game_id}").get_json()["version"]
    )


def test_a_job_that_keeps_failing_ends_failed_after_its_retries(client, redis_client, run_jobs):
    game_id = imported(client)
    response = client.post(f"/v1/games/{game_id}/verify")
    redis_client.set(f"game:{{g:{game_id}}}:log", b"\x01corrupt")  # stored compact: store/compact.py
    run_jobs()
    job = client.get(response.headers["Location"]).get_json()
    assert job["status"] == "failed" and job["attempts"] == 4  # the first run and 3 retries
    assert job["error"]["code"] == "JOB_FAILED" and job["error"]["status"] == 500
    result = client.get(response.headers["Location"] + "/result")
    assert result.status_code == 500 and result.headers["Content-Type"] == "application/problem+json"


def test_replay_and_battles_of_a_finished_game_are_computed_once(client, redis_client):
    """A finished game never changes: the second /battles and /replay read the kept answer (no
    XRANGE of the log, no fold) and are byte-identical to the first; a wrong token is still a 401
    and a version past the end still a 422 (issue 9)."""
    from tests.redis_metrics import calls_delta, command_calls

    game_id = imported(client)
    urls = [
        f"/v1/games/{game_id}/battles",
        f"/v1/games/{game_id}/replay?version=7",
        f"/v1/games/{game_id}/replay",
    ]
    first = [client.get(url) for url in urls]
    before = command_calls(redis_client)
    again = [client.get(url) for url in urls]
    delta = calls_delta(before, command_calls(redis_client))
    assert "xrange" not in delta, delta
    for one, two in zip(first, again, strict=True):
        assert one.status_code == two.status_code == 200
        assert one.get_data() == two.get_data()
        assert two.headers["Cache-Control"] == "public, max-age=3600"
    wrong = client.get(urls[1], headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert client.get(f"/v1/games/{game_id}/replay?version=100000").status_code == 422
