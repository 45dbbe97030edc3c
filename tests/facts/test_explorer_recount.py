"""The decision explorer's counts equal a recount from the logs, for both games (a Hypothesis
property over small random archives played by the random bot): every situation's moves by context,
their counts, wins and placements, under a filter or none. Two situations are also recounted from the
raw events without the engines' hooks: Condottiere's first battle region (the first ``token_placed``,
TOKEN-1) and Rio's characters (each ``claimed`` event)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import get_game
from service.fact_queries import FactQueries
from service.facts import fact_store
from service.filters import parse
from tests.random_play import import_played, play_out

SEATS = {"condottiere": (2, 3, 4), "rio_de_la_plata": (3, 4)}
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve"]


def _archive(redis_client, name: str, specs: list[tuple[int, int]], tag: str) -> list[tuple[list[dict], int]]:
    engine = get_game(name)
    games = []
    for i, (players, seed) in enumerate(specs):
        events, state = play_out(
            engine, engine.configure({"players": players, "seed": seed}), random.Random(seed)
        )
        import_played(
            redis_client, engine, events, state, game_id=f"{tag}{i:03d}", players=NAMES[:players],
            now=f"2026-0{1 + i % 3}-1{i % 9}T10:00:00+00:00",
        )  # fmt: skip
        winners = (engine.result(state) or {}).get("winners") or []
        games.append((events, players, winners))
    return games


def _recount(name: str, games, players: int | None) -> Counter:
    engine = get_game(name)
    counts: Counter = Counter()
    for events, seats, winners in games:
        if players is not None and seats != players:
            continue
        for _, seat, situation, context, move in engine.explore(events):
            counts[(situation, context, move)] += 1
            counts[(situation, context, move, "wins")] += seat in winners
            counts[(situation, context, move, "placement")] += 1 if seat in winners else 2
    return counts


def _explored(queries: FactQueries, name: str, players: int | None) -> Counter:
    filters = parse({"players": [str(players)]} if players is not None else {})
    counts: Counter = Counter()
    for situation in get_game(name).explorer_situations():
        body = queries.explorer(name, situation, None, filters)
        for context in body["contexts"]:
            for move in context["moves"]:
                key = (situation, context["context"], move["move"])
                counts[key] += move["count"]
                counts[(*key, "wins")] += move["wins"]
                counts[(*key, "placement")] += round(move["mean_placement"] * move["count"])
    return +counts


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SEATS))
def test_explorer_counts_equal_a_recount_from_the_logs(redis_client, tmp_path, monkeypatch, name):
    counter = iter(range(10_000))

    @settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(
        specs=st.lists(
            st.tuples(st.sampled_from(SEATS[name]), st.integers(0, 10_000)), min_size=1, max_size=3
        ),
        filtered=st.booleans(),
    )
    def check(specs, filtered):
        run = next(counter)
        monkeypatch.setenv("FACTS_DIR", str(tmp_path / f"run{run}"))
        redis_client.flushdb()
        games = _archive(redis_client, name, specs, tag=f"x{run:03d}")
        players = specs[0][0] if filtered else None
        queries = FactQueries(fact_store)
        assert _explored(queries, name, players) == +_recount(name, games, players)
        total = sum(len(list(get_game(name).explore(e))) for e, s, _ in games if players in (None, s))
        answered = sum(
            queries.explorer(name, s, None, parse({"players": [str(players)]} if players else {}))[
                "decisions"
            ]
            for s in get_game(name).explorer_situations()
        )
        assert answered == total

    check()


def test_the_hooks_name_what_the_raw_events_say(redis_client, tmp_path, monkeypatch):
    """TOKEN-1: the first battle's region is the first token_placed; Rio: each claimed character."""
    monkeypatch.setenv("FACTS_DIR", str(tmp_path))
    queries = FactQueries(fact_store)
    condottiere = _archive(redis_client, "condottiere", [(3, 1), (2, 2), (4, 3)], tag="c")
    expected = Counter(
        next(e["region"] for e in events if e["type"] == "token_placed") for events, _, _ in condottiere
    )
    assert _moves(queries.explorer("condottiere", "first_battle_region", None, parse({}))) == expected
    rio = _archive(redis_client, "rio_de_la_plata", [(3, 4)], tag="r")
    claimed = Counter(e["character"] for events, _, _ in rio for e in events if e["type"] == "claimed")
    assert _moves(queries.explorer("rio_de_la_plata", "character", None, parse({}))) == claimed


def _moves(body) -> Counter:
    found: Counter = Counter()
    for context in body["contexts"]:
        for move in context["moves"]:
            found[move["move"]] += move["count"]
    return found
