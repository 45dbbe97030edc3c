"""Taking back a decision within one's turn: the rulings RIO-UNDO-1 .. RIO-UNDO-5 of
docs/rio-de-la-plata-protocol.md, on random legal games and on small scenarios."""

from __future__ import annotations

import random

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.base import CommandError, fold
from games.rio_de_la_plata import GAME
from games.rio_de_la_plata.annotate import annotate
from games.rio_de_la_plata.archive import game_facts
from games.rio_de_la_plata.rules import evolve
from games.rio_de_la_plata.search import determinize
from games.rio_de_la_plata.state import State
from tests.hypothesis_profiles import examples

from .helpers import new_game, play

UNDO = {"type": "undo"}


def whole(state: State) -> bytes:
    """Everything a state is, the chain of what it may take back included (its snapshot)."""
    return orjson.dumps(GAME.state_to_json(state), option=orjson.OPT_SORT_KEYS)


def views(state: State) -> list:
    return [GAME.view(state, viewer) for viewer in [None, "full", *range(state["n"])]]


def refused(state: State, seat: int, command: dict) -> str:
    with pytest.raises(CommandError) as err:
        GAME.decide(state, seat, command)
    return err.value.code


def placing(players: int = 3, seed: int = 1) -> tuple[State, list[dict], int]:
    state, log = new_game(players, seed)
    return state, log, GAME.awaiting(state)[0]


def first_cell(state: State, seat: int) -> dict:
    return next(m for m in GAME.legal_moves(state, seat) if m["type"] == "place" and m["space"] == "cell")


@settings(max_examples=examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(players=st.integers(3, 5), seed=st.integers(0, 10_000))
def test_do_then_undo_restores_the_state_exactly_over_random_legal_moves_rio_undo_3(players, seed):
    """RIO-UNDO-3, RIO-UNDO-4: after every placement and build of four years of random legal play,
    taking it back gives the state before it exactly (its JSON, the chain of earlier decisions still
    undoable, and every viewer's view), and so does a chain of undos back to the turn's start; the
    log with the undos verifies (RIO-UNDO-5)."""
    state, log = new_game(players, seed)
    rng = random.Random(seed)
    checked = 0
    while state["year"] < 1584 and not GAME.is_over(state):
        seat = GAME.awaiting(state)[0]
        move = rng.choice(GAME.legal_moves(state, seat))
        before = state
        state = play(state, seat, move, log)
        if log[-1]["type"] not in ("placed", "built"):
            assert state.taken is None
            continue
        events = GAME.decide(state, seat, UNDO)
        assert events == [{"type": "undone", "v": 1, "seat": seat, "event": log[-1]}]
        undone = evolve(state, events[0])
        assert whole(undone) == whole(before)
        assert views(undone) == views(before)
        checked += 1
        if rng.random() < 0.1:  # walk the turn back, then play on from the undone state
            log.extend(events)
            state = undone
            while state.taken is not None:
                taken_before = state.taken[0]
                log.extend(GAME.decide(state, seat, UNDO))
                state = evolve(state, log[-1])
                assert whole(state) == whole(taken_before)
    assert checked > 0
    assert GAME.verify_log(log) is None
    assert whole(fold(GAME, log)) == whole(state)


def test_undo_is_refused_when_nothing_may_be_taken_back_rio_undo_1_rio_undo_2():
    """RIO-UNDO-2: nothing to take back at a turn's start, after the turn's end, for another seat,
    after another player's command in between (a purchase), and an undo carries no field.
    RIO-UNDO-1: a purchase of one's own is no decision to take back, and after it the placement
    before it is not either."""
    state, _, seat = placing()
    assert refused(state, seat, UNDO) == "NOTHING_TO_UNDO"
    placed = play(state, seat, first_cell(state, seat))
    assert refused(placed, seat, {"type": "undo", "event": 1}) == "INVALID_COMMAND"
    other = next(s for s in range(state["n"]) if s != seat)
    assert refused(placed, other, UNDO) == "NOTHING_TO_UNDO"
    ended = play(placed, seat, {"type": "end_turn"})
    assert refused(ended, seat, UNDO) == "NOTHING_TO_UNDO"
    buy = next((m for m in GAME.legal_moves(placed, other) if m["type"] == "buy"), None)
    assert buy is not None, "the other seat may buy while this one places"
    bought = play(placed, other, buy)
    assert refused(bought, seat, UNDO) == "NOTHING_TO_UNDO"
    own = next(m for m in GAME.legal_moves(placed, seat) if m["type"] == "buy")
    bought = play(placed, seat, own)
    assert refused(bought, seat, UNDO) == "NOTHING_TO_UNDO"


def test_undo_is_never_after_a_die_roll_or_a_draw_rio_undo_2():
    """RIO-UNDO-2: an automatic event (the war dice, the turn order's draw, a turn's income) ends
    what may be taken back: over a whole random game, no state after one allows an undo."""
    state, _ = new_game(3, 7)
    assert state.taken is None  # after the order's draw
    rng = random.Random(7)
    while not GAME.is_over(state):
        seat = GAME.awaiting(state)[0]
        events = GAME.decide(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        for event in events:
            state = evolve(state, event)
        if len(events) > 1 or events[-1]["type"] not in ("placed", "built"):
            assert state.taken is None, events
            assert all("undo" not in v for v in views(state))


def test_undo_is_never_a_legal_move_and_bots_and_searches_never_undo_rio_undo_4():
    """RIO-UNDO-4: `undo` is never among a seat's legal moves (what bots choose from); the seat's
    view names what it would take back beside them; a search's sample cannot take anything back."""
    state, _, seat = placing()
    state = play(state, seat, first_cell(state, seat))
    assert all(m["type"] != "undo" for m in GAME.legal_moves(state, seat))
    assert GAME.view(state, seat)["undo"]["type"] == "placed"
    assert all("undo" not in GAME.view(state, v) for v in (None, "full", *range(state["n"])) if v != seat)
    sample = determinize(state, seat, random.Random(1))
    assert sample.taken is None
    assert refused(sample, seat, UNDO) == "NOTHING_TO_UNDO"


def test_a_snapshot_keeps_what_may_be_taken_back_rio_undo_5():
    """RIO-UNDO-5: a state loaded from its snapshot mid-turn takes back what the folded log does,
    twice in a row, and the snapshot after the turn's end carries no chain."""
    state, log, seat = placing()
    state = play(state, seat, first_cell(state, seat), log)
    state = play(state, seat, {"type": "place", "space": "field"}, log)
    loaded = GAME.state_from_json(orjson.loads(orjson.dumps(GAME.state_to_json(state))))
    assert whole(loaded) == whole(state)
    for _ in range(2):
        assert GAME.decide(loaded, seat, UNDO) == GAME.decide(state, seat, UNDO)
        loaded = evolve(loaded, GAME.decide(loaded, seat, UNDO)[0])
        state = evolve(state, GAME.decide(state, seat, UNDO)[0])
        assert whole(loaded) == whole(state)
    assert refused(loaded, seat, UNDO) == "NOTHING_TO_UNDO"
    ended = play(state, seat, {"type": "end_turn"})
    assert "undo" not in GAME.state_to_json(ended)


def test_an_undone_build_is_not_counted_and_the_log_says_what_was_taken_back_rio_undo_3():
    """RIO-UNDO-3: the log's sentence names the decision taken back; the statistics do not count a
    build that was taken back."""
    placed = {"type": "placed", "v": 1, "seat": 1, "space": "cell", "cell": [3, 4]}
    built = {"type": "built", "v": 1, "seat": 1, "building": "hut", "cell": [3, 4]}
    say = lambda e: annotate(None, {"type": "undone", "v": 1, "seat": 1, "event": e}, None)  # noqa: E731
    assert say(placed) == "Seat 1 takes back the placement on cell (3, 4)."
    assert say({**placed, "displace": True}) == "Seat 1 takes back the displacement on cell (3, 4)."
    assert say(built) == "Seat 1 takes back the hut built on (3, 4)."
    assert say({**placed, "space": "forest"}) == "Seat 1 takes back the placement on the forest."
    # A real build, then taken back: the facts count none.
    state, log = new_game(3, 3)
    rng = random.Random(3)
    while True:
        seat = GAME.awaiting(state)[0]
        moves = GAME.legal_moves(state, seat)
        builds = [m for m in moves if m["type"] == "build"]
        state = play(state, seat, builds[0] if builds else rng.choice(moves), log)
        if builds:
            break
    assert game_facts(log)["seat_totals"][seat]["buildings_built"] == 1
    state = play(state, seat, UNDO, log)
    facts = game_facts(log)
    assert GAME.verify_log(log) is None
    assert facts["counters"]["buildings"] == {}
    assert facts["seat_totals"][seat]["buildings_built"] == 0


def test_the_decision_explorer_skips_what_was_taken_back_rio_undo_4():
    """RIO-UNDO-4, RIO-UNDO-3: a chain of two placements taken back is not among the first year's
    placements the decision explorer counts; the placement made instead is placement 1."""
    from games.rio_de_la_plata.explorer import explore

    state, log, seat = placing()
    state = play(state, seat, {"type": "place", "space": "field"}, log)
    state = play(state, seat, {"type": "place", "space": "order"}, log)
    state = play(state, seat, UNDO, log)
    state = play(state, seat, UNDO, log)
    state = play(state, seat, first_cell(state, seat), log)
    mine = [(number, space) for _, who, situation, number, space in explore(log) if who == seat]
    assert mine == [("placement 1", "cell")]


def _follow(client, response, run_jobs):
    assert response.status_code == 202, response.get_json()
    run_jobs()
    job = client.get(response.headers["Location"]).get_json()
    assert job["status"] == "finished", job
    return client.get(job["result"]).get_json()


def test_undo_over_the_http_api_rio_undo_2_rio_undo_5(client, run_jobs):
    """RIO-UNDO-2: over HTTP, an undo with nothing to take back is a 422 problem (NOTHING_TO_UNDO)
    that changes nothing; after a placement the seat's view names it and the undo is accepted, the
    log says "takes back the placement on the field". RIO-UNDO-5: a game with undos across the
    service's snapshots verifies (log and snapshot)."""
    created = client.post("/v1/games", json={"game": "rio_de_la_plata", "config": {"players": 3, "seed": 8}})
    game_id = created.get_json()["id"]
    tokens = [
        client.post(f"/v1/games/{game_id}/seats", json={"name": n}).get_json()["token"]
        for n in ("Ann", "Bob", "Cy")
    ]
    rng = random.Random(8)
    undone = 0
    for _ in range(120):
        summary = client.get(f"/v1/games/{game_id}").get_json()
        seat = client.get(f"/v1/games/{game_id}/view").get_json()["view"]["awaiting"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        view = client.get(f"/v1/games/{game_id}/view", headers=auth).get_json()["view"]
        if "undo" not in view:
            refused = client.post(f"/v1/games/{game_id}/moves", json={"command": UNDO}, headers=auth)
            assert refused.status_code == 422 and refused.mimetype == "application/problem+json"
            assert refused.get_json()["code"] == "NOTHING_TO_UNDO"
            assert client.get(f"/v1/games/{game_id}").get_json()["version"] == summary["version"]
        elif rng.random() < 0.5:
            answer = client.post(f"/v1/games/{game_id}/moves", json={"command": UNDO}, headers=auth)
            assert answer.status_code == 200, answer.get_json()
            undone += 1
            continue
        moves = [m for m in view["legal_moves"] if not m["type"].startswith("offer_")]
        answer = client.post(f"/v1/games/{game_id}/moves", json={"command": rng.choice(moves)}, headers=auth)
        assert answer.status_code == 200, answer.get_json()
    assert undone >= 5
    texts = [
        a["text"] for a in client.get(f"/v1/games/{game_id}/annotations?limit=500").get_json()["annotations"]
    ]
    assert any("takes back the placement on" in t for t in texts), texts[-20:]
    report = _follow(client, client.post(f"/v1/games/{game_id}/verify"), run_jobs)
    assert report["ok"] is True and report["snapshot"]["matches"] is True, report
