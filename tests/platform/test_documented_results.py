"""What jobs leave, statistics and summaries answer matches the schemas the OpenAPI document gives
them (issue 36: they were free objects; now a generated client parses them into typed models). The
schemathesis runs never see a job's result (no worker runs there), so this test runs the jobs of a
finished game of each engine in process and checks every answer against its component."""

from __future__ import annotations

import random

import pytest
from jsonschema import Draft202012Validator

from launcher.openapi import spec_dict
from tests import app_fixtures

GAMES = [("condottiere", {"players": 2, "seed": 36}), ("rio_de_la_plata", {"players": 3, "seed": 36})]


@pytest.fixture(scope="module")
def app(redis_server):
    redis_server.client().flushall()
    yield from app_fixtures.make_app(redis_server, RATE_LIMITS_ENABLED=False)


@pytest.fixture(scope="module")
def spec(app):
    return spec_dict(app)


def conforms(spec: dict, component: str, body) -> None:
    root = {**spec, "$ref": f"#/components/schemas/{component}"}
    errors = sorted(Draft202012Validator(root).iter_errors(body), key=lambda error: list(error.path))
    assert not errors, f"{component}: " + "; ".join(
        f"{list(error.path)}: {error.message[:300]}" for error in errors[:5]
    )


def run_jobs(client) -> None:
    app_fixtures.run_queued_jobs(client.application.extensions["game_service"].store.queue_redis)


def finished_game(client, game: str, config: dict) -> str:
    created = client.post("/v1/games", json={"game": game, "config": config})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    tokens = {}
    for index in range(created.get_json()["seat_count"]):
        claimed = client.post(f"/v1/games/{game_id}/seats", json={"name": f"Player {index}"}).get_json()
        tokens[claimed["seat"]] = {"Authorization": f"Bearer {claimed['token']}"}
    rng = random.Random(36)
    for _ in range(5000):
        public = client.get(f"/v1/games/{game_id}/view").get_json()
        if public["status"] == "finished":
            return game_id
        seat = public["view"]["awaiting"][0]
        mine = client.get(f"/v1/games/{game_id}/view", headers=tokens[seat]).get_json()
        move = rng.choice(mine["view"]["legal_moves"])
        answer = client.post(f"/v1/games/{game_id}/moves", json={"command": move}, headers=tokens[seat])
        assert answer.status_code == 200, answer.get_json()
    raise AssertionError("a random game did not end")


def computed(client, url: str):
    """A statistic's answer: 202 with its job, then (the job run) 200 with the result."""
    first = client.get(url)
    if first.status_code == 202:
        run_jobs(client)
        first = client.get(url)
    assert first.status_code == 200, first.get_json()
    return first.get_json()


def job_result(client, spec, response) -> tuple[dict, object]:
    assert response.status_code == 202, response.get_json()
    conforms(spec, "Job", response.get_json())
    run_jobs(client)
    job = client.get(response.headers["Location"]).get_json()
    conforms(spec, "Job", job)
    assert job["status"] == "finished", job
    result = client.get(job["result"])
    assert result.status_code == 200
    return job, result.get_json() if result.mimetype == "application/json" else result.get_data(as_text=True)


@pytest.mark.parametrize(("game", "config"), GAMES, ids=[name for name, _ in GAMES])
def test_results_statistics_and_summaries_match_their_schemas(app, spec, game, config):
    client = app.test_client()
    game_id = finished_game(client, game, config)
    summary = client.get(f"/v1/games/{game_id}").get_json()
    conforms(spec, "GameSummary", summary)
    assert summary["result"] is not None
    conforms(spec, "ViewResponse", client.get(f"/v1/games/{game_id}/view").get_json())

    _, report = job_result(client, spec, client.post(f"/v1/games/{game_id}/verify"))
    conforms(spec, "VerifyReport", report)
    assert report["ok"] is True
    _, log = job_result(client, spec, client.post(f"/v1/games/{game_id}/exports", json={"format": "log"}))
    conforms(spec, "ExchangeDocument", log)
    _, history = job_result(
        client, spec, client.post(f"/v1/games/{game_id}/exports", json={"format": "json"})
    )
    conforms(spec, "ExchangeDocument", history)
    _, imported = job_result(client, spec, client.post("/v1/archive/import", json=log))
    conforms(spec, "Imported", imported)

    conforms(spec, "GameStats", computed(client, f"/v1/games/{game_id}/stats"))
    conforms(spec, "GlobalStats", computed(client, f"/v1/stats/global?game={game}"))
    conforms(spec, "PlayerStats", computed(client, f"/v1/stats/players/Player 0?game={game}"))
    conforms(spec, "ArchiveEntry", client.get(f"/v1/archive/{game_id}").get_json())


def test_a_timed_games_clock_matches_its_schema(app, spec):
    client = app.test_client()
    created = client.post(
        "/v1/games",
        json={
            "game": "condottiere",
            "config": {"players": 2},
            "clock": {"move_seconds": 60, "bank_seconds": 30},
        },
    )
    game_id = created.get_json()["id"]
    for name in ("Ann", "Bob"):
        client.post(f"/v1/games/{game_id}/seats", json={"name": name})
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["clock"] is not None and summary["clock"]["seats"]
    conforms(spec, "GameSummary", summary)
    conforms(spec, "Clock", summary["clock"])
    conforms(spec, "ViewResponse", client.get(f"/v1/games/{game_id}/view").get_json())
