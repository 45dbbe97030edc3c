"""Rio de la Plata through the platform: the archive's generic replays, statistics and exports, and
a whole 4-player game over the HTTP API (created, played, archived, verified, exported)."""

from __future__ import annotations

import random

from bots import levels
from games import game_names, get_game
from replays import core, export, stats

from .helpers import random_game

GAME = get_game("rio_de_la_plata")


def test_registered_with_a_random_bot():
    assert "rio_de_la_plata" in game_names()
    assert GAME.name == "rio_de_la_plata"
    assert levels("rio_de_la_plata")[0] == "random"


def test_archive_handles_a_complete_game():
    """Chapters, statistics facts and the JSON/Markdown/HTML exports work on a Rio log through the
    generic fallbacks, and the exported log passes import validation."""
    state, events = random_game(3, seed=21)
    result = GAME.result(state)
    names = ["Ann", "Bob", "Cy"]
    chapters = core.chapters(GAME, events)
    assert [c["year"] for c in chapters] == list(range(1580, 1600))
    assert chapters[0]["start"] == 2 and chapters[-1]["end"] == len(events)
    assert all(a["end"] == b["start"] for a, b in zip(chapters, chapters[1:], strict=False))
    battles = sum(1 for e in events if e["type"] == "battle_started")
    assert sum(1 for c in chapters if c["battle"]) == battles
    facts = stats.game_facts(GAME, events)
    assert sorted(facts["winners"]) == sorted(result["winners"])
    assert facts["chapters"] == 20
    assert facts["counters"]["buildings"] == {
        b: sum(1 for e in events if e["type"] == "built" and e["building"] == b)
        for b in {e["building"] for e in events if e["type"] == "built"}
    }
    assert sum(t["battles_led"] for t in facts["seat_totals"]) == battles
    for seat in range(3):  # VP by source (the Rio facts of the archive hook) add up to the final VP
        assert sum(facts["seat_counters"][seat]["vp_by_source"].values()) == result["vp"][seat]
    doc = export.annotated_history(GAME, events, players=names, finished=True, game_id="g", result=result)
    assert len(doc["annotations"]) == len(events) and all(doc["annotations"])
    page = export.to_html(GAME, doc)
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    assert page.count('<svg class="rio-city"') >= 20  # the city grid at the end of each round
    assert "Ann (seat 0)" in page
    text = export.to_markdown(GAME, doc)
    assert text.count("| player | VP |") >= 20
    checked = export.validate_import(
        export.export_log(GAME, events, players=names, finished=True, result=result)
    )
    assert checked["result"]["winners"] == result["winners"]


def _follow(client, response, run_jobs):
    assert response.status_code == 202, response.get_json()
    location = response.headers["Location"]
    run_jobs()
    job = client.get(location).get_json()
    assert job["status"] == "finished", job
    result = client.get(job["result"])
    assert result.status_code == 200
    return result


def test_a_whole_four_player_game_over_the_http_api(client, run_jobs):
    """Create with ``"game": "rio_de_la_plata"``, claim 4 seats, play random legal moves from each
    seat's view until the end, then find it in the archive, verify it and export it."""
    created = client.post("/v1/games", json={"game": "rio_de_la_plata", "config": {"players": 4, "seed": 5}})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    assert "seed" not in created.get_json()["config"]
    tokens = []
    for name in ("Ann", "Bob", "Cy", "Di"):
        claimed = client.post(f"/v1/games/{game_id}/seats", json={"name": name})
        assert claimed.status_code == 201, claimed.get_json()
        tokens.append(claimed.get_json()["token"])
    rng = random.Random(5)
    spectator = client.get(f"/v1/games/{game_id}/view").get_json()
    assert "seed" not in spectator["view"]["config"] and "legal_moves" not in spectator["view"]
    awaiting = spectator["view"]["awaiting"]
    moves = 0
    while awaiting:
        seat = awaiting[0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        mine = client.get(f"/v1/games/{game_id}/view", headers=auth).get_json()
        command = rng.choice(mine["view"]["legal_moves"])
        answer = client.post(f"/v1/games/{game_id}/moves", json={"command": command}, headers=auth)
        assert answer.status_code == 200, answer.get_json()
        awaiting = answer.get_json()["view"]["view"]["awaiting"]
        moves += 1
        assert moves < 20_000
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "finished" and summary["result"]["winners"]
    archive = client.get("/v1/archive?game=rio_de_la_plata").get_json()
    assert [g["id"] for g in archive["games"]] == [game_id]
    report = _follow(client, client.post(f"/v1/games/{game_id}/verify"), run_jobs).get_json()
    assert report["ok"] is True and report["snapshot"]["matches"] is True
    page = _follow(client, client.post(f"/v1/games/{game_id}/exports", json={"format": "html"}), run_jobs)
    assert page.get_data(as_text=True).startswith("<!DOCTYPE html>")
    md = _follow(client, client.post(f"/v1/games/{game_id}/exports", json={"format": "markdown"}), run_jobs)
    assert "Ann" in md.get_data(as_text=True)
    log = _follow(client, client.post(f"/v1/games/{game_id}/exports", json={"format": "log"}), run_jobs)
    assert GAME.verify_log(log.get_json()["events"]) is None
    replay = client.get(f"/v1/games/{game_id}/replay?version=300")
    assert replay.status_code == 200 and replay.get_json()["state"]["config"]["players"] == 4
    facts = _get_job(client, f"/v1/games/{game_id}/stats", run_jobs)
    assert "vp_by_source" in str(facts)
    overall = _get_job(client, "/v1/stats/global?game=rio_de_la_plata", run_jobs)
    assert overall


def _get_job(client, url, run_jobs):
    response = client.get(url)
    if response.status_code == 202:
        run_jobs()
        response = client.get(url)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_heuristic_bot_plays_legal_games_and_avoids_character_penalties():
    """The heuristic bot (``BOTS["heuristic"]``) plays whole games choosing only listed moves
    (RIO-CHAR-4: it leaves characters alone, so it never pays the penalty) and builds."""
    from cli.simulate import simulate

    records = simulate("rio_de_la_plata", {}, ["heuristic", "random", "random"], 2, seed=3, keep_events=True)
    assert len(records) == 2
    for record in records:
        seat = record.levels.index("heuristic")
        claims = [e for e in record.events if e["type"] == "claimed" and e["seat"] == seat]
        assert not claims  # it never even places on a character it could not pay for
        assert any(e["type"] == "built" and e["seat"] == seat for e in record.events)
    assert "heuristic" in levels("rio_de_la_plata")


def test_a_game_created_without_a_seed_takes_the_servers_128_bit_seed(client):
    """The server draws a 128-bit seed, sent as a decimal string (RL-10's form, shared by every
    engine through games.base.normalise_seed): a Rio game created without one starts, and its seed
    stays secret while it runs."""
    created = client.post("/v1/games", json={"game": "rio_de_la_plata", "config": {"players": 3}})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    for name in ("Ann", "Bob", "Cid"):
        assert client.post(f"/v1/games/{game_id}/seats", json={"name": name}).status_code == 201
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "active" and "seed" not in summary["config"]
    view = client.get(f"/v1/games/{game_id}/view").get_json()["view"]
    assert "seed" not in view["config"]
    too_big = client.post("/v1/games", json={"game": "rio_de_la_plata", "config": {"players": 3, "seed": -1}})
    assert too_big.status_code == 422 and too_big.get_json()["code"] == "INVALID_SEED"


def test_a_seat_moves_to_another_device_mid_game_and_plays_on(client):
    """A device link's redemption rotates the seat's token (``seat_token_rotated`` in the log). Rio's
    engine folds that record as nothing (it answered 500 before), the new token plays and the old
    one is refused."""
    created = client.post("/v1/games", json={"game": "rio_de_la_plata", "config": {"players": 3, "seed": 9}})
    game_id = created.get_json()["id"]
    tokens = [client.post(f"/v1/games/{game_id}/seats", json={"name": n}).get_json()["token"] for n in "ABC"]
    rng = random.Random(9)

    def play_one() -> None:
        seat = client.get(f"/v1/games/{game_id}/view").get_json()["view"]["awaiting"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        command = rng.choice(
            client.get(f"/v1/games/{game_id}/view", headers=auth).get_json()["view"]["legal_moves"]
        )
        answer = client.post(f"/v1/games/{game_id}/moves", json={"command": command}, headers=auth)
        assert answer.status_code == 200, answer.get_json()

    for _ in range(5):
        play_one()
    old = tokens[1]
    link = client.post(f"/v1/games/{game_id}/device-links", headers={"Authorization": f"Bearer {old}"})
    assert link.status_code == 201, link.get_json()
    redeemed = client.post(f"/v1/games/{game_id}/device-links/redeem", json={"code": link.get_json()["code"]})
    assert redeemed.status_code == 200, redeemed.get_json()
    tokens[1] = redeemed.get_json()["token"]
    mine = client.get(f"/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {tokens[1]}"})
    assert mine.status_code == 200 and mine.get_json()["view"]["seat"] == 1
    stale = client.get(f"/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {old}"})
    assert stale.status_code == 401
    for _ in range(30):
        play_one()
    events = [e["event"] for e in client.get(f"/v1/games/{game_id}/events?limit=500").get_json()["events"]]
    rotated = events.index({"type": "seat_token_rotated", "v": 1, "seat": 1})
    assert len(events) - rotated > 30  # the game went on after it (the engine's log check: test_trade)
