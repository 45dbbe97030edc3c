"""The observation export streamed from the analytical store (service.observation_stream,
``GET /v1/stats/{game}/observations.ndjson.gz``): any number of games (more than the export job's
1,000), newest first, under the one filter grammar, each game's observations as the logs give."""

from __future__ import annotations

import gzip
from datetime import datetime, timedelta

import orjson
import pytest

from games import get_game
from replays.observations import observations
from service.fact_queries import FactQueries
from service.filters import parse
from service.observation_stream import matching_ids, observation_stream
from store import parts
from store.facts import FactStore
from tests.facts.played import play_games

MANY = 1_234


def _synthetic_games(facts: FactStore, count: int) -> list[str]:
    """``count`` games rows (one file), finished a minute apart; their ids, newest first."""
    start = datetime(2026, 3, 1)
    rows = []
    for i in range(count):
        rows.append(
            (f"s{i:05d}", start + timedelta(minutes=i), None, [], 2 + i % 2, ["A", "B"], [0], ["A"],
             "adjacent", False, False, 0, 2, None, None, 100, 0, 5)
        )  # fmt: skip
    facts.append("condottiere", "2026-03", "synthetic", {"games": rows})
    return [row[0] for row in reversed(rows)]


def _lines(body: bytes) -> list[dict]:
    return [orjson.loads(line) for line in gzip.decompress(body).splitlines()]


@pytest.mark.slow
def test_more_games_than_the_job_takes_stream_newest_first(svc, facts_dir):
    """Synthetic games rows in the store, each streamed from one of two real logs."""
    facts = FactStore(facts_dir)
    expected_ids = _synthetic_games(facts, MANY)
    played = play_games(svc, "condottiere", 2, seed=5)  # real games, in the store too (newer)
    logs = [parts.load_log(svc.store, game_id) for game_id in played]
    engine = get_game("condottiere")
    per_log = [len(list(observations(engine, log.events, game_id=None, result=None))) for log in logs]

    def load(game_id):
        if game_id in played:
            return logs[played.index(game_id)]
        return logs[int(game_id[1:]) % 2]

    queries = FactQueries(lambda: facts)
    chunks = list(observation_stream(matching_ids(queries, "condottiere", parse({}), None), load))
    assert len(chunks) > 10  # sent as the compressor gives them, not held to the end
    lines = _lines(b"".join(chunks))
    streamed = list(dict.fromkeys(line["game_id"] for line in lines))
    assert len(streamed) == MANY + 2 and set(streamed[:2]) == set(played)
    assert streamed[2:] == expected_ids
    assert len(lines) == sum(per_log[int(i[1:]) % 2] for i in expected_ids) + sum(per_log)
    three = list(matching_ids(queries, "condottiere", parse({"players": ["3"]}), None))
    assert len(three) == MANY // 2 and all(int(i[1:]) % 2 == 1 for i in three if i.startswith("s"))
    assert len(list(matching_ids(queries, "condottiere", parse({}), 700))) == 700


def test_the_route_streams_every_matching_game(client, svc, facts_dir):
    ids = play_games(svc, "condottiere", 3, seed=12, names=lambda i: ["Ann", f"Bo{i}"])
    answer = client.get("/v1/stats/condottiere/observations.ndjson.gz")
    assert answer.status_code == 200 and answer.mimetype == "application/gzip"
    lines = _lines(answer.get_data())
    engine = get_game("condottiere")
    expected = 0
    for game_id in ids:
        log = parts.load_log(svc.store, game_id)
        expected += len(list(observations(engine, log.events, game_id=game_id, result=log.result)))
    assert len(lines) == expected and {line["game_id"] for line in lines} == set(ids)
    one = _lines(client.get("/v1/stats/condottiere/observations.ndjson.gz?limit=1").get_data())
    assert len({line["game_id"] for line in one}) == 1
    none = client.get("/v1/stats/condottiere/observations.ndjson.gz?players=4")
    assert none.status_code == 200 and _lines(none.get_data()) == []
    refused = client.get("/v1/stats/condottiere/observations.ndjson.gz?colour=red")
    assert refused.status_code == 422 and refused.get_json()["code"] == "UNKNOWN_FILTER"
