"""Who moves first at a tournament's tables, and a withdrawn entrant's running game, over HTTP.

A Swiss balances seat 0 over the rounds; where the game lets a configuration say who starts
(Condottiere's ``first_condottiere``, rule SET-2) each table's game starts with seat 0, and the
tournament says so (``first_seat_starts``). Where the game draws its first player by rule (Rio de
la Plata's turn order, RIO-SETUP-4) seat 0 is only a seat, and the tournament says that too.

Withdrawing mid-round hands the entrant's seat at its running table to the bot at once, as a
no-show's clock does: its token's moves are refused, the entrant places last at that table, and the
next round does not pair it."""

from __future__ import annotations

import random

import pytest

from tests import app_fixtures
from tests.api.playing import play_to_the_end
from tests.api.test_accounts import FAST_HASH, bearer, session


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH)


def _create(client, org: str, body: dict, bots: int) -> str:
    made = client.post("/v1/tournaments", json=body, headers=bearer(org))
    assert made.status_code == 201, made.get_json()
    tid = made.get_json()["id"]
    for _ in range(bots):
        added = client.post(f"/v1/tournaments/{tid}/bots", json={"level": "random"}, headers=bearer(org))
        assert added.status_code == 200, added.get_json()
    return tid


def _view(client, tid: str) -> dict:
    answer = client.get(f"/v1/tournaments/{tid}")
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def _log(client, game_id: str) -> list[dict]:
    return [e["event"] for e in client.get(f"/v1/games/{game_id}/events").get_json()["events"]]


def _first_condottiere(client, game_id: str) -> dict:
    return next(e for e in _log(client, game_id) if e["type"] == "first_condottiere_chosen")


def test_set_2_a_swiss_tables_game_starts_with_the_seat_the_pairing_put_first(app, client, svc):
    """SET-2: every table of every round names seat 0 the first Condottiere, not drawn."""
    org = session(client, "Org")
    tid = _create(client, org, {"game": "condottiere", "table_size": 3, "rounds": 2}, bots=6)
    view = client.post(f"/v1/tournaments/{tid}/start", headers=bearer(org)).get_json()
    rng = random.Random(7)
    for number in (1, 2):
        assert view["round"] == number
        tables = view["rounds"][number - 1]["tables"]
        assert len(tables) == 2
        for table in tables:
            first = _first_condottiere(client, table["game"])
            assert (first["seat"], first["drawn"]) == (0, False)
            play_to_the_end(client, svc, table["game"], {}, rng)
        view = _view(client, tid)
    assert view["status"] == "finished"
    assert view["first_seat_starts"] is True  # the page may call seat 0 the first player


def test_set_2_the_organisers_own_first_condottiere_stands(app, client, svc):
    """A configuration that already names the first Condottiere keeps it: seat 0 is then not the
    first player, and the tournament does not say it is."""
    org = session(client, "Org")
    body = {"game": "condottiere", "table_size": 3, "rounds": 1, "config": {"first_condottiere": 2}}
    tid = _create(client, org, body, bots=3)
    view = client.post(f"/v1/tournaments/{tid}/start", headers=bearer(org)).get_json()
    assert view["first_seat_starts"] is False
    (table,) = view["rounds"][0]["tables"]
    first = _first_condottiere(client, table["game"])
    assert (first["seat"], first["drawn"]) == (2, False)


def test_rio_setup_4_a_rio_tournament_does_not_fix_its_first_seat(app, client, svc):
    """Rio de la Plata draws its turn order (RIO-SETUP-4): its tables are started as the game's rules
    say, and the tournament tells the page seat 0 is not the first player."""
    org = session(client, "Org")
    tid = _create(client, org, {"game": "rio_de_la_plata", "table_size": 3, "rounds": 1}, bots=3)
    listed = client.get("/v1/tournaments").get_json()["tournaments"]
    assert [t["first_seat_starts"] for t in listed if t["id"] == tid] == [False]
    view = client.post(f"/v1/tournaments/{tid}/start", headers=bearer(org)).get_json()
    assert view["first_seat_starts"] is False
    (table,) = view["rounds"][0]["tables"]
    assert any(e["type"] == "order_drawn" for e in _log(client, table["game"]))


def test_withdrawing_mid_round_hands_the_seat_to_the_bot_refuses_its_moves_and_places_it_last(
    app, client, svc
):
    """A withdrawal while the entrant's table plays hands its seat to the bot at once (as a
    no-show's clock does): a move with the account's token is refused with a stable code and
    changes nothing, the seat plays as a bot, the entrant places last there, and round 2 does not
    pair it."""
    rng = random.Random(11)
    org = session(client, "Org")
    tid = _create(client, org, {"game": "condottiere", "table_size": 3, "rounds": 2}, bots=3)
    tokens = {f"P{i}": session(client, f"P{i}") for i in range(3)}
    for token in tokens.values():
        assert client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(token)).status_code == 200
    view = client.post(f"/v1/tournaments/{tid}/start", headers=bearer(org)).get_json()
    ids = {e["name"]: e["account"] for e in view["entrants"] if not e["bot"]}
    leaver = ids["P0"]
    (table,) = [t for t in view["rounds"][0]["tables"] if leaver in t["players"]]
    game_id, leaver_seat = table["game"], table["players"].index(leaver)
    moves = client.get(f"/v1/games/{game_id}/view", headers=bearer(tokens["P0"])).get_json()["view"]
    withdrawn = client.post(f"/v1/tournaments/{tid}/withdraw", headers=bearer(tokens["P0"]))
    assert withdrawn.status_code == 200, withdrawn.get_json()

    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "active"
    assert {s["seat"]: s for s in summary["seats"]}[leaver_seat]["kind"] == "bot"
    events = _log(client, game_id)
    assert [e["seat"] for e in events if e["type"] == "seat_handed_to_bot"] == [leaver_seat]
    version = summary["version"]
    moved = client.post(
        f"/v1/games/{game_id}/moves",
        json={"command": (moves.get("legal_moves") or [{"type": "pass"}])[0]},
        headers=bearer(tokens["P0"]),
    )
    assert moved.status_code == 422, moved.get_json()
    assert moved.get_json()["code"] == "SEAT_HANDED_TO_BOT"
    assert client.get(f"/v1/games/{game_id}").get_json()["version"] == version

    for t in view["rounds"][0]["tables"]:
        play_to_the_end(client, svc, t["game"], tokens, rng)
    view = _view(client, tid)
    (done,) = [t for t in view["rounds"][0]["tables"] if leaver in t["players"]]
    assert done["placing"][-1] == [leaver]  # last, whatever its bot did
    assert view["round"] == 2
    assert leaver not in {p for t in view["rounds"][1]["tables"] for p in t["players"]}
