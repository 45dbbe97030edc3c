"""GET /v1/archive/{id} and the one timestamp format of the archive and jobs (issue 15)."""

from __future__ import annotations

import re

from store.keys import game_keys
from tests.archive.test_api_archive import ToyTable, follow, imported

RFC3339_MS_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def test_an_archive_entry_is_read_by_its_game_id(client):
    game_id = imported(client)
    other = imported(client)
    entry = client.get(f"/v1/archive/{game_id}")
    assert entry.status_code == 200
    searched = {g["id"]: g for g in client.get("/v1/archive").get_json()["games"]}
    assert entry.get_json() == searched[game_id]
    assert client.get(f"/v1/archive/{other}").get_json() == searched[other]


def test_a_running_unknown_or_malformed_game_is_not_in_the_archive(client):
    table = ToyTable(client)
    for game_id in (table.id, "0" * 20, "not-an-id", "import"):
        response = client.get(f"/v1/archive/{game_id}")
        assert response.status_code == 404, game_id
        assert response.mimetype == "application/problem+json"
        assert response.get_json()["code"] == "NOT_IN_ARCHIVE"


def test_a_finished_game_enters_the_archive_and_is_found_by_id(client):
    table = ToyTable(client)
    table.finish()
    entry = client.get(f"/v1/archive/{table.id}").get_json()
    summary = client.get(f"/v1/games/{table.id}").get_json()
    assert entry["id"] == table.id and entry["players"] == ["Ann", "Bob"]
    assert entry["finished"] == summary["finished"]


def test_archive_and_job_times_are_rfc_3339_utc_with_milliseconds(client, run_jobs):
    table = ToyTable(client)
    table.finish()
    summary = client.get(f"/v1/games/{table.id}").get_json()
    for field in ("created", "updated", "started", "finished"):
        assert RFC3339_MS_UTC.match(summary[field]), (field, summary[field])
    entry = client.get(f"/v1/archive/{table.id}").get_json()
    assert RFC3339_MS_UTC.match(entry["finished"]), entry["finished"]
    job, _ = follow(client, client.post(f"/v1/games/{table.id}/verify"), run_jobs)
    for field in ("created", "started", "finished"):
        assert RFC3339_MS_UTC.match(job[field]), (field, job[field])


def test_entries_stored_in_an_older_format_are_served_in_the_one_format(client, redis_client):
    game_id = imported(client)
    # The archive entry is built from the game's metadata, where isoformat() used to store this
    redis_client.hset(game_keys(game_id).meta, "finished", "2026-11-30T17:51:00.123456Z")
    assert client.get(f"/v1/archive/{game_id}").get_json()["finished"] == "2026-11-30T17:51:00.123Z"
    listed = client.get("/v1/archive").get_json()["games"]
    assert [g["finished"] for g in listed if g["id"] == game_id] == ["2026-11-30T17:51:00.123Z"]
