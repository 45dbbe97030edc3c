"""The bot ladder over HTTP: two bot accounts online (their /v1/me/stream open, as GET
/v1/bots/online defines it) are paired by the ladder's tick into one rated game with a server level,
hear of it on their stream, play it through the API (random legal moves), and the ladder's
standings then list both bots and the level with their ladder game, on one changed rating scale."""

from __future__ import annotations

import random

import pytest

from replays.ratings import DEFAULT_MU, DEFAULT_SIGMA
from service.ladder import ladders_from_text
from tests import app_fixtures
from tests.api.playing import play_to_the_end
from tests.api.stream_reading import first_of
from tests.api.test_accounts import FAST_HASH, bearer, session


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH)


def _ladder(client) -> dict:
    answer = client.get("/v1/ladder/condottiere")
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def test_the_ladder_pairs_online_bots_with_a_level_and_rates_them_on_one_scale(app, client, svc):
    ladder = app.extensions["ladder_service"]
    tokens = {handle: session(client, handle, bot=True) for handle in ("Robo", "Droid")}
    assert {r["player"] for r in _ladder(client)["standings"]} == {
        "bot:random",
        "bot:heuristic",
        "bot:expert",
    }
    assert ladder.tick()["paired"] == 0  # nobody online: nothing paired
    streams = {h: client.get("/v1/me/stream", headers=bearer(t), buffered=False) for h, t in tokens.items()}
    try:
        for stream in streams.values():
            first_of(stream, "open_games")
        assert ladder.tick()["paired"] == 1
        assert ladder.tick()["paired"] == 0  # a second pass: both are busy, no second game
        (playing,) = _ladder(client)["playing"]
        assert sorted(playing["players"]) == ["Droid", "Robo", "random"]
        game_id = playing["game_id"]
        for stream in streams.values():  # each bot hears of its game on its own stream
            assert first_of(stream, "game_started")["game_id"] == game_id
        game = client.get(f"/v1/games/{game_id}").get_json()
        assert game["status"] == "active" and game["clock"] is not None
        assert sorted(s["kind"] for s in game["seats"]) == ["bot", "human", "human"]
        summary = play_to_the_end(client, svc, game_id, tokens, random.Random(7))
    finally:
        for stream in streams.values():
            stream.close()
    assert ladder.tick()["settled"] == 1
    assert ladder.tick()["settled"] == 0  # tallied once
    view = _ladder(client)
    assert view["playing"] == []
    rows = {r["player"]: r for r in view["standings"]}
    assert {"Robo", "Droid", "bot:random", "bot:heuristic", "bot:expert"} == set(rows)
    winners = {summary["seats"][s]["name"] for s in summary["result"]["winners"]}
    for name, shown in (("Robo", "Robo"), ("Droid", "Droid"), ("bot:random", "random")):
        row = rows[name]
        assert row["games"] == 1 and row["wins"] == int(shown in winners)
        assert row["rating"]["games"] == 1  # rated: the game's own ratings, one scale for all
        assert (row["rating"]["mu"], row["rating"]["sigma"]) != (
            pytest.approx(DEFAULT_MU, abs=1e-4),
            pytest.approx(DEFAULT_SIGMA, abs=1e-4),
        )
    assert rows["bot:heuristic"]["games"] == 0 and rows["bot:heuristic"]["rating"]["games"] == 0
    assert [r["place"] for r in view["standings"]] == [1, 2, 3, 4, 5]
    ordinals = [r["rating"]["ordinal"] for r in view["standings"]]
    assert ordinals == sorted(ordinals, reverse=True)
    leaders = {r["player"]: r["ordinal"] for r in client.get("/v1/ratings/condottiere").get_json()["leaders"]}
    assert leaders["Robo"] == rows["Robo"]["rating"]["ordinal"]  # the ratings' own scale


def test_a_game_without_a_ladder_is_a_404_problem(client):
    answer = client.get("/v1/ladder/nosuchgame")
    assert answer.status_code == 404 and answer.get_json()["code"] == "LADDER_NOT_FOUND"


def test_the_janitor_s_ladders_setting_reads_games_and_table_sizes():
    assert ladders_from_text("") == ()
    (ladder,) = ladders_from_text(" condottiere:4 ")
    assert (ladder.game, ladder.players, ladder.levels) == (
        "condottiere",
        4,
        ("random", "heuristic", "expert"),
    )
