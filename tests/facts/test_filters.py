"""One filter grammar for the archive and the statistics (service.filters, docs/statistics.md):
every filter changes the answer as it should on a hand-made archive of facts; bad filters are 422s
with stable codes; a filter matching nothing answers an empty result."""

from __future__ import annotations

import sys
from datetime import datetime

import pytest

from service.fact_queries import FactQueries
from service.filters import FilterProblem, parse
from store.facts import FactStore

# Hand-made games: (id, finished, ruleset, options, seats [(name, account, bot level, rating)],
# winners, outcome, prearranged)
GAMES = [
    (
        "g1",
        "2026-01-05",
        "2006",
        ["capturing"],
        [("Ann", "a1", None, 10.0), ("Bob", "b1", None, 12.0)],
        [0],
        "adjacent",
        False,
    ),
    (
        "g2",
        "2026-01-20",
        "2006",
        [],
        [("Ann", "a1", None, 11.0), ("Cid", None, None, None)],
        [1],
        "total",
        False,
    ),
    (
        "g3",
        "2026-02-03",
        "classic",
        [],
        [("Bob", "b1", None, 30.0), ("heuristic", None, "heuristic", 20.0)],
        [1],
        "adjacent",
        True,
    ),
    (
        "g4",
        "2026-02-14",
        "2006",
        ["capturing", "bigger_kingdoms"],
        [("ann", "a1", None, 15.0), ("Bob", "b1", None, 14.0), ("Dee", "d1", None, 16.0)],
        [2],
        "most_regions",
        False,
    ),
    (
        "g5",
        "2026-03-01",
        "2006",
        [],
        [("random", None, "random", 1.0), ("heuristic", None, "heuristic", 22.0)],
        [0],
        "adjacent",
        False,
    ),
]


def _append(facts: FactStore) -> None:
    for game_id, day, ruleset, options, seats, winners, outcome, prearranged in GAMES:
        finished = datetime.fromisoformat(day)
        names = [s[0] for s in seats]
        ratings = [s[3] for s in seats]
        bots = sum(1 for s in seats if s[2])
        all_rated = all(r is not None for r in ratings)
        game_row = (
            game_id, finished, ruleset, sorted(options), len(seats), names, winners,
            [names[w] for w in winners], outcome, prearranged, False, bots, len(seats) - bots,
            min(ratings) if all_rated else None, max(ratings) if all_rated else None, 100, 0, 5,
        )  # fmt: skip
        seat_rows = [
            (
                game_id,
                i,
                n,
                n.casefold(),
                acc,
                lvl is not None,
                lvl,
                r,
                1 if i in winners else 2,
                i in winners,
            )
            for i, (n, acc, lvl, r) in enumerate(seats)
        ]
        decisions = [
            (
                game_id,
                0,
                finished,
                0,
                "opening",
                "",
                f"{names[0]}-move",
                1 if 0 in winners else 2,
                0 in winners,
            )
        ]
        facts.append(
            "condottiere", day[:7], game_id, {"games": [game_row], "seats": seat_rows, "decisions": decisions}
        )


@pytest.fixture()
def queries(tmp_path):
    facts = FactStore(tmp_path)
    _append(facts)
    return FactQueries(lambda: facts)


def _games(queries, **query) -> int:
    raw = {k: v if isinstance(v, list) else [str(v)] for k, v in query.items()}
    return queries.global_stats("condottiere", parse(raw))["games"]


# Each filter (and some combinations) and how many of GAMES it matches.
CASES = [
    ({}, 5),
    ({"player": ["ANN"]}, 3),  # case-insensitive
    ({"player": ["Ann", "Bob"]}, 2),  # all of them
    ({"account": "b1"}, 3),
    ({"ruleset": "classic"}, 1),
    ({"option": ["capturing"]}, 2),
    ({"option": ["capturing", "bigger_kingdoms"]}, 1),
    ({"players": 3}, 1),
    ({"winner": "bob"}, 0),
    ({"winner": "Cid"}, 1),
    ({"outcome": "adjacent"}, 3),
    ({"finished_from": "2026-02-01"}, 3),
    ({"finished_to": "2026-01-20"}, 2),  # a bare date: its whole day
    ({"finished_from": "2026-01-06", "finished_to": "2026-02-03"}, 2),
    ({"prearranged": "true"}, 1),
    ({"prearranged": "false"}, 4),
    ({"rating_min": 10}, 3),  # every seat rated, none below: g1, g3, g4 (g2 has an unrated seat)
    ({"rating_max": 16}, 2),  # g1, g4 (g5's bot is at 22)
    ({"rating_min": 14, "rating_max": 16}, 1),
    ({"table": "humans"}, 3),
    ({"table": "bots"}, 1),
    ({"table": "mixed"}, 1),
    ({"table": "bots", "player": ["Ann"]}, 0),  # matching nothing: an empty answer
]


@pytest.mark.parametrize("query, expected", CASES)
def test_every_filter_changes_the_answer_as_it_should(queries, query, expected):
    assert _games(queries, **query) == expected


@pytest.mark.parametrize("query", [query for query, _ in CASES if "player" not in query])
def test_a_players_figures_and_the_search_read_every_filter_as_the_figures_do(queries, query):
    """One player's figures and the archive's search with a ``player`` read the serving copy's
    seats rows, which carry their game's filter columns (store.fact_copy), not the games: every
    filter must match there the games it matches in the global figures (GAMES has no name twice
    in a game, so a player's seats are its games)."""
    raw = {k: v if isinstance(v, list) else [str(v)] for k, v in query.items()}
    for name in ("Ann", "bob", "Cid", "Dee", "heuristic", "random"):
        expected = _games(queries, **raw, player=[name])
        figures = queries.player_stats("condottiere", name, parse(raw))
        assert (figures["games"] if figures else 0) == expected, name
        found = queries.search("condottiere", parse({**raw, "player": [name]}), None, 100)
        assert len(found) == expected, name


def test_filtered_figures_follow_the_filter(queries):
    body = queries.global_stats("condottiere", parse({"table": ["humans"]}))
    assert body["by_player_count"] == {"2": 2, "3": 1}
    assert body["outcomes"] == {"adjacent": 1, "most_regions": 1, "total": 1}
    assert body["win_rate_by_seat"]["2"] == {"games": 1, "wins": 1, "win_rate": 1.0}
    ann = queries.player_stats("condottiere", "ann", parse({"finished_to": ["2026-01-31"]}))
    assert (ann["games"], ann["wins"], ann["name"]) == (2, 1, "Ann")
    assert queries.player_stats("condottiere", "ann", parse({"table": ["bots"]})) is None
    empty = queries.global_stats("condottiere", parse({"ruleset": ["1999"]}))
    assert empty["games"] == 0 and empty["leaders"] == [] and empty["win_rate_by_seat"] == {}


@pytest.mark.parametrize(
    "query, code",
    [
        ({"colour": ["red"]}, "UNKNOWN_FILTER"),
        ({"finished_from": ["2026-03-01"], "finished_to": ["2026-02-01"]}, "DATE_RANGE_BACKWARDS"),
        ({"rating_min": ["5000"]}, "RATING_BAND_OUT_OF_RANGE"),
        ({"rating_min": ["20"], "rating_max": ["10"]}, "RATING_BAND_OUT_OF_RANGE"),
        ({"table": ["aliens"]}, "INVALID_FILTER"),
        ({"players": ["many"]}, "INVALID_FILTER"),
    ],
)
def test_bad_filters_are_refused_with_stable_codes(query, code):
    with pytest.raises(FilterProblem) as refused:
        parse(query)
    assert refused.value.code == code


def test_an_undeclared_situation_is_refused(queries):
    with pytest.raises(FilterProblem) as refused:
        queries.explorer("condottiere", "no_such_situation", None, parse({}))
    assert refused.value.code == "UNKNOWN_SITUATION"


def test_a_cached_answer_lasts_until_a_game_of_its_own_engine_enters(tmp_path, monkeypatch):
    """Answers are cached keyed by their engine's stamp (service.fact_queries): a new Rio game
    leaves a cached Condottiere answer in use, a new Condottiere game makes it be counted again."""
    import service.fact_queries as fact_queries

    facts = FactStore(tmp_path)
    _append(facts)
    queries = FactQueries(lambda: facts)
    computed = []
    original = fact_queries._global

    def counting(*args, **kwargs):
        computed.append(args[1])
        return original(*args, **kwargs)

    monkeypatch.setattr(fact_queries, "_global", counting)
    humans = parse({"table": ["humans"]})
    assert queries.global_stats("condottiere", humans)["games"] == 3
    assert queries.global_stats("condottiere", humans)["games"] == 3
    assert computed == ["condottiere"]  # the second from the cache

    seat = ("r1", 0, "Eve", "eve", None, False, None, None, 1, True)
    rio = ("r1", datetime(2026, 3, 2), None, [], 1, ["Eve"], [0], ["Eve"], "score", False, False, 0, 1,
           None, None, 100, 0, 20)  # fmt: skip
    facts.append("rio_de_la_plata", "2026-03", "r1", {"games": [rio], "seats": [seat], "decisions": []})
    assert queries.global_stats("rio_de_la_plata", humans)["games"] == 1
    assert queries.global_stats("condottiere", humans)["games"] == 3
    assert computed == ["condottiere", "rio_de_la_plata"]  # Condottiere's still from the cache

    first = GAMES[0]
    one_more = [("g9", "2026-03-05", *first[2:])]
    monkeypatch.setattr(sys.modules[__name__], "GAMES", one_more)
    _append(facts)
    assert queries.global_stats("condottiere", humans)["games"] == 4
    assert computed == ["condottiere", "rio_de_la_plata", "condottiere"]
