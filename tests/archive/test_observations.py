"""The observation export (issue 34, item 3): random finished games of both engines, played through
the service, exported as gzipped NDJSON through the API's job; the observations round-trip into the
very log the game holds (its genesis, then each observed move decided on the state at its version),
each view is the one the seat was served live, each move one of its legal moves."""

from __future__ import annotations

import contextlib
import gzip
import io
import random
import time
import urllib.request
from collections import defaultdict
from pathlib import Path

import orjson
import pytest

from games import get_game
from games.base import COMMITMENT, fold
from tests.archive.played import exported_log, play_recorded


def observation_export(client, run_jobs, body: dict) -> list[dict]:
    started = client.post("/v1/exports/observations", json=body)
    assert started.status_code == 202, started.get_json()
    run_jobs()
    job = client.get(started.headers["Location"]).get_json()
    assert job["status"] == "finished", job
    result = client.get(job["result"])
    assert result.status_code == 200 and result.content_type == "application/gzip"
    return [orjson.loads(line) for line in gzip.decompress(result.data).splitlines()]


def rebuilt_log(name: str, config: dict, observed: list[dict]) -> list[dict]:
    """The log the observations describe: the genesis of the configuration, then each observed move
    decided on the state it was made at (and the automatic events the rules add to it)."""
    game = get_game(name)
    events = game.start(config)
    state = fold(game, events)
    for observation in observed:
        assert observation["version"] == len(events)
        assert observation["move"] in observation["legal_moves"]
        assert observation["view"] == game.view(state, observation["seat"])
        produced = game.decide(state, observation["seat"], observation["move"])
        state = fold(game, produced, state)
        events += produced
    return events


@pytest.fixture()
def games_played(svc):
    played = []
    for index, (name, config) in enumerate(
        [
            ("condottiere", {"players": 3}),
            ("condottiere", {"players": 4}),
            ("rio_de_la_plata", {"players": 3}),
        ]
    ):
        summary, seen = play_recorded(svc, name, config, random.Random(100 + index))
        played.append((summary["id"], name, seen, exported_log(svc, summary["id"])))
    return played


def test_the_observation_export_round_trips_into_the_decisions_of_the_log(client, run_jobs, games_played):
    lines = observation_export(client, run_jobs, {"limit": 10})
    by_game: dict[str, list[dict]] = defaultdict(list)
    for line in lines:
        by_game[line["game_id"]].append(line)
    assert set(by_game) == {game_id for game_id, *_ in games_played}
    for game_id, name, seen, doc in games_played:
        observed = by_game[game_id]
        assert all(o["game"] == name and o["result"] == doc["result"] for o in observed)
        # each view is the one that seat was served live at that version
        for o in observed:
            assert o["view"] == seen[(o["version"], o["seat"])]
        log = doc["events"]
        first = {k: v for k, v in log[0].items() if k != COMMITMENT}
        assert rebuilt_log(name, first["config"], observed) == [first, *log[1:]]


def test_the_observation_export_takes_the_archive_filters(client, run_jobs, games_played):
    lines = observation_export(client, run_jobs, {"game": "rio_de_la_plata"})
    rio = {game_id for game_id, name, *_ in games_played if name == "rio_de_la_plata"}
    assert lines and {line["game_id"] for line in lines} == rio
    assert observation_export(client, run_jobs, {"game": "condottiere", "players": 4, "limit": 1})[0][
        "seat"
    ] in range(4)
    refused = client.post("/v1/exports/observations", json={"limit": 0})
    assert refused.status_code == 422 and refused.get_json()["code"] == "VALIDATION_ERROR"


class _Answer(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def test_the_documented_python_loader_reads_the_export(client, run_jobs, games_played, monkeypatch):
    """docs/observations.md's example, run as written, its HTTP calls served by the app."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "observations.md").read_text()
    snippet = text.split("```python\n", 1)[1].split("```", 1)[0]

    def urlopen(request):
        url = request if isinstance(request, str) else request.full_url
        path = url.removeprefix("http://127.0.0.1:8000")
        if isinstance(request, str):
            run_jobs()  # a worker runs the job while the example polls
            answer = client.get(path)
        else:
            answer = client.post(path, data=request.data, headers=dict(request.header_items()))
        assert answer.status_code in (200, 202), answer.get_data(as_text=True)[:200]
        return _Answer(answer.data)

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(snippet, "docs/observations.md", "exec"), {})
    expected = observation_export(client, run_jobs, {"game": "condottiere", "limit": 50})
    assert expected and printed.getvalue().split()[0] == str(len(expected))
