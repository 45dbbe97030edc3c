"""Tournaments played for real over HTTP: each round's tables are started games with every seat
bound to its entrant (an account, a bot account, or a server bot the organiser entered), their
results come from the finished games, the next round starts itself, and the standings equal a
recount from the games. Entrants are told on /v1/me/stream (``tournament_round_started`` with their
own table, ``tournament_finished`` with the standings). A withdrawn entrant is never paired again;
a seat whose player does not move loses by its clock (RL-X19: handed to the bot, last place)."""

from __future__ import annotations

import io
import json
import random
import time
from collections import Counter

import pytest

from cli.main import main as cli_main
from replays import fairness
from replays.ratings import left_seats, ranks_of
from service import bot_turns
from service.tournament.rounds import round_key
from service.tournament.scoring import TableResult, standings
from tests import app_fixtures
from tests.api.playing import play_to_the_end
from tests.api.stream_reading import events
from tests.api.test_accounts import FAST_HASH, bearer, session


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH)


def _ids(view: dict) -> dict[str, str]:
    """Handle -> entrant id (an account's id is shown only as a tournament's entrant)."""
    return {e["name"]: e["account"] for e in view["entrants"] if not e["bot"]}


def _tournament(client, tid: str) -> dict:
    answer = client.get(f"/v1/tournaments/{tid}")
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def _play_round(client, svc, tid: str, tokens: dict[str, str], rng: random.Random, idle=()) -> dict:
    view = _tournament(client, tid)
    number = view["round"]
    for table in view["rounds"][number - 1]["tables"]:
        play_to_the_end(client, svc, table["game"], tokens, rng, set(idle))
    return _tournament(client, tid)


def _tournament_messages_until(messages, kind: str, bound: float = 60.0) -> list[tuple[str, dict]]:
    """The tournament messages of an account stream up to the first of ``kind`` (included), read
    with a bound that heartbeats keep checking."""
    started, told = time.monotonic(), []
    for message in messages:
        assert time.monotonic() - started < bound, f"no {kind} within {bound} s: {told}"
        if message is None or not message[0].startswith("tournament"):
            continue
        told.append((message[0], message[2]))
        if message[0] == kind:
            return told
    raise AssertionError(f"the stream ended before {kind}: {told}")


def _export(client, tid: str) -> list[dict]:
    answer = client.get(f"/v1/tournaments/{tid}/export")
    assert answer.status_code == 200 and answer.mimetype == "application/x-ndjson"
    return [json.loads(line) for line in answer.get_data(as_text=True).splitlines()]


def _recount(client, view: dict) -> list[tuple[str, float]]:
    """The standings recounted from the finished games themselves (their logs, over HTTP): each
    game's placing as the ratings read it (winners, then the others, a seat that left last)."""
    results = []
    for r in view["rounds"]:
        done = []
        for table in r["tables"]:
            game = client.get(f"/v1/games/{table['game']}").get_json()
            assert game["status"] == "finished"
            log = client.get(f"/v1/games/{table['game']}/events").get_json()["events"]
            players = table["players"]
            ranks = ranks_of(len(players), game["result"]["winners"], left_seats([e["event"] for e in log]))
            placing = tuple(
                tuple(players[s] for s in range(len(players)) if ranks[s] == rank)
                for rank in sorted(set(ranks))
            )
            done.append(TableResult(tuple(players), placing))
        results.append(done)
    return [
        (s.player, float(s.score))
        for s in standings({e["account"]: 1500.0 for e in view["entrants"]}, results)
    ]


def test_a_13_player_4_round_swiss_of_4_player_condottiere_runs_to_the_end(app, client, svc):
    """Tables of 4+3+3+3 every round; accounts and bot accounts move through the API, the
    organiser's server bots on the server; every table is a game bound to its entrants, each round
    starts itself when the last table ends, and the final standings equal a recount from the
    games. Each account hears of each round (its own table's game) and of the end."""
    rng = random.Random(13)
    org = session(client, "Org")
    made = client.post(
        "/v1/tournaments",
        json={"game": "condottiere", "table_size": 4, "rounds": 4, "title": "Thirteen"},
        headers=bearer(org),
    )
    assert made.status_code == 201, made.get_json()
    tid = made.get_json()["id"]
    tokens = {f"Player{i}": session(client, f"Player{i}") for i in range(3)}
    tokens.update({f"Botty{i}": session(client, f"Botty{i}", bot=True) for i in range(2)})
    for token in tokens.values():
        assert client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(token)).status_code == 200
    for _ in range(8):
        added = client.post(f"/v1/tournaments/{tid}/bots", json={"level": "random"}, headers=bearer(org))
        assert added.status_code == 200, added.get_json()
    ids = _ids(_tournament(client, tid))
    listener_token = tokens["Player0"]
    listener = ids["Player0"]
    stream = client.get("/v1/me/stream", headers=bearer(listener_token), buffered=False)
    messages = events(stream)
    assert next(m for m in messages if m is not None)[0] == "open_games"

    told: list[tuple[str, dict]] = []
    started = client.post(f"/v1/tournaments/{tid}/start", headers=bearer(org))
    assert started.status_code == 200, started.get_json()
    view = started.get_json()
    for number in range(1, 5):
        # Read as a client does, round by round: the feed keeps about its last 200 entries, and a
        # random game can give the listener a hundred turns, so a stream read only at the end may
        # find round 1's notice trimmed away.
        told += _tournament_messages_until(messages, "tournament_round_started")
        assert view["status"] == "running" and view["round"] == number
        tables = view["rounds"][number - 1]["tables"]
        assert sorted(len(t["players"]) for t in tables) == [3, 3, 3, 4]
        for table in tables:  # the table is a started game, its seats bound to its entrants
            game = client.get(f"/v1/games/{table['game']}").get_json()
            assert game["status"] in ("active", "finished") and len(game["seats"]) == len(table["players"])
            for seat, entrant in zip(game["seats"], table["players"], strict=True):
                if entrant in ids.values():
                    assert ids[seat["name"]] == entrant and seat["kind"] == "human"
                else:
                    assert seat["kind"] == "bot" and seat["bot"] == "random"
        view = _play_round(client, svc, tid, tokens, rng)
    assert view["status"] == "finished" and view["round"] == 4
    assert [(s["account"], s["score"]) for s in view["standings"]] == _recount(client, view)
    assert sum(s["score"] for s in view["standings"]) == pytest.approx(4 * 4 * 13)
    lines = _export(client, tid)
    assert [line["type"] for line in lines] == ["tournament", *["game"] * 16, "standings"]
    assert lines[-1]["standings"] == view["standings"]
    for line in lines[1:-1]:  # every game, whole (finished: its log is public), with its commitment
        table = view["rounds"][line["round"] - 1]["tables"][line["table"]]
        assert line["game_id"] == table["game"] and line["placing"] == table["placing"]
        assert line["game"]["status"] == "finished" and line["game"]["commitment"]
        assert line["events"][0]["event"]["config"]["seed"] is not None
        assert len(line["events"]) == line["game"]["version"]

    told += _tournament_messages_until(messages, "tournament_finished")
    stream.close()
    rounds = [data for kind, data in told if kind == "tournament_round_started"]
    assert [d["round"] for d in rounds] == [1, 2, 3, 4]
    for data in rounds:
        table = view["rounds"][data["round"] - 1]["tables"][data["table"]]
        assert data["game_id"] == table["game"] and table["players"][data["seat"]] == listener
    assert told[-1][0] == "tournament_finished"
    final = told[-1][1]["standings"]  # through Lua's JSON: 14 significant digits
    assert [s["account"] for s in final] == [s["account"] for s in view["standings"]]
    assert [s["score"] for s in final] == pytest.approx([s["score"] for s in view["standings"]])


def test_a_withdrawn_player_is_never_paired_again(app, client, svc):
    rng = random.Random(3)
    org = session(client, "Org")
    tid = client.post(
        "/v1/tournaments", json={"game": "condottiere", "table_size": 3, "rounds": 2}, headers=bearer(org)
    ).get_json()["id"]
    tokens = {f"P{i}": session(client, f"P{i}") for i in range(4)}
    for token in tokens.values():
        client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(token))
    for _ in range(2):
        client.post(f"/v1/tournaments/{tid}/bots", json={"level": "random"}, headers=bearer(org))
    view = client.post(f"/v1/tournaments/{tid}/start", headers=bearer(org)).get_json()
    running = _export(client, tid)[1]  # a running game's log as a spectator reads it: no seed
    assert running["game"]["status"] == "active" and running["events"][0]["event"]["config"]["seed"] is None
    leaver, leaver_token = _ids(view)["P0"], tokens["P0"]
    withdrawn = client.post(f"/v1/tournaments/{tid}/withdraw", headers=bearer(leaver_token))
    assert withdrawn.status_code == 200, withdrawn.get_json()
    view = _play_round(client, svc, tid, tokens, rng)  # the leaver still plays the round it was in
    assert view["round"] == 2
    second = view["rounds"][1]["tables"]
    assert leaver not in {p for t in second for p in t["players"]}
    assert sorted(len(t["players"]) for t in second) == [2, 3]  # 5 left at tables of 3: 3+2
    view = _play_round(client, svc, tid, tokens, rng)
    assert view["status"] == "finished"


def test_a_no_show_loses_by_the_clock_and_scores_last(app, client, svc):
    """RL-X19 in a tournament: the tournament's clock is its games' clock; an entrant who never
    moves times out, its seat goes to the bot (which finishes the game for it), and it takes the
    table's last place whatever the bot did."""
    rng = random.Random(5)
    org = session(client, "Org")
    made = client.post(
        "/v1/tournaments",
        json={
            "game": "condottiere",
            "table_size": 3,
            "rounds": 1,
            "clock": {"move_seconds": 600, "timeouts_to_bot": 1},
        },
        headers=bearer(org),
    )
    assert made.status_code == 201, made.get_json()
    tid = made.get_json()["id"]
    tokens = {f"P{i}": session(client, f"P{i}") for i in range(3)}
    for token in tokens.values():
        client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(token))
    view = client.post(f"/v1/tournaments/{tid}/start", headers=bearer(org)).get_json()
    (table,) = view["rounds"][0]["tables"]
    game = client.get(f"/v1/games/{table['game']}").get_json()
    assert game["clock"]["control"]["move_seconds"] == 600
    absent = table["players"][1]
    handle = {v: k for k, v in _ids(view).items()}[absent]
    view = _play_round(client, svc, tid, tokens, rng, idle={handle})
    assert view["status"] == "finished"
    game = client.get(f"/v1/games/{table['game']}").get_json()
    assert game["seats"][1]["kind"] == "bot"
    (placing,) = [t["placing"] for t in view["rounds"][0]["tables"]]
    assert placing[-1] == [absent]
    assert view["standings"][-1]["account"] == absent
    assert Counter(s["score"] for s in view["standings"])  # every entrant has a standing


def _bots_only(client, org: str, body: dict, bots: int) -> str:
    made = client.post("/v1/tournaments", json={"game": "condottiere", **body}, headers=bearer(org))
    assert made.status_code == 201, made.get_json()
    tid = made.get_json()["id"]
    for _ in range(bots):
        assert (
            client.post(
                f"/v1/tournaments/{tid}/bots", json={"level": "random"}, headers=bearer(org)
            ).status_code
            == 200
        )
    started = client.post(f"/v1/tournaments/{tid}/start", headers=bearer(org))
    assert started.status_code == 200, started.get_json()
    return tid


def test_a_duplicate_round_deals_every_table_from_one_committed_seed(app, client, svc, tmp_path):
    """Every table of a duplicate round plays from the round's one seed: the round's commitment is
    in every table's game, the seed stays hidden while they run, and once they end every table's
    log shows the same seed, which opens the round's commitment; ``condottiere verify-fair`` checks
    it offline from the tournament's export."""
    org = session(client, "Org")
    tid = _bots_only(client, org, {"table_size": 3, "rounds": 1, "duplicate": True}, 6)
    view = _tournament(client, tid)
    commitment = view["rounds"][0]["commitment"]
    assert commitment and commitment["scheme"]
    games = [t["game"] for t in view["rounds"][0]["tables"]]
    assert len(games) == 2
    assert [json.loads(svc.store.meta(g)["round_commitment"]) for g in games] == [commitment] * 2
    seed = json.loads(svc.store.redis.get(f"game:{{g:{games[0]}}}:config"))["seed"]
    answer = client.get(f"/v1/tournaments/{tid}/export").get_data(as_text=True)
    assert str(seed) not in answer and str(seed) not in json.dumps(view)  # hidden while they run
    for game_id in games:
        bot_turns.play_bot_turns(svc, game_id)
    seeds = []
    for game_id in games:
        log = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
        seeds.append(log[0]["event"]["config"]["seed"])
    assert seeds == [seed, seed]
    assert fairness.opens(commitment, seed, round_key(tid, 1))
    # Offline, from the export alone: every table's game fair, the round's tables one commitment.
    path = tmp_path / "tournament.ndjson"
    path.write_bytes(client.get(f"/v1/tournaments/{tid}/export").get_data())
    out = io.StringIO()
    assert cli_main(["verify-fair", str(path)], out=out) == 0, out.getvalue()
    assert "Duplicate round 1 (2 tables): fair" in out.getvalue()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[2]["events"][0]["event"]["config"]["seed"] = 1  # one table dealt from another seed
    path.write_text("\n".join(json.dumps(line) for line in lines))
    out = io.StringIO()
    assert cli_main(["verify-fair", str(path)], out=out) == 1
    assert "different seeds" in out.getvalue()
    view = _tournament(client, tid)
    assert view["status"] == "finished"
    assert sum(s["score"] for s in view["standings"]) == pytest.approx(2 * 13)


def test_an_elimination_runs_to_its_final_table(app, client, svc):
    """Nine at tables of 3, the best of each table advances: round 1 is three tables, round 2 the
    final of the three winners, then the tournament is finished. Its standings rank by the round
    reached: the final's placing first, then those out in round 1 by their place at their table
    (ties of round and place by points), each standing naming its ``round`` and ``place``."""
    org = session(client, "Org")
    tid = _bots_only(client, org, {"table_size": 3, "format": "elimination", "advance": 1}, 9)
    for _ in range(2):
        view = _tournament(client, tid)
        for table in view["rounds"][-1]["tables"]:
            bot_turns.play_bot_turns(svc, table["game"])
    view = _tournament(client, tid)
    assert view["status"] == "finished" and len(view["rounds"]) == 2
    first, final = view["rounds"]
    assert len(first["tables"]) == 3 and len(final["tables"]) == 1
    winners = {t["placing"][0][0] if len(t["placing"][0]) == 1 else None for t in first["tables"]}
    if None not in winners:  # no tie for first at any table: the winners are the final
        assert set(final["tables"][0]["players"]) == winners
    reach = {}
    for number, r in enumerate(view["rounds"], start=1):
        for table in r["tables"]:
            place = 1
            for tied in table["placing"]:
                reach.update({p: (number, place) for p in tied})
                place += len(tied)
    table = view["standings"]
    assert [(s["round"], s["place"]) for s in table] == [reach[s["account"]] for s in table]
    assert [(-s["round"], s["place"]) for s in table] == sorted((-s["round"], s["place"]) for s in table)
    assert {s["account"] for s in table[:3]} == set(final["tables"][0]["players"])
    for key in {(s["round"], s["place"]) for s in table}:
        scores = [s["score"] for s in table if (s["round"], s["place"]) == key]
        assert scores == sorted(scores, reverse=True)


def test_an_elimination_with_duplicate_rounds_deals_each_rounds_tables_one_seed(app, client, svc, tmp_path):
    """Duplicate is an option of either format: in an elimination every round's tables share that
    round's one commitment (round 1's three tables, then the final's own), and ``verify-fair``
    checks the whole tournament from its export."""
    org = session(client, "Org")
    tid = _bots_only(
        client, org, {"table_size": 3, "format": "elimination", "advance": 1, "duplicate": True}, 9
    )
    for _ in range(2):
        view = _tournament(client, tid)
        for table in view["rounds"][-1]["tables"]:
            bot_turns.play_bot_turns(svc, table["game"])
    view = _tournament(client, tid)
    assert view["status"] == "finished" and [len(r["tables"]) for r in view["rounds"]] == [3, 1]
    for number, r in enumerate(view["rounds"], start=1):
        games = [t["game"] for t in r["tables"]]
        assert [json.loads(svc.store.meta(g)["round_commitment"]) for g in games] == [r["commitment"]] * len(
            games
        )
        seeds = {
            client.get(f"/v1/games/{g}/events").get_json()["events"][0]["event"]["config"]["seed"]
            for g in games
        }
        assert len(seeds) == 1 and fairness.opens(r["commitment"], seeds.pop(), round_key(tid, number))
    assert view["rounds"][0]["commitment"] != view["rounds"][1]["commitment"]
    path = tmp_path / "tournament.ndjson"
    path.write_bytes(client.get(f"/v1/tournaments/{tid}/export").get_data())
    out = io.StringIO()
    assert cli_main(["verify-fair", str(path)], out=out) == 0, out.getvalue()
    assert "Duplicate round 1 (3 tables): fair" in out.getvalue()
