"""Rules revisions (games.base): a log verifies, replays, exports, imports and counts under the
revision it was recorded under, not today's rules. The logs in revision_logs/ were recorded by old
code (see its README) and name no revision, as every log recorded before revisions existed:
Condottiere's before RL-11/RL-12 (rules revision 1) and after them (revision 2: a Condottiere log
naming no revision may follow either, config.py), Rio de la Plata's before issue 28 (revision 1:
RIO-CHAR-5, RIO-RL-58, RIO-RL-71)."""

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


def _states(game, events, keys, with_states=False):
    """The digest of the state after every event, as the recording code computed it (fields added
    to the state since are left out: ``keys`` are the recording code's)."""
    out, states, state = [], [], None
    for event in events:
        state = game.evolve(state, event)
        states.append(state)
        out.append(_digest(orjson.loads(orjson.dumps(game.state_to_json(state))), keys))
    return (out, states) if with_states else out


def _undecided(state, following) -> bool:
    """A Condottiere log naming no revision, right after an event that revision 2 follows with an
    event revision 1 does not produce (the hand discard's offer to every holder, a stall): until the
    log's next event shows which revision it follows, the engine holds revision 2's (config.py)."""
    from games.condottiere.steps import read_as_revision_1

    return following != state.pending and read_as_revision_1(state) is not None


def _under(events, revision):
    first = dict(events[0], config=dict(events[0]["config"], revision=revision))
    return [first, *events[1:]]


def test_the_data_covers_each_engine():
    assert {_load(name)["game"] for name in LOGS} == {"condottiere", "rio_de_la_plata"}


@pytest.mark.parametrize("name", sorted(LOGS))
def test_a_log_recorded_before_revisions_is_revision_1_and_verifies(name):
    """The first event's configuration names no revision: revision 1 (recorded before revisions
    existed). It verifies today, under the rules it was recorded under."""
    data = _load(name)
    game = get_game(data["game"])
    events = data["events"]
    assert "revision" not in events[0]["config"] and log_revision(events[0]["config"]) == UNREVISED
    assert game.verify_log(events) is None
    assert configure_recorded(game, events[0]["config"])["revision"] == UNREVISED


@pytest.mark.parametrize("name", sorted(LOGS))
def test_a_log_of_revision_1_replays_to_the_states_its_code_recorded(name):
    """Every state is the one the recording code reached, except (Condottiere, a log of the rules
    before RL-12 naming no revision) a state right after an event that revision 2 follows
    differently, until the log's next event tells: that one is compared after it."""
    data = _load(name)
    game = get_game(data["game"])
    events = data["events"]
    digests, states = _states(game, events, data["state_keys"], with_states=True)
    differing = [
        v
        for v, (mine, theirs) in enumerate(zip(digests, data["state_sha256"], strict=True))
        if mine != theirs
    ]
    for v in differing:
        assert data["game"] == "condottiere" and data["rules_revision"] == 1, (name, v)
        assert v + 1 < len(events) and _undecided(states[v], events[v + 1]), (name, v)
        assert v + 1 not in differing
    assert len(differing) <= len(events) // 20
    assert game.result(fold(game, events)) == data["result"]


@pytest.mark.parametrize("name", sorted(n for n in LOGS if _load(n)["rules_revision"] == 1))
def test_the_newest_rules_would_read_the_log_differently(name):
    """The data exercises a change (so the two tests above could fail): read under the engine's
    newest revision, a log of the older rules is refused or folds to other states."""
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


def test_rl_12_a_condottiere_log_naming_no_revision_recorded_after_rl_12_is_read_as_revision_2():
    """RL-12: a Condottiere log recorded after RL-12 but before revisions were numbered (the running
    games and the archive of that day) names no revision like one recorded before RL-12; it is read
    under RL-12, the same as under revision 2, and a game of that kind still being played offers
    the hand discard to every seat holding cards (eligibility stays hidden)."""
    data = _load("condottiere-unrevised-after-rl12")
    game = get_game("condottiere")
    events = data["events"]
    assert "revision" not in events[0]["config"]
    assert game.verify_log(events) is None and game.verify_log(_under(events, 2)) is None
    assert _states(game, events, data["state_keys"]) == data["state_sha256"]
    state = fold(game, events)
    # Still being played: every seat holding cards is asked (revision 2), not the eligible only.
    from games.condottiere.steps import offer_hand_discard

    playing = state.copy()
    playing.hands = (("m1",), ("courtesan",), ())
    assert offer_hand_discard(playing)["seats"] == [0, 1]


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


def _as_revision_1_from(game, events, start):
    """``events`` with every hand discard from index ``start`` on made as revision 1 makes it: offered
    to the seats holding no Mercenary only (no offer when there is none), their answers kept. The
    other seats' answers were all "keep" (a seat holding a Mercenary may only keep), so nothing else
    in the log changes."""
    out = list(events[:start])
    i = start
    while i < len(events):
        event = events[i]
        if event["type"] != "hand_discard_offered":
            out.append(event)
            i += 1
            continue
        hands = fold(game, events[:i]).hands
        eligible = [s for s, hand in enumerate(hands) if hand and not any(c[0] == "m" for c in hand)]
        answers = []
        i += 1
        while i < len(events) and events[i]["type"] == "hand_discarded":
            answers.append(events[i])
            i += 1
        assert all(a["seat"] in eligible or not a["discard"] for a in answers)
        if eligible:
            out.append(dict(event, seats=eligible))
            out.extend(a for a in answers if a["seat"] in eligible)
    return out


def test_rl_12_a_log_naming_no_revision_must_keep_to_one_revision():
    """RL-12, END-7: in a log naming no revision, the first place where revisions 1 and 2 differ
    tells which one the log follows. The same game made as revision 1 from its first hand discard on
    is valid; made as revision 1 only from its second on (revision 2 at the first: an offer to a
    seat holding a Mercenary) it is refused, though each reading alone would accept its part."""
    game = get_game("condottiere")
    events = _load("condottiere-unrevised-after-rl12")["events"]
    offers = [i for i, e in enumerate(events) if e["type"] == "hand_discard_offered"]
    hands = fold(game, events[: offers[0]]).hands
    assert any(any(c[0] == "m" for c in hands[s]) for s in events[offers[0]]["seats"])  # revisions differ
    assert game.verify_log(events) is None
    assert game.verify_log(_as_revision_1_from(game, events, offers[0])) is None
    mixed = _as_revision_1_from(game, events, offers[1])
    assert mixed != events and game.verify_log(mixed) is not None
