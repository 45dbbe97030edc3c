"""Generic replay functions (fold to a version, viewer rules, verify, import validation, statistics
aggregation) on the server's toy game: nothing here may depend on Condottiere."""

from __future__ import annotations

import copy

import pytest

from games import get_game
from games.base import fold
from replays import core, export, stats
from tests.api import toy_game

toy_game.register()
GAME = get_game("toy")


def play_out(seed: int = 7, hand_size: int = 3, stop_after: int | None = None) -> list[dict]:
    """A complete toy game: each seat plays its lowest card (no passes)."""
    config = GAME.configure({"seed": seed, "hand_size": hand_size})
    events = GAME.start(config)
    state = fold(GAME, events)
    moves = 0
    while not GAME.is_over(state) and (stop_after is None or moves < stop_after):
        seat = GAME.awaiting(state)[0]
        card = min(state["hands"][seat])
        new = GAME.decide(state, seat, {"type": "play", "card": card})
        events += new
        state = fold(GAME, new, state)
        moves += 1
    return events


def test_fold_to_every_version_matches_incremental_fold():
    events = play_out()
    state = None
    for version in range(len(events) + 1):
        assert core.fold_to(GAME, events, version) == state
        if version < len(events):
            state = GAME.evolve(state, events[version])
    with pytest.raises(core.VersionOutOfRange):
        core.fold_to(GAME, events, len(events) + 1)
    with pytest.raises(core.VersionOutOfRange):
        core.fold_to(GAME, events, -1)


def test_running_game_is_shown_to_the_viewer_only():
    events = play_out(stop_after=2)
    assert not core.is_finished(GAME, events)
    spectator = core.replay_at(GAME, events, 3, None)
    assert spectator["finished"] is False and spectator["viewer"] == "spectator"
    assert all("hand" not in p for p in spectator["state"]["players"])
    seat1 = core.replay_at(GAME, events, None, 1)
    assert seat1["state"]["hand"] == fold(GAME, events)["hands"][1]
    assert "hand" not in seat1["state"]["players"][0]


def test_finished_game_is_complete_at_every_version():
    events = play_out()
    early = core.replay_at(GAME, events, 3, None)
    assert early["finished"] is True and early["viewer"] == "full"
    # At version 3 both hands are still full, and a finished game shows them to anyone.
    assert [len(p["hand"]) for p in early["state"]["players"]] == [3, 3]


def test_verify_accepts_a_matching_snapshot_and_reports_a_divergence_without_fixing_it():
    events = play_out()
    snapshot = {"version": len(events), "state": GAME.state_to_json(fold(GAME, events))}
    report = core.verify(GAME, events, snapshot)
    assert report["ok"] and report["snapshot"]["matches"] and report["log_error"] is None

    tampered = copy.deepcopy(snapshot)
    tampered["state"]["played"][0][0] = "c999"
    kept = copy.deepcopy(tampered)
    report = core.verify(GAME, events, tampered)
    assert not report["ok"]
    assert report["snapshot"]["differences"] == [
        {"path": "/played/0/0", "log": events_played(events)[0], "snapshot": "c999"}
    ]
    assert tampered == kept  # reported, never fixed

    # A live game's snapshot may be behind its log (it is rewritten every SNAPSHOT_INTERVAL
    # versions): it is checked against the fold of the log up to its own version.
    behind = {"version": len(events) - 2, "state": GAME.state_to_json(fold(GAME, events[:-2]))}
    report = core.verify(GAME, events, behind)
    assert report["ok"] and report["snapshot"] == {
        "version": len(events) - 2,
        "matches": True,
        "differences": [],
    }

    mislabelled = dict(snapshot, version=len(events) - 1)  # the last state, said to be an earlier one
    report = core.verify(GAME, events, mislabelled)
    assert not report["ok"] and report["snapshot"]["differences"]

    ahead = dict(snapshot, version=len(events) + 1)
    report = core.verify(GAME, events, ahead)
    assert not report["ok"] and report["snapshot"]["differences"][0]["path"] == "version"


def events_played(events):
    return [e["card"] for e in events if e["type"] == "card_played" and e["seat"] == 0]


def test_verify_reports_the_first_event_the_rules_refuse():
    events = play_out()
    bad = copy.deepcopy(events)
    bad[4] = {"type": "card_played", "v": 1, "seat": 0, "card": "c999"}
    report = core.verify(GAME, bad, None)
    assert not report["ok"] and report["log_error"]["index"] == 4


def test_export_of_running_game_is_redacted_for_the_viewer_and_complete_once_finished():
    running = play_out(stop_after=1)
    doc = export.export_log(GAME, running, players=["Ann", "Bob"], finished=False, viewer=0)
    assert doc["redacted_for"] == "seat 0" and doc["result"] is None
    dealt = {e["seat"]: e for e in doc["events"] if e["type"] == "cards_dealt"}
    assert dealt[0]["cards"] is not None and dealt[1]["cards"] is None
    assert "seed" not in doc["config"]

    events = play_out()
    result = GAME.result(fold(GAME, events))
    doc = export.export_log(GAME, events, players=["Ann", "Bob"], finished=True, viewer=1, result=result)
    assert "redacted_for" not in doc and doc["events"] == events and doc["result"] == result


def exchange(events, **extra):
    result = GAME.result(fold(GAME, events))
    doc = export.export_log(GAME, events, players=["Ann", "Bob"], finished=True, result=result)
    doc.update(extra)
    return doc


def test_import_accepts_a_complete_valid_log():
    events = play_out()
    checked = export.validate_import(exchange(events))
    assert checked["events"] == events and checked["players"] == ["Ann", "Bob"]
    assert checked["result"] == GAME.result(fold(GAME, events))


@pytest.mark.parametrize(
    "mutate, code, index",
    [
        (lambda d: d.update(format="other"), "UNSUPPORTED_FORMAT", None),
        (lambda d: d.update(format_version=99), "UNSUPPORTED_FORMAT_VERSION", None),
        (lambda d: d.update(game="nope"), "UNKNOWN_GAME", None),
        (lambda d: d.update(events=[]), "INVALID_EXPORT", None),
        (lambda d: d.update(players=["Ann"]), "INVALID_PLAYERS", None),
        (lambda d: d.update(redacted_for="seat 0"), "REDACTED_LOG", None),
        (
            lambda d: d["events"].__setitem__(5, {"type": "card_played", "v": 1, "seat": 1, "card": "c999"}),
            "INVALID_EVENT",
            5,
        ),
        (lambda d: d["events"].__setitem__(2, "not an event"), "INVALID_EVENT", 2),
        (lambda d: d.update(events=d["events"][:-1]), "LOG_INCOMPLETE", None),
        (lambda d: d.update(result={"winners": [5], "reason": "total"}), "RESULT_MISMATCH", None),
    ],
)
def test_import_refuses_with_the_first_offending_event(mutate, code, index):
    doc = exchange(play_out())
    mutate(doc)
    with pytest.raises(export.ImportRefused) as refused:
        export.validate_import(doc)
    assert refused.value.code == code
    if index is not None:
        assert refused.value.index == index


def test_player_and_global_aggregation_on_hand_made_facts():
    """Known answers computed by hand: three games of Ann and Bob (plus Cid in a 3-seat game)."""
    games = [
        (
            ["Ann", "Bob"],
            {
                "seats": 2,
                "first_seat": 0,
                "winners": [0],
                "outcome": "total",
                "chapters": 4,
                "events": 20,
                "seat_counters": [{"won": {"x": 2}}, {"won": {"y": 1}}],
                "seat_totals": [{"points": 5}, {"points": 3}],
                "counters": {"hot": {"x": 2, "y": 1}},
            },
        ),
        (
            ["Bob", "Ann"],
            {
                "seats": 2,
                "first_seat": 0,
                "winners": [0],
                "outcome": "total",
                "chapters": 6,
                "events": 30,
                "seat_counters": [{"won": {"x": 1}}, {}],
                "seat_totals": [{"points": 4}, {"points": 4}],
                "counters": {"hot": {"x": 1}},
            },
        ),
        (
            ["Ann", "Cid", "Bob"],
            {
                "seats": 3,
                "first_seat": 1,
                "winners": [1, 2],
                "outcome": "tie",
                "chapters": 9,
                "events": 50,
                "seat_counters": [{}, {}, {"won": {"z": 3}}],
                "seat_totals": [{}, {}, {"points": 1}],
                "counters": {"hot": {"z": 3}},
            },
        ),
    ]
    players, overall = stats.PlayerStats(), stats.GlobalStats()
    for names, facts in games:
        players.add(names, facts)
        overall.add(facts)
    table = players.result()
    assert table["Ann"]["games"] == 3 and table["Ann"]["wins"] == 1 and table["Ann"]["win_rate"] == 0.3333
    assert table["Bob"]["wins"] == 2
    assert table["Bob"]["by_seat"] == {
        "0": {"games": 1, "wins": 1, "win_rate": 1.0},
        "1": {"games": 1, "wins": 0, "win_rate": 0.0},
        "2": {"games": 1, "wins": 1, "win_rate": 1.0},
    }
    assert table["Ann"]["by_player_count"]["2"] == {"games": 2, "wins": 1, "win_rate": 0.5}
    assert table["Bob"]["counters"]["won"] == {"x": 1, "y": 1, "z": 3}
    assert table["Bob"]["favourites"]["won"][0] == {"key": "z", "count": 3}
    assert table["Ann"]["totals"] == {"points": 9}

    result = overall.result()
    # First seat won games 1 and 2 and game 3 (seat 1 first, a winner): 3/3; expected share
    # 1/2 + 1/2 + 2/3 over 3 games = 0.5556.
    assert result["first_seat_advantage"] == {
        "games": 3,
        "wins": 3,
        "win_rate": 1.0,
        "expected_win_rate": 0.5556,
        "advantage": 0.4444,
    }
    assert result["outcomes"] == {"tie": 1, "total": 2}
    assert result["counters"]["hot"] == [
        {"key": "x", "count": 3},
        {"key": "z", "count": 3},
        {"key": "y", "count": 1},
    ]
    assert result["length"]["chapters"]["min"] == 4 and result["length"]["chapters"]["max"] == 9
    assert result["length"]["chapters"]["median"] == 6 and result["length"]["events"]["mean"] == 33.333
    assert sum(b["count"] for b in result["length"]["events"]["histogram"]) == 3
    assert result["win_rate_by_seat"]["2"] == {"games": 1, "wins": 1, "win_rate": 1.0}


def test_generic_facts_without_a_hook_come_from_the_result():
    events = play_out()
    facts = stats.game_facts(GAME, events)
    assert facts["seats"] == 2 and facts["events"] == len(events)
    assert facts["winners"] == GAME.result(fold(GAME, events))["winners"]
