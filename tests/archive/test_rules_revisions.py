"""Rules revisions (games.base): a log verifies, replays, exports, imports and counts under the
revision it was recorded under, not today's rules. The logs in revision_logs/ were recorded by the
code of revision 1 (see its README): Condottiere's before RL-11/RL-12, Rio de la Plata's before
issue 28 (RIO-CHAR-5, RIO-RL-58, RIO-RL-71)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import orjson
import pytest

from games import get_game
from games.base import UNREVISED, ConfigError, configure_recorded, fold, log_revision
from replays import core
from replays.export import ImportRefused, export_log, to_markdown, validate_import
from replays.stats import game_facts

DATA = Path(__file__).parent / "revision_logs"
LOGS = {path.stem: path for path in sorted(DATA.glob("*.json"))}


def _load(name):
    return json.loads(LOGS[name].read_text())


def _digest(state_json, keys):
    kept = {key: state_json[key] for key in keys}
    return hashlib.sha256(orjson.dumps(kept, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _states(game, events, keys):
    """The digest of the state after every event, as the recording code computed it (fields added
    to the state since are left out: ``keys`` are the recording code's)."""
    out, state = [], None
    for event in events:
        state = game.evolve(state, event)
        out.append(_digest(orjson.loads(orjson.dumps(game.state_to_json(state))), keys))
    return out


def _under(events, revision):
    first = dict(events[0], config=dict(events[0]["config"], revision=revision))
    return [first, *events[1:]]


def test_the_data_covers_each_engine():
    assert {_load(name)["game"] for name in LOGS} == {"condottiere", "rio_de_la_plata"}


@pytest.mark.parametrize("name", sorted(LOGS))
def test_a_log_recorded_before_revisions_is_revision_1_and_verifies(name):
    """The first event's configuration names no revision: revision 1. It verifies today."""
    data = _load(name)
    game = get_game(data["game"])
    events = data["events"]
    assert "revision" not in events[0]["config"] and log_revision(events[0]["config"]) == UNREVISED
    assert game.verify_log(events) is None
    assert configure_recorded(game, events[0]["config"])["revision"] == UNREVISED


@pytest.mark.parametrize("name", sorted(LOGS))
def test_a_log_of_revision_1_replays_to_the_states_its_code_recorded(name):
    data = _load(name)
    game = get_game(data["game"])
    assert _states(game, data["events"], data["state_keys"]) == data["state_sha256"]
    assert game.result(fold(game, data["events"])) == data["result"]


@pytest.mark.parametrize("name", sorted(LOGS))
def test_the_newest_rules_would_read_the_log_differently(name):
    """The data exercises a change (so the two tests above could fail): read under the engine's
    newest revision, the log is refused or folds to other states."""
    data = _load(name)
    game = get_game(data["game"])
    newest = _under(data["events"], game.rules_revision)
    assert game.rules_revision > UNREVISED
    refused = game.verify_log(newest)
    differs = _states(game, newest, data["state_keys"]) != data["state_sha256"]
    assert refused is not None or differs
    if data["game"] == "condottiere":  # RL-12: today every seat holding cards is asked
        assert refused is not None and refused.event["type"] == "hand_discard_offered"
    else:  # RIO-CHAR-5: today the Shipowner gets no share of the launch in phase A of 1581
        assert refused is None and differs


@pytest.mark.parametrize("name", sorted(LOGS))
def test_verify_export_import_and_statistics_keep_the_revision(name):
    """replays.core.verify, the exchange document (``rules_revision``), its Markdown, the import
    check (the stored configuration names revision 1) and the statistics facts."""
    data = _load(name)
    game = get_game(data["game"])
    events = data["events"]
    state = fold(game, events)
    report = core.verify(game, events, {"version": len(events), "state": game.state_to_json(state)})
    assert report["ok"], report
    doc = export_log(game, events, players=[None] * game.seat_count(events[0]["config"]), finished=True)
    assert doc["rules_revision"] == UNREVISED
    assert "**Rules revision:** 1" in to_markdown(game, dict(doc, chapters=[], annotations=[]))
    checked = validate_import(orjson.loads(orjson.dumps(doc)))
    assert checked["config"]["revision"] == UNREVISED
    assert game.result(checked["state"]) == data["result"]
    with pytest.raises(ImportRefused) as refused:
        validate_import(dict(doc, rules_revision=game.rules_revision))
    assert refused.value.code == "REVISION_MISMATCH"
    facts = game_facts(game, events)
    assert sorted(facts["winners"]) == sorted(data["result"]["winners"])


@pytest.mark.parametrize("game_name", ["condottiere", "rio_de_la_plata"])
def test_new_games_record_the_newest_revision_and_may_not_choose_another(game_name):
    """A new game's configuration (and so its first event) records the engine's revision; a
    configuration naming an older one is refused for a new game (an older revision may show what a
    newer one hides: Condottiere's hand discard before RL-12) but kept for a recorded log; a revision
    the engine does not know is refused either way."""
    game = get_game(game_name)
    raw = {"players": 3, "seed": 1}
    config = game.configure(raw)
    assert config["revision"] == game.rules_revision
    assert game.start(config)[0]["config"]["revision"] == game.rules_revision
    with pytest.raises(ConfigError) as refused:
        game.configure(dict(raw, revision=UNREVISED))
    assert refused.value.code == "UNSUPPORTED_RULES_REVISION"
    assert configure_recorded(game, dict(raw, revision=UNREVISED))["revision"] == UNREVISED
    for unknown in (0, game.rules_revision + 1, "2", True):
        with pytest.raises(ConfigError) as refused:
            configure_recorded(game, dict(raw, revision=unknown))
        assert refused.value.code == "UNSUPPORTED_RULES_REVISION"


def test_an_import_of_an_unknown_revision_is_refused_with_the_revision_named():
    data = _load("condottiere-r1-rl12")
    game = get_game("condottiere")
    events = _under(data["events"], 99)
    doc = export_log(game, events, players=[None, None, None], finished=True)
    with pytest.raises(ImportRefused) as refused:
        validate_import(doc)
    assert refused.value.code == "UNSUPPORTED_RULES_REVISION" and "99" in refused.value.message
    error = game.verify_log(events)
    assert error is not None and error.index == 0 and "99" in error.message


# -- through the API: the service carries the revision without knowing it -----------------------------


def test_api_a_new_game_states_its_revision_and_may_not_ask_for_an_older_one(client):
    created = client.post("/v1/games", json={"game": "condottiere", "config": {"players": 2}})
    assert created.status_code == 201, created.get_json()
    assert created.get_json()["config"]["revision"] == get_game("condottiere").rules_revision
    refused = client.post("/v1/games", json={"game": "condottiere", "config": {"players": 2, "revision": 1}})
    assert refused.status_code in (400, 422), refused.get_json()
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert refused.get_json()["code"] == "UNSUPPORTED_RULES_REVISION"


@pytest.mark.parametrize("name", sorted(LOGS))
def test_api_an_imported_log_of_revision_1_is_archived_verified_and_replayed_under_it(client, run_jobs, name):
    """The imported game's summary states revision 1 (its configuration, as the service stores any
    configuration key the engine adds), the verify job passes and the replay serves it."""
    from tests.archive.test_api_archive import follow

    data = _load(name)
    game = get_game(data["game"])
    players = [f"P{seat}" for seat in range(game.seat_count(data["events"][0]["config"]))]
    doc = export_log(game, data["events"], players=players, finished=True, result=data["result"])
    _, result = follow(client, client.post("/v1/archive/import", json=doc), run_jobs)
    game_id = result.get_json()["id"]
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["config"]["revision"] == UNREVISED
    _, report = follow(client, client.post(f"/v1/games/{game_id}/verify"), run_jobs)
    assert report.get_json()["ok"] is True, report.get_json()
    replay = client.get(f"/v1/games/{game_id}/replay").get_json()
    assert replay["version"] == len(data["events"])
    assert game.result(fold(game, data["events"])) == data["result"]
