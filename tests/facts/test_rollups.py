"""The rollups (store.fact_rollups, service.rollup_queries): the filtered statistics and the explorer
answered from the pre-summed counts equal the answers from the raw facts, whether a game's counts
come from a compaction's rollup file or are summed from its own files; a compaction killed at any
instant leaves no game counted twice or missed; incremental rollups equal rebuilt ones byte for
byte."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from service.fact_queries import FactQueries
from service.filters import parse
from service.rollup_queries import rollup_where
from store.fact_rollups import ROLLUPS
from store.facts import FactStore
from tests.facts.test_filters import GAMES, _append

# Filters the rollups answer (ends of rating bands on multiples of 5, whole months)...
ROLLED = [
    {},
    {"players": ["3"]},
    {"players": ["2"], "table": ["humans"]},
    {"prearranged": ["true"]},
    {"table": ["bots"]},
    {"table": ["mixed"]},
    {"rating_min": ["10"]},
    {"rating_max": ["15"]},
    {"rating_min": ["10"], "rating_max": ["20"]},
    {"rating_min": ["10"], "players": ["2"]},
    {"finished_from": ["2026-02-01"]},
    {"finished_to": ["2026-01-31"]},
    {"finished_from": ["2026-02-01"], "finished_to": ["2026-02-28"], "prearranged": ["false"]},
    {"table": ["bots"], "players": ["3"]},  # nothing
]
# ...and some they do not (answered from the raw facts).
RAW = [
    {"player": ["Ann"]},
    {"rating_min": ["11"]},
    {"finished_from": ["2026-01-06"]},
    {"outcome": ["adjacent"]},
    {"rating_min": ["10"], "table": ["humans"]},  # a band with the table's kind
]


def _answers(queries: FactQueries, query) -> list:
    filters = parse(query)
    return [
        queries.global_stats("condottiere", filters),
        queries.explorer("condottiere", "opening_card", None, filters),
    ]


def _both(facts: FactStore, query) -> tuple[list, list]:
    rolled, raw = FactQueries(lambda: facts), FactQueries(lambda: facts, rollups=False)
    return _answers(rolled, query), _answers(raw, query)


@pytest.fixture()
def mixed_store(tmp_path):
    """The hand-made archive compacted (rollup files), and one more game in its own files (summed
    in memory)."""
    facts = FactStore(tmp_path)
    _append(facts)
    assert facts.compact() > 0
    assert any((tmp_path / rollup).rglob("c-*.parquet") for rollup in ROLLUPS)
    _append_one(facts, "g6", "2026-02-20")
    return facts


def _append_one(facts: FactStore, game_id: str, day: str) -> None:
    from tests.facts import test_filters

    original = test_filters.GAMES
    try:
        first = GAMES[3]  # a three-player game
        test_filters.GAMES = [(game_id, day, *first[2:])]
        _append(facts)
    finally:
        test_filters.GAMES = original


@pytest.mark.parametrize(
    "query", ROLLED, ids=lambda q: "&".join(f"{k}={v[0]}" for k, v in q.items()) or "none"
)
def test_the_rollups_answer_as_the_raw_facts(mixed_store, query):
    assert rollup_where(parse(query)) is not None
    rolled, raw = _both(mixed_store, query)
    assert rolled == raw
    assert rolled[0]["games"] == raw[0]["games"]


@pytest.mark.parametrize("query", RAW, ids=lambda q: "&".join(f"{k}={v[0]}" for k, v in q.items()))
def test_filters_the_rollups_lack_fall_back_to_the_raw_facts(mixed_store, query):
    assert rollup_where(parse(query)) is None
    rolled, raw = _both(mixed_store, query)
    assert rolled == raw


def test_the_rollups_count_a_compacted_game_once(mixed_store):
    """A rollup whose games file a later compaction merged is not counted besides the new one."""
    queries = FactQueries(lambda: mixed_store)
    assert queries.global_stats("condottiere", parse({"players": ["3"]}))["games"] == 2
    mixed_store.compact()
    assert queries.global_stats("condottiere", parse({"players": ["3"]}))["games"] == 2
    for rollup in ROLLUPS:
        assert len(list((mixed_store.root / rollup).rglob("*.parquet"))) == 3  # one a month


def test_a_game_entering_a_loaded_copy_is_summed_over_the_months_once(mixed_store):
    """The serving copy's all-months sums (questions without a date) take a game appended after the
    copy was loaded, once, as the monthly sums and the raw facts do."""
    queries = FactQueries(lambda: mixed_store)
    undated, dated = {"players": ["3"]}, {"players": ["3"], "finished_from": ["2026-01-01"]}
    assert _answers(queries, undated)[0]["games"] == 2
    _append_one(mixed_store, "g7", "2026-03-10")
    for query in (undated, dated, {}):
        rolled = _answers(queries, query)  # the same copy, the new game added to it
        assert rolled == _answers(FactQueries(lambda: mixed_store, rollups=False), query)
    assert _answers(queries, undated)[0]["games"] == 3
    assert _answers(queries, undated)[1]["decisions"] == _answers(queries, dated)[1]["decisions"]


def test_games_entering_a_loaded_copy_together_in_two_months_are_each_summed_once(mixed_store):
    """Games added to a loaded copy in one refresh (two months, one new to the copy) go to the
    all-months sums as their rows are, without regrouping: the questions sum a group's rows, so
    the answers are those of the raw facts."""
    queries = FactQueries(lambda: mixed_store)
    assert _answers(queries, {})[0]["games"] == 6
    _append_one(mixed_store, "g7", "2026-02-21")
    _append_one(mixed_store, "g8", "2026-04-02")
    for query in ({}, {"players": ["3"]}, {"table": ["humans"]}, {"rating_min": ["10"]}):
        assert _answers(queries, query) == _answers(FactQueries(lambda: mixed_store, rollups=False), query)
    assert _answers(queries, {})[0]["games"] == 8


def _compact_killed_at(root, point: str) -> int:
    code = (
        "import os, signal, sys\n"
        "from store.facts import FactStore\n"
        f"point = {point!r}\n"
        "def passed(step):\n"
        "    if step == point:\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        f"FactStore({str(root)!r}).compact(passed)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=os.getcwd(), capture_output=True, timeout=300)
    return done.returncode


@pytest.mark.parametrize(
    "point", ["facts_wrote_covers", "facts_merged", "facts_rolled_game_sums", "facts_rolled_name_sums"]
)
def test_a_compaction_killed_at_any_instant_counts_every_game_once(mixed_store, point):
    expected = _both(mixed_store, {})[1]
    assert _compact_killed_at(mixed_store.root, point) == -signal.SIGKILL
    for query in ({}, {"table": ["humans"]}):
        rolled, raw = _both(mixed_store, query)
        assert rolled == raw
    assert _both(mixed_store, {})[0] == expected
    mixed_store.compact()  # the next compaction finishes the work
    assert _both(mixed_store, {})[0] == expected
    for rollup in ROLLUPS:
        assert len(list((mixed_store.root / rollup).rglob("*.parquet"))) == 3


def test_incremental_rollups_equal_rebuilt_ones_byte_for_byte(tmp_path):
    """Appended, compacted, one more appended and compacted again: the same rollup bytes as all the
    games appended at once and compacted (what ``python -m worker.facts rebuild`` does)."""
    incremental = FactStore(tmp_path / "incremental")
    _append(incremental)
    incremental.compact()
    _append_one(incremental, "g6", "2026-02-20")
    incremental.compact()
    rebuilt = FactStore(tmp_path / "rebuilt")
    _append(rebuilt)
    _append_one(rebuilt, "g6", "2026-02-20")
    rebuilt.compact()

    def contents(facts: FactStore) -> dict:
        found = {}
        for path in sorted(facts.root.rglob("*.parquet")):
            key = str(path.relative_to(facts.root).parent)
            found[key] = path.read_bytes()
        return found

    left, right = contents(incremental), contents(rebuilt)
    assert set(left) == set(right) and any(key.startswith("explorer_sums") for key in left)
    assert left == right
