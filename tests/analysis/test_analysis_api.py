"""``POST/GET /v1/games/{id}/analysis``: nothing while the game runs, one job on the ``analysis``
queue when it is over, stored once and served without recomputing, redone for a new revision."""

from __future__ import annotations

import random

import pytest
from rq import SimpleWorker

from bots.search import Budget
from replays import analysis
from service import analysis as analysis_service
from service.jobs import JobService

TINY = Budget(iterations=4, rollout_moves=4)


@pytest.fixture()
def counted(monkeypatch):
    """Every analysis computed, counted; a tiny budget, so a whole game takes a moment."""
    monkeypatch.setattr(analysis, "DEFAULT_BUDGET", TINY)
    calls = []
    real = analysis.analyse

    def counting(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(analysis, "analyse", counting)
    return calls


def _play(svc, game_id, tokens, rng, moves=None):
    done = 0
    while moves is None or done < moves:
        views = [svc.get_view(game_id, token) for token in tokens]
        if views[0].status == "finished":
            return
        seat = next(s for s, v in enumerate(views) if v.view["legal_moves"])
        svc.submit_command(game_id, tokens[seat], rng.choice(views[seat].view["legal_moves"]))
        done += 1


def _run_analysis_jobs(queue_client):
    SimpleWorker(["analysis"], connection=queue_client).work(burst=True, logging_level="WARNING")


def test_rl_10_a_running_game_has_no_analysis_and_a_finished_one_is_computed_once(
    client, svc, queue_client, counted
):
    """RL-10 (hidden hands and deck): 409 while the game runs, for asking and for reading, and no
    job is queued; once over, two requests share one job, which runs once; a third request is
    answered from the store (200) without a job; the document covers every seat."""
    summary = svc.create_game("condottiere", {"players": 2})
    game_id = summary["id"]
    tokens = [svc.claim_seat(game_id, name=f"P{s}").token for s in range(2)]
    rng = random.Random(3)
    _play(svc, game_id, tokens, rng, moves=6)
    for method in (client.post, client.get):
        refused = method(f"/v1/games/{game_id}/analysis")
        assert refused.status_code == 409 and refused.get_json()["code"] == "GAME_NOT_FINISHED"
    from rq import Queue

    assert Queue("analysis", connection=queue_client).count == 0
    _play(svc, game_id, tokens, rng)
    assert client.get(f"/v1/games/{game_id}/analysis").status_code == 404
    first = client.post(f"/v1/games/{game_id}/analysis")
    second = client.post(f"/v1/games/{game_id}/analysis")
    assert first.status_code == second.status_code == 202
    assert first.get_json()["id"] == second.get_json()["id"]
    assert Queue("analysis", connection=queue_client).count == 1
    assert Queue("default", connection=queue_client).job_ids.count(first.get_json()["id"]) == 0
    _run_analysis_jobs(queue_client)
    assert len(counted) == 1
    third = client.post(f"/v1/games/{game_id}/analysis")
    assert third.status_code == 200
    body = client.get(f"/v1/games/{game_id}/analysis").get_json()
    assert body == third.get_json()
    assert len(counted) == 1 and Queue("analysis", connection=queue_client).count == 0
    assert [s["seat"] for s in body["seats"]] == [0, 1]
    assert body["decisions"] and all(0 <= d["before"] <= 1 for d in body["decisions"])
    assert body["stored_bytes"] < 40 * len(body["decisions"]) + 64


def test_a_new_analysis_version_redoes_the_stored_analysis(client, svc, queue_client, counted, monkeypatch):
    summary = svc.create_game("condottiere", {"players": 2})
    game_id = summary["id"]
    tokens = [svc.claim_seat(game_id, name=f"P{s}").token for s in range(2)]
    _play(svc, game_id, tokens, random.Random(4))
    assert client.post(f"/v1/games/{game_id}/analysis").status_code == 202
    _run_analysis_jobs(queue_client)
    assert client.get(f"/v1/games/{game_id}/analysis").status_code == 200
    monkeypatch.setattr(analysis, "ANALYSIS_VERSION", analysis.ANALYSIS_VERSION + 1)
    assert client.get(f"/v1/games/{game_id}/analysis").status_code == 404
    assert client.post(f"/v1/games/{game_id}/analysis").status_code == 202
    _run_analysis_jobs(queue_client)
    assert len(counted) == 2
    assert client.get(f"/v1/games/{game_id}/analysis").status_code == 200


def test_an_account_may_start_only_so_many_analyses_an_hour(svc, monkeypatch):
    monkeypatch.setattr(analysis_service, "REQUESTS_PER_HOUR", 0)
    summary = svc.create_game("condottiere", {"players": 2})
    tokens = [svc.claim_seat(summary["id"], name=f"P{s}").token for s in range(2)]
    _play(svc, summary["id"], tokens, random.Random(5))
    service = analysis_service.AnalysisService(svc.store, JobService(svc.store))
    with pytest.raises(analysis_service.AnalysisRefused) as refused:
        service.request(summary["id"], "some-account")
    assert refused.value.status == 429
    assert service.request(summary["id"], None) is not None  # no account: the route's own limits
