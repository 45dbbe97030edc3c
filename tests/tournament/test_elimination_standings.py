"""Elimination standings rank by the round reached (``service.tournament.elimination``): the final
table's places first, then those out in the round before it by their place at their table, ties of
round and place broken by the points standings. Pure: a stored tournament built by hand."""

from __future__ import annotations

import orjson

from service.tournament.elimination import by_round_reached, reached
from service.tournament.rounds import standings_view
from store.tournaments import StoredTournament

PLAYERS = [f"p{i}" for i in range(9)]


def _tournament(rounds: dict[int, dict], fmt: str = "elimination") -> StoredTournament:
    settings = {"format": fmt, "table_size": 3, "min_size": 2, "max_size": 6, "advance": 1, "rounds": 3}
    entrants = {
        p: {"name": p, "rating": 1500.0 + i, "joined": i, "withdrawn": False} for i, p in enumerate(PLAYERS)
    }
    record = {"status": "running", "config": orjson.dumps(settings).decode(), "round": str(len(rounds))}
    return StoredTournament("t", record, entrants, rounds)


# Round 1: three tables of three dealt from one seed (a duplicate round), so a round's points compare
# the players who held the same seat: p1, out second at its table, outscores p0 and p3, who won theirs
# from a seat every table won from. The final (p0, p3, p6) is still playing.
ROUND_1 = {
    "seed": 7,
    "tables": [
        {"game": "a", "players": ["p0", "p1", "p2"], "placing": [["p0"], ["p1"], ["p2"]]},
        {"game": "b", "players": ["p3", "p4", "p5"], "placing": [["p3"], ["p5"], ["p4"]]},
        {"game": "c", "players": ["p6", "p7", "p8"], "placing": [["p6"], ["p8"], ["p7"]]},
    ],
}
FINAL = {"tables": [{"game": "d", "players": ["p0", "p3", "p6"]}]}


def test_a_running_final_ranks_its_players_above_everyone_out_before_it_whatever_their_points():
    found = _tournament({1: ROUND_1, 2: FINAL})
    view = standings_view(found)
    points = {s["account"]: s["score"] for s in view}
    assert points["p1"] > points["p0"]  # the points alone would rank p1 above a finalist
    assert {s["account"] for s in view[:3]} == {"p0", "p3", "p6"}
    assert all(s["round"] == 2 and s["place"] is None for s in view[:3])
    # then the seconds of round 1, then its thirds, each by points
    assert [(s["round"], s["place"]) for s in view[3:]] == [(1, 2)] * 3 + [(1, 3)] * 3
    seconds = view[3:6]
    assert [s["score"] for s in seconds] == sorted((s["score"] for s in seconds), reverse=True)
    assert [s["rank"] for s in view] == list(range(1, 10))


def test_a_finished_final_ranks_by_its_placing_then_ties_share_a_place():
    final = {"tables": [{"game": "d", "players": ["p0", "p3", "p6"], "placing": [["p6"], ["p0", "p3"]]}]}
    view = standings_view(_tournament({1: ROUND_1, 2: final}))
    assert [s["account"] for s in view[:1]] == ["p6"]
    assert {s["account"] for s in view[1:3]} == {"p0", "p3"}
    assert [s["place"] for s in view[:3]] == [1, 2, 2]


def test_a_swiss_keeps_its_points_standings_without_round_or_place():
    found = _tournament({1: {k: v for k, v in ROUND_1.items() if k != "seed"}}, fmt="swiss")
    view = standings_view(found)
    assert "round" not in view[0] and "place" not in view[0]
    assert [s["score"] for s in view] == sorted((s["score"] for s in view), reverse=True)


def test_an_entrant_who_never_sat_comes_last():
    reach = reached([[(["a", "b"], [["b"], ["a"]])]])
    assert by_round_reached(["c", "a", "b"], reach) == ["b", "a", "c"]
