"""The serving copy (store.fact_copy): each seats row carries its game's columns, so a seats file
joins its game's ``games`` file when it is added; a game whose seats file is written but not its
``games`` file (an append killed between the two: the ``games`` file is written last) is unseen,
and counted once, whole, when its retried append writes it."""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any

import pytest

from service.fact_queries import FactQueries
from service.filters import parse
from store import fact_copy
from store.facts import FactStore
from tests.facts import test_filters
from tests.facts.test_filters import _append
from tests.facts.test_rollups import _append_one


class _Killed(Exception):
    pass


def _killed_after_seats(step: str) -> None:
    if step == "facts_wrote_seats":
        raise _Killed(step)


def test_a_half_written_game_enters_a_players_figures_once_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    facts = FactStore(tmp_path)
    _append(facts)
    queries = FactQueries(lambda: facts)
    ann = parse({"player": ["Ann"]})

    def found() -> tuple[int, list[str]]:
        figures = queries.player_stats("condottiere", "Ann", parse({}))
        assert figures is not None
        return figures["games"], [game_id for _, game_id in queries.search("condottiere", ann, None, 50)]

    games, ids = found()
    first = test_filters.GAMES[0]  # Ann's
    monkeypatch.setattr(test_filters, "GAMES", [("g9", "2026-01-25", *first[2:])])
    half = FactStore(tmp_path)
    half.append = functools.partial(facts.append, passed=_killed_after_seats)  # type: ignore[method-assign]
    with pytest.raises(_Killed):
        _append(half)
    facts.touch("condottiere")  # its files changed: the copy is brought up to date
    assert found() == (games, ids)
    _append(facts)  # the retried append writes the game whole
    after_games, after_ids = found()
    assert after_games == games + 1
    assert sorted(after_ids) == sorted([*ids, "g9"])


@pytest.fixture()
def store_and_one_more(tmp_path: Path) -> FactStore:
    """The hand-made archive compacted, and one more game in its own files."""
    facts = FactStore(tmp_path)
    _append(facts)
    assert facts.compact() > 0
    _append_one(facts, "g6", "2026-02-20")
    return facts


def test_a_question_during_a_reload_answers_from_the_old_copy_without_waiting(
    store_and_one_more: FactStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a compaction the copy is loaded again in the background (minutes at a million games):
    a question asked meanwhile answers from the old copy at once, and the new copy, swapped in when
    loaded, answers with what came since."""
    queries = FactQueries(lambda: store_and_one_more, reload_wait=0)
    three = parse({"players": ["3"]})
    assert queries.global_stats("condottiere", three)["games"] == 2
    _append_one(store_and_one_more, "g7", "2026-03-10")
    assert store_and_one_more.compact() > 0  # the copy's files are gone: it is loaded again
    gate, loading = threading.Event(), threading.Event()
    load = fact_copy.load

    def gated(facts: FactStore, files: Any) -> Any:
        loading.set()
        assert gate.wait(120)  # held until the question below is answered
        return load(facts, files)

    monkeypatch.setattr(fact_copy, "load", gated)
    answered: list[int] = []
    asker = threading.Thread(
        target=lambda: answered.append(queries.global_stats("condottiere", three)["games"])
    )
    try:
        asker.start()
        asker.join(60)
        assert loading.is_set()
        assert answered == [2]  # the old copy's answer, while the new one is still loading
    finally:
        gate.set()
        asker.join(60)
    assert queries.settled(120)
    assert queries.global_stats("condottiere", three)["games"] == 3
