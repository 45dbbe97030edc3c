"""Where a stored analysis is shown besides its own resource: the annotated exports (JSON, Markdown,
HTML) carry each analysed decision's values and judgement, the observation export its values as
training labels, and an account's biggest mistakes are listed with a link into the replay."""

from __future__ import annotations

import gzip
import random

import orjson
import pytest

from tests import app_fixtures
from tests.analysis.planted import plant
from tests.analysis.test_analysis_api import _play
from tests.api.test_accounts import FAST_HASH, bearer, session


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH)


def _finished(svc, seed: int, account_token=None, client=None) -> str:
    """A 2-player Condottiere game played at random to its end (seat 0 the account's, if given)."""
    game_id = svc.create_game("condottiere", {"players": 2})["id"]
    if account_token is not None:
        first = client.post(f"/v1/games/{game_id}/seats", json={"seat": 0}, headers=bearer(account_token))
        assert first.status_code in (200, 201), first.get_json()
        tokens = [first.get_json()["token"], svc.claim_seat(game_id, name="Bob", seat=1).token]
    else:
        tokens = [svc.claim_seat(game_id, name=f"P{s}").token for s in range(2)]
    _play(svc, game_id, tokens, random.Random(seed))
    return game_id


def _job_result(client, queue_client, url: str, body: dict) -> bytes:
    started = client.post(url, json=body)
    assert started.status_code == 202, started.get_json()
    app_fixtures.run_queued_jobs(queue_client)
    job = client.get(started.headers["Location"]).get_json()
    assert job["status"] == "finished", job
    return client.get(job["result"]).data


def _export(client, queue_client, game_id: str, fmt: str) -> bytes:
    return _job_result(client, queue_client, f"/v1/games/{game_id}/exports", {"format": fmt})


def test_the_annotated_exports_carry_each_decisions_values_and_judgement(client, svc, queue_client):
    game_id = _finished(svc, 11)
    plain = orjson.loads(_export(client, queue_client, game_id, "json"))
    assert "analysis" not in plain  # not analysed: nothing to carry
    assert "[%win" not in _export(client, queue_client, game_id, "markdown").decode()
    rows = plant(svc.store, game_id, blunder_at=2)
    stored = client.get(f"/v1/games/{game_id}/analysis").get_json()
    blunder = stored["decisions"][2]
    assert blunder["judgement"] == "blunder" and blunder["played_text"] != blunder["best_text"]

    doc = orjson.loads(_export(client, queue_client, game_id, "json"))
    carried = doc["analysis"]["decisions"]
    assert [d["event"] for d in carried] == [row.version + 1 for row in rows]
    assert (
        carried[2]["judgement"] == "blunder" and carried[2]["before"] == 0.55 and carried[2]["after"] == 0.1
    )
    assert doc["analysis"]["seats"] == stored["seats"]

    markdown = _export(client, queue_client, game_id, "markdown").decode()
    line = next(text for text in markdown.splitlines() if text.startswith(f"{rows[2].version + 1}. "))
    assert "[%win 0.55 &gt; 0.10] [%best 0.60] Blunder (-0.50): best was " + blunder["best_text"] in line
    assert markdown.count(" — *[%win ") == len(rows)
    assert "## Computer analysis" in markdown and "| Accuracy |" in markdown

    page = _export(client, queue_client, game_id, "html").decode()
    assert page.count('<span class="eval ') == len(rows)
    assert '<span class="eval blunder">[%win 0.55 &gt; 0.10] [%best 0.60] Blunder (-0.50): best was ' in page
    assert '<section class="chapter" id="analysis">' in page


def test_the_observation_export_carries_the_values_as_training_labels(client, svc, queue_client):
    analysed = _finished(svc, 12)
    other = _finished(svc, 13)
    rows = plant(svc.store, analysed, blunder_at=0)
    lines = gzip.decompress(_job_result(client, queue_client, "/v1/exports/observations", {}))
    observations = [orjson.loads(line) for line in lines.splitlines()]
    mine = [o for o in observations if o["game_id"] == analysed]
    labelled = {o["version"]: o["analysis"] for o in mine if o["analysis"] is not None}
    assert sorted(labelled) == [row.version for row in rows]
    first = labelled[rows[0].version]
    assert first["judgement"] == "blunder" and first["before"] == 0.55 and first["best"] == 0.6
    assert first["after"] == 0.1 and len(first["chances"]) == 2 and "type" in first["best_move"]
    assert all(o["analysis"] is None for o in observations if o["game_id"] == other)


def test_an_accounts_biggest_mistakes_link_to_their_event_in_the_replay(client, svc):
    token = session(client)
    assert client.get("/v1/me/mistakes").status_code == 401
    games = [_finished(svc, 20 + n, token, client) for n in range(3)]
    assert client.get("/v1/me/mistakes", headers=bearer(token)).get_json() == {
        "mistakes": [],
        "games_analysed": 0,
        "games_looked_at": 3,
    }
    first = plant(svc.store, games[0], blunder_at=0)
    second = plant(svc.store, games[1], blunder_at=1)
    body = client.get("/v1/me/mistakes?limit=5", headers=bearer(token)).get_json()
    assert body["games_analysed"] == 2 and body["games_looked_at"] == 3
    # Only the account's own seat (0): a blunder planted on seat 1's move is another's.
    expected = {
        (g, rows[n].version + 1)
        for g, rows, n in ((games[0], first, 0), (games[1], second, 1))
        if rows[n].seat == 0
    }
    assert {(m["game_id"], m["event"]) for m in body["mistakes"]} == expected
    for mistake in body["mistakes"]:
        assert mistake["url"] == f"/replay/{mistake['game_id']}?event={mistake['event']}"
        assert mistake["judgement"] == "blunder" and mistake["loss"] == 0.5 and mistake["seat"] == 0
        assert mistake["best_text"] and mistake["played_text"]
    assert client.get("/v1/me/mistakes?games=0", headers=bearer(token)).status_code == 422
