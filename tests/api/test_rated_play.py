"""Ratings that can be neither farmed nor dodged, over HTTP: a rated game needs a minimum of real
play (each game's ``RatingHooks.rated_decisions``; Condottiere's is five decisions per seat), and a
seat that leaves a rated game (too many timeouts, RL-X19, or its account deleted) takes last place
while the others' ratings still move (Board Game Arena's rule). Resigning is RL-X17."""

from __future__ import annotations

import random

import pytest

from games.condottiere import GAME
from service import bot_turns
from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, session
from worker.clocks import enforce_due

MINIMUM = GAME.rated_decisions({})
MOVES_AT_MOST = 3000  # a random 2-seat Condottiere game ends in far fewer decisions


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH)


def _game(client, accounts: list[str], clock: dict | None = None) -> tuple[str, list[str]]:
    """A 2-seat Condottiere game, seat i claimed with account token ``accounts[i]`` (no seed given:
    a prearranged game is never rated)."""
    body: dict = {"game": "condottiere", "config": {"players": 2}}
    if clock is not None:
        body["clock"] = clock
    created = client.post("/v1/games", json=body)
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    tokens = []
    for seat, account in enumerate(accounts):
        claimed = client.post(f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=bearer(account))
        assert claimed.status_code == 201, claimed.get_json()
        tokens.append(claimed.get_json()["token"])
    return game_id, tokens


def _summary(client, game_id: str) -> dict:
    return client.get(f"/v1/games/{game_id}").get_json()


def _move(client, game_id: str, token: str, rng: random.Random) -> None:
    view = client.get(f"/v1/games/{game_id}/view", headers=bearer(token)).get_json()["view"]
    command = rng.choice(view["legal_moves"])
    moved = client.post(f"/v1/games/{game_id}/moves", json={"command": command}, headers=bearer(token))
    assert moved.status_code == 200, moved.get_json()


def _play_until(
    client, svc, game_id: str, tokens: dict[int, str], done, rng: random.Random
) -> dict[int, int]:
    """Random legal moves of the awaited seats that have a token (a bot seat's turns played as the
    bots queue would), until ``done(summary, decisions per seat)``; returns those decisions."""
    made = dict.fromkeys(tokens, 0)
    for _ in range(MOVES_AT_MOST):
        summary = _summary(client, game_id)
        if done(summary, made):
            return made
        assert summary["status"] != "finished", "the game ended before the wanted point"
        awaiting = [seat for seat in summary["awaiting"] if seat in tokens]
        if not awaiting:
            bot_turns.play_bot_turns(svc, game_id)
            continue
        seat = awaiting[0]
        _move(client, game_id, tokens[seat], rng)
        made[seat] += 1
    raise AssertionError("the game did not reach the wanted point")


def _finished(summary: dict, _made: dict) -> bool:
    return summary["status"] == "finished"


def _history(client, handle: str) -> list[dict]:
    answer = client.get(f"/v1/ratings/condottiere/players/{handle}")
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()["history"]


def test_two_accounts_creating_a_game_and_resigning_at_once_get_no_rated_game(client):
    """RL-X17 resignation before the minimum of play: the game ends, nobody's rating moves."""
    ann, bob = session(client, "Ann"), session(client, "Bob")
    for _ in range(3):
        game_id, tokens = _game(client, [ann, bob])
        resigned = client.post(f"/v1/games/{game_id}/resign", headers=bearer(tokens[1]))
        assert resigned.status_code == 200, resigned.get_json()
        assert _summary(client, game_id)["status"] == "finished"
        table = client.get(f"/v1/games/{game_id}/ratings").get_json()
        assert table["rated"] is False
    board = client.get("/v1/ratings/condottiere").get_json()
    assert board["players"] == 0 and board["leaders"] == []
    assert _history(client, "Ann") == [] and _history(client, "Bob") == []


def test_a_game_with_the_minimum_of_play_then_a_resignation_is_rated(client, svc):
    """The minimum is a minimum, not a wall: after five decisions each, an RL-X17 resignation rates."""
    ann, bob = session(client, "Ann"), session(client, "Bob")
    game_id, tokens = _game(client, [ann, bob])
    rng = random.Random(4)
    enough = lambda summary, made: min(made.values()) >= MINIMUM and 1 in summary["awaiting"]  # noqa: E731
    _play_until(client, svc, game_id, dict(enumerate(tokens)), enough, rng)
    assert _summary(client, game_id)["status"] == "active"
    assert client.post(f"/v1/games/{game_id}/resign", headers=bearer(tokens[1])).status_code == 200
    assert client.get(f"/v1/games/{game_id}/ratings").get_json()["rated"] is True
    (entry,) = _history(client, "Bob")
    assert entry["game_id"] == game_id and entry["after"]["mu"] < entry["before"]["mu"]


def test_idling_until_a_bot_takes_the_seat_is_last_place_and_the_ratings_move(client, svc):
    """RL-X19: the idle seat times out once too often and is handed to the random bot; whatever
    the bot does after, the seat that left is last, and both ratings move."""
    ann, bob = session(client, "Ann"), session(client, "Bob")
    game_id, tokens = _game(client, [ann, bob], clock={"move_seconds": 600, "timeouts_to_bot": 1})
    rng = random.Random(7)
    # Both play their minimum, then Bob is awaited (alone) and stops answering.
    ready = lambda summary, made: min(made.values()) >= MINIMUM and summary["awaiting"] == [1]  # noqa: E731
    _play_until(client, svc, game_id, dict(enumerate(tokens)), ready, rng)
    deadline = _summary(client, game_id)["clock"]["seats"][1]["deadline_ms"]
    assert [t["seat"] for t in enforce_due(svc, now_ms=deadline)] == [1]
    summary = _summary(client, game_id)
    assert summary["seats"][1]["kind"] == "bot"
    _play_until(client, svc, game_id, {0: tokens[0]}, _finished, rng)

    table = client.get(f"/v1/games/{game_id}/ratings").get_json()
    assert table["rated"] is True
    (bob_entry,) = _history(client, "Bob")
    (ann_entry,) = _history(client, "Ann")
    assert bob_entry["rank"] > ann_entry["rank"]  # last place, even if the bot won the seat's battles
    assert bob_entry["after"]["mu"] < bob_entry["before"]["mu"]
    assert ann_entry["after"]["mu"] > ann_entry["before"]["mu"]
    assert ann_entry["after"]["games"] == bob_entry["after"]["games"] == 1


def test_deleting_the_account_mid_game_is_last_place_for_that_seat_and_the_others_are_still_rated(
    client, svc
):
    """The deleted account's seat goes to the random bot (the game goes on for Ann) and counts as
    last; Ann's rating moves against a stand-in shown as nobody (the account is gone)."""
    ann, bob = session(client, "Ann"), session(client, "Bob")
    game_id, tokens = _game(client, [ann, bob])
    rng = random.Random(11)
    enough = lambda summary, made: min(made.values()) >= MINIMUM and summary["status"] == "active"  # noqa: E731
    _play_until(client, svc, game_id, dict(enumerate(tokens)), enough, rng)
    assert client.delete("/v1/me", json={"password": "correct horse"}, headers=bearer(bob)).status_code == 204
    summary = _summary(client, game_id)
    assert summary["seats"][1]["kind"] == "bot" and summary["status"] == "active"
    _play_until(client, svc, game_id, {0: tokens[0]}, _finished, rng)

    assert client.get(f"/v1/games/{game_id}/ratings").get_json()["rated"] is True
    (ann_entry,) = _history(client, "Ann")
    (against,) = ann_entry["against"]
    assert against["player"] is None and against["rank"] > ann_entry["rank"]
    assert ann_entry["after"]["mu"] > ann_entry["before"]["mu"] and ann_entry["after"]["games"] == 1
    board = client.get("/v1/ratings/condottiere").get_json()
    assert [row["player"] for row in board["leaders"]] == ["Ann"]  # the stand-in is rated nowhere
