"""Committed randomness and replays from a seat (issue 34), over random games of both engines played
through the service: the commitment published at creation opens to the seed the finished log reveals
(RL-10 for Condottiere's shuffles, RIO-SETUP-4 and the dice for Rio de la Plata); the verifier
refuses a log with one shuffle or one die changed; it needs nothing but the exported file; and a
finished game replayed as a seat shows, at every version, the view that seat was served live."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from games import get_game
from games.base import fold
from replays import fairness
from tests.archive.played import exported_log, play_recorded

GAMES = [("condottiere", {"players": 3}), ("rio_de_la_plata", {"players": 3})]


@pytest.mark.parametrize("name, config", GAMES)
def test_rl_10_the_commitment_opens_to_the_revealed_seed_and_the_log_is_fair(svc, client, name, config):
    summary, _ = play_recorded(svc, name, config, random.Random(34))
    committed = summary["commitment"]
    assert committed["prearranged"] is False and len(committed["digest"]) == 64
    # Published before the first card: the summary of the open game does not show the seed.
    assert "seed" not in json.dumps(summary["config"]) or summary["config"].get("seed") is None
    doc = exported_log(svc, summary["id"])
    first = doc["events"][0]
    assert (
        first["commitment"] == committed == client.get(f"/v1/games/{summary['id']}").get_json()["commitment"]
    )
    seed = first["config"]["seed"]
    assert fairness.opens(committed, seed, summary["id"])
    assert not fairness.opens(committed, int(seed) + 1, summary["id"])
    report = fairness.verify_fair(doc)
    assert report["ok"], report
    assert report["random_events"] >= 1


def _steered(name: str, doc: dict, rng: random.Random) -> dict:
    """The log a server steering one draw would publish: one shuffle (two different cards swapped)
    or one die changed, and everything after it played on consistently from there, so that every
    event obeys the rules (the deals follow the steered deck)."""
    game = get_game(name)
    events = doc["events"]
    if name == "condottiere":
        index = next(i for i, e in enumerate(events) if e["type"] == "deck_shuffled")
        cards = list(events[index]["cards"])
        j = next(k for k in range(1, len(cards)) if cards[k] != cards[0])
        cards[0], cards[j] = cards[j], cards[0]
        altered = {**events[index], "cards": cards}
    else:
        index = next(i for i, e in enumerate(events) if e["type"] == "dice_rolled")
        dice = list(events[index]["dice"])
        dice[0] = dice[0] % 6 + 1
        altered = {**events[index], "dice": dice}
    out = [*events[:index], altered]
    state = fold(game, out)
    while not game.is_over(state):
        automatic = game.next_automatic_event(state)
        if automatic is not None:
            new = [automatic]
        else:
            seat = rng.choice(game.awaiting(state))
            new = game.decide(state, seat, rng.choice(game.legal_moves(state, seat)))
        state = fold(game, new, state)
        out += new
    return {**doc, "events": out, "version": len(out)}


@pytest.mark.parametrize("name, config", GAMES)
def test_the_verifier_refuses_a_log_with_one_shuffle_or_die_altered(svc, name, config):
    summary, _ = play_recorded(svc, name, config, random.Random(7))
    doc = exported_log(svc, summary["id"])
    assert fairness.verify_fair(doc)["ok"]
    steered = _steered(name, doc, random.Random(1))
    report = fairness.verify_fair(steered)
    assert not report["ok"]
    assert report["opens"]  # the seed still opens the commitment: the draw is what differs
    if name == "condottiere":
        # RL-10: the rules accept any order of the deck, only the seed tells the steered one apart
        assert report["log_error"] is None
        assert report["mismatch"]["event"]["type"] == "deck_shuffled"
    else:
        # Rio's rules replay the dice from the seed themselves; the verifier finds the die too
        assert report["log_error"] is not None or report["mismatch"] is not None
        assert report["mismatch"]["event"]["type"] == "dice_rolled"
    # a log that names another seed does not open the commitment
    events = [dict(e) for e in doc["events"]]
    events[0]["config"] = {**events[0]["config"], "seed": "12345678901234567890"}
    assert not fairness.verify_fair({**doc, "events": events})["opens"]


def test_a_prearranged_game_says_so_in_its_commitment(svc):
    summary = svc.create_game("condottiere", {"players": 2, "seed": 42})
    assert summary["commitment"]["prearranged"] is True
    assert fairness.opens(summary["commitment"], 42, summary["id"])
    assert not fairness.opens({**summary["commitment"], "prearranged": False}, 42, summary["id"])


def test_verify_fair_runs_from_the_exported_file_alone_with_no_server(svc, tmp_path: Path):
    summary, _ = play_recorded(svc, "condottiere", {"players": 2}, random.Random(3))
    doc = exported_log(svc, summary["id"])
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(doc))
    bad.write_text(json.dumps(_steered("condottiere", doc, random.Random(2))))
    # A server address nothing listens on: the command must not need one.
    env = {"CONDOTTIERE_SERVER": "http://127.0.0.1:9", "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "cli.main", "verify-fair"]
    cwd = Path(__file__).resolve().parents[2]
    ok = subprocess.run([*command, str(good)], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "fair" in ok.stdout
    refused = subprocess.run(
        [*command, str(bad)], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "deck_shuffled" in refused.stdout


@pytest.mark.parametrize("name, config", GAMES)
def test_a_finished_game_replayed_as_a_seat_shows_each_version_as_that_seat_saw_it(svc, client, name, config):
    summary, seen = play_recorded(svc, name, config, random.Random(11))
    game_id = summary["id"]
    versions = sorted({version for version, _ in seen})
    assert len(versions) > 20
    for version in versions:
        for seat in range(summary["seat_count"]):
            answer = client.get(f"/v1/games/{game_id}/replay?version={version}&as={seat}")
            assert answer.status_code == 200, answer.get_json()
            body = answer.get_json()
            assert body["viewer"] == f"seat {seat}" and body["version"] == version
            assert body["state"] == seen[(version, seat)], (version, seat)
    # The full replay is still the complete one (the seat's view is not it).
    assert client.get(f"/v1/games/{game_id}/replay?version={versions[-1]}").get_json()["viewer"] == "full"


def test_a_running_game_cannot_be_replayed_as_a_seat(svc, client):
    summary = svc.create_game("condottiere", {"players": 2})
    for s in range(2):
        svc.claim_seat(summary["id"], name=f"P{s}")
    answer = client.get(f"/v1/games/{summary['id']}/replay?version=3&as=0")
    assert answer.status_code == 409 and answer.get_json()["code"] == "GAME_NOT_FINISHED"
    assert "hand" not in json.dumps(answer.get_json())


def test_verify_fair_reads_a_bulk_export_and_names_the_unfair_log(svc, tmp_path: Path):
    from cli.main import main

    fair = exported_log(svc, play_recorded(svc, "condottiere", {"players": 2}, random.Random(5))[0]["id"])
    steered = _steered("condottiere", fair, random.Random(6))
    out = io.StringIO()
    path = tmp_path / "bulk.ndjson"
    path.write_text(json.dumps(fair) + "\n" + json.dumps(steered) + "\n")
    assert main(["verify-fair", str(path)], out=out) == 1
    first, second = out.getvalue().splitlines()
    assert first.endswith("are the ones the seed gives.") and ": fair." in first
    assert "NOT fair" in second and "deck_shuffled" in second


def test_while_the_game_runs_its_first_event_shows_the_commitment_and_not_the_seed(svc, client):
    summary = svc.create_game("condottiere", {"players": 2})
    tokens = [svc.claim_seat(summary["id"], name=f"P{s}").token for s in range(2)]
    for headers in ({}, *({"Authorization": f"Bearer {t}"} for t in tokens)):
        page = client.get(f"/v1/games/{summary['id']}/events?after=0&limit=1", headers=headers).get_json()
        first = page["events"][0]["event"]
        assert first["commitment"] == summary["commitment"]
        assert first["config"]["seed"] is None
    # the seat's view and the summary carry no seed either
    view = client.get(f"/v1/games/{summary['id']}/view", headers={"Authorization": f"Bearer {tokens[0]}"})
    full_seed = svc.store.full_config(summary["id"])["seed"]
    assert str(full_seed) not in view.get_data(as_text=True)
    assert str(full_seed) not in client.get(f"/v1/games/{summary['id']}").get_data(as_text=True)
