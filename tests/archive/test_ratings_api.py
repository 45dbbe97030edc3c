"""The ratings routes (issue 32): leaderboards, a player's history, head-to-head, and the chances
to win in a game's summary, from games played through the API by two accounts."""

from __future__ import annotations

import pytest

from service.aggregates import enter_archive
from store.archive import Archive
from store.game_logs import load_log
from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, session
from tests.api.test_me_stream import play_out


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH)


def bound_game(client, ann, bob):
    created = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}})
    game = created.get_json()["id"]
    seat0 = client.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=bearer(ann)).get_json()
    seat1 = client.post(f"/v1/games/{game}/seats", json={"seat": 1}, headers=bearer(bob)).get_json()
    return game, seat0["token"], seat1["token"]


def test_games_of_two_accounts_are_rated_once_and_shown(client, redis_client):
    ann, bob = session(client, "Ann"), session(client, "Bob")
    ids = []
    for _ in range(3):
        game, t0, t1 = bound_game(client, ann, bob)
        play_out(client, game, t0, t1)
        ids.append(game)
    # the follow-up entered and rated them; entering again (the janitor, the verify job) changes nothing
    for game in ids:
        assert enter_archive(Archive(redis_client), load_log(redis_client, game))[0] is False
    board = client.get("/v1/ratings/toy?limit=5")
    assert board.status_code == 200, board.get_json()
    body = board.get_json()
    assert body["players"] == 2 and {row["player"] for row in body["leaders"]} == {"Ann", "Bob"}
    assert all(row["games"] == 3 and row["provisional"] for row in body["leaders"])
    assert body["leaders"][0]["ordinal"] >= body["leaders"][1]["ordinal"]
    history = client.get("/v1/ratings/toy/players/ann").get_json()
    assert [entry["game_id"] for entry in history["history"]] == ids[::-1]
    newest = history["history"][0]
    assert newest["after"] == history["rating"] and newest["against"][0]["player"] == "Bob"
    assert history["history"][1]["after"] == newest["before"]  # each change follows the last
    h2h = client.get("/v1/h2h/Ann/Bob").get_json()
    (toy,) = h2h["games"]
    wins = [0 in client.get(f"/v1/games/{g}").get_json()["result"]["winners"] for g in ids]
    losses = [1 in client.get(f"/v1/games/{g}").get_json()["result"]["winners"] for g in ids]
    assert toy["games"] == 3
    assert toy["first_ahead"] == sum(w and not lost for w, lost in zip(wins, losses, strict=True))
    assert toy["first_ahead"] + toy["second_ahead"] + toy["ties"] == 3


def test_a_game_about_to_start_predicts_each_seat_s_chance(client):
    ann, bob = session(client, "Ann"), session(client, "Bob")
    for _ in range(2):
        game, t0, t1 = bound_game(client, ann, bob)
        play_out(client, game, t0, t1)
    created = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}})
    game = created.get_json()["id"]
    client.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=bearer(ann))
    assert "predict_win" not in client.get(f"/v1/games/{game}").get_json()  # a seat still free
    client.post(f"/v1/games/{game}/seats", json={"seat": 1}, headers=bearer(bob))
    summary = client.get(f"/v1/games/{game}").get_json()
    chances = summary["predict_win"]
    assert len(chances) == 2 and sum(chances) == pytest.approx(1)
    board = {row["player"]: row["mu"] for row in client.get("/v1/ratings/toy").get_json()["leaders"]}
    if board["Ann"] != board["Bob"]:
        assert (chances[0] > chances[1]) == (board["Ann"] > board["Bob"])
    # an anonymous seat has no rating: no prediction
    other = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}}).get_json()["id"]
    client.post(f"/v1/games/{other}/seats", json={"seat": 0}, headers=bearer(ann))
    client.post(f"/v1/games/{other}/seats", json={"name": "Cid", "seat": 1})
    assert "predict_win" not in client.get(f"/v1/games/{other}").get_json()


def test_ratings_routes_refuse_unknown_games_and_players(client):
    assert client.get("/v1/ratings/nogame").get_json()["code"] == "UNKNOWN_GAME"
    assert client.get("/v1/ratings/toy/players/nobody").get_json()["code"] == "PLAYER_NOT_FOUND"
    assert client.get("/v1/h2h/nobody/bot:random").status_code == 404
    assert client.get("/v1/ratings/toy?limit=0").get_json()["code"] == "VALIDATION_ERROR"
    assert client.get("/v1/ratings/toy?limit=x&y=1").status_code == 422
    empty = client.get("/v1/ratings/toy/players/bot:random").get_json()
    assert empty["history"] == [] and empty["rating"]["games"] == 0


def test_the_annotated_export_gives_each_seat_s_rating_before_the_game(client, run_jobs):
    from tests.archive.test_api_archive import follow

    ann, bob = session(client, "Ann"), session(client, "Bob")
    ids = []
    for _ in range(2):
        game, t0, t1 = bound_game(client, ann, bob)
        play_out(client, game, t0, t1)
        ids.append(game)
    _, doc = follow(client, client.post(f"/v1/games/{ids[1]}/exports", json={"format": "json"}), run_jobs)
    before = doc.get_json()["ratings_before"]
    assert [seat["player"] for seat in before] == ["Ann", "Bob"]
    history = client.get("/v1/ratings/toy/players/Ann").get_json()["history"]
    assert history[0]["game_id"] == ids[1]
    assert {k: before[0][k] for k in history[0]["before"]} == history[0]["before"] and before[0]["games"] == 1


def test_a_game_s_ratings_give_each_seat_s_rating_and_the_chances_of_a_game_about_to_start(client):
    """GET /v1/games/{id}/ratings: the table's and the lobby's figures. Open with one seat free, the
    chances are those the summary will show once the player named by `joining` takes it."""
    ann, bob = session(client, "Ann"), session(client, "Bob")
    played = []
    for _ in range(2):
        game, t0, t1 = bound_game(client, ann, bob)
        play_out(client, game, t0, t1)
        played.append(game)
    board = {row["player"]: row for row in client.get("/v1/ratings/toy").get_json()["leaders"]}
    game = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}}).get_json()["id"]
    client.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=bearer(ann))
    waiting = client.get(f"/v1/games/{game}/ratings").get_json()
    assert [s["player"] for s in waiting["seats"]] == ["Ann", None] and waiting["seats"][1]["rating"] is None
    assert waiting["seats"][0]["rating"]["ordinal"] == board["Ann"]["ordinal"]
    assert "predict_win" not in waiting
    joining = client.get(f"/v1/games/{game}/ratings?joining=bob").get_json()
    assert joining["joining_seat"] == 1 and len(joining["predict_win"]) == 2
    assert "predict_win" not in client.get(f"/v1/games/{game}/ratings?joining=Ann").get_json()  # seated
    client.post(f"/v1/games/{game}/seats", json={"seat": 1}, headers=bearer(bob))
    started = client.get(f"/v1/games/{game}/ratings").get_json()
    assert started["predict_win"] == joining["predict_win"]
    assert started["predict_win"] == client.get(f"/v1/games/{game}").get_json()["predict_win"]
    # a finished rated game: each seat's rating before and after it, as the player's history says
    done = client.get(f"/v1/games/{played[1]}/ratings").get_json()
    assert done["rated"] is True and "predict_win" not in done
    (newest, *_) = client.get("/v1/ratings/toy/players/Bob").get_json()["history"]
    assert newest["game_id"] == played[1]
    assert (done["seats"][1]["before"], done["seats"][1]["after"]) == (newest["before"], newest["after"])
    # an anonymous seat has no rating, and the game is not rated
    other = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}}).get_json()["id"]
    client.post(f"/v1/games/{other}/seats", json={"name": "Ann", "seat": 0})
    assert client.get(f"/v1/games/{other}/ratings").get_json()["seats"][0] == {
        "seat": 0,
        "player": None,
        "bot": False,
        "rating": None,
    }


def test_a_game_s_ratings_refuse_unknown_games_and_options(client):
    assert client.get("/v1/games/0000000000000000000x/ratings").get_json()["code"] == "GAME_NOT_FOUND"
    game = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}}).get_json()["id"]
    assert client.get(f"/v1/games/{game}/ratings?limit=3").status_code == 422
    assert client.get(f"/v1/games/{game}/ratings?joining=nobody").status_code == 200  # no prediction
