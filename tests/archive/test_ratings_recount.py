"""The operator's recount (issue 32, "Recount"): ``python -m worker.ratings recount`` rebuilds every
rating from the archive to the incremental figures, repairs damaged ones, is idempotent, and runs
again when games enter the archive while it runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

from service import ratings as service_ratings
from service.aggregates import enter_archive
from store.archive import Archive
from store.ratings import RatingStore
from tests.archive.test_ratings import fill, snapshot_of_ratings, store_finished

ROOT = Path(__file__).resolve().parents[2]


def run_recount(url: str, *games: str) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "worker.ratings", "recount", "--url", url, *games],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return [orjson.loads(line) for line in done.stdout.splitlines()]


def test_the_recount_command_gives_the_incremental_figures_repairs_and_is_idempotent(
    redis_client, redis_server
):
    ids = fill(redis_client, 30)
    incremental = snapshot_of_ratings(redis_client)
    assert incremental, "the games were rated incrementally"

    (report,) = run_recount(redis_server.url, "condottiere")
    assert report == {
        "game": "condottiere",
        "rated": len(ids),
        "attempts": 1,
        "quiet": True,
        "changed": False,
    }
    assert snapshot_of_ratings(redis_client) == incremental

    # damage: a rating's figures, the leaderboard, a head-to-head count and a history
    redis_client.hset("archive:{archive}:rating:condottiere:a1", "mu", "99")
    redis_client.zadd("archive:{archive}:ratings:condottiere", {"a2": 1000.0})
    redis_client.delete(next(redis_client.scan_iter(match="archive:{archive}:h2h:condottiere:*")))
    redis_client.rpop("archive:{archive}:rating-history:condottiere:a3")
    assert snapshot_of_ratings(redis_client) != incremental

    reports = run_recount(redis_server.url)  # every engine
    by_game = {r["game"]: r for r in reports}
    assert by_game["condottiere"]["changed"] is True and by_game["condottiere"]["rated"] == len(ids)
    assert by_game["rio_de_la_plata"] == {
        "game": "rio_de_la_plata",
        "rated": 0,
        "attempts": 1,
        "quiet": True,
        "changed": False,
    }
    assert snapshot_of_ratings(redis_client) == incremental

    (again,) = run_recount(redis_server.url, "condottiere")
    assert again["changed"] is False and snapshot_of_ratings(redis_client) == incremental


def test_the_recount_command_refuses_an_unknown_game(redis_server):
    done = subprocess.run(
        [sys.executable, "-m", "worker.ratings", "recount", "--url", redis_server.url, "chess"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "unknown games chess" in done.stderr


LATE_SEATS: list[tuple[str, str | None]] = [("account", "a1"), ("account", "a2"), ("bot", "random")]


def late_game(client: Any) -> Any:
    return store_finished(client, "late", LATE_SEATS, 4242, "2026-11-30T12:00:00Z")


def test_a_game_entering_during_the_recount_makes_it_run_again(redis_client, monkeypatch):
    """A game enters the archive halfway through the rebuild (a1's rating already rebuilt, others
    not yet): rated from half-rebuilt figures, so the recount must run again; the second pass gives
    what the incremental updates give when that game enters last."""
    fill(redis_client, 30)
    enter_archive(Archive(redis_client), late_game(redis_client))
    reference = snapshot_of_ratings(redis_client)

    redis_client.flushall()
    fill(redis_client, 30)
    late = late_game(redis_client)
    real_rewrite = RatingStore.rewrite
    calls: list[str] = []

    def rewrite_then_enter(self: RatingStore, game_id: str, write: Any) -> None:
        real_rewrite(self, game_id, write)
        calls.append(game_id)
        if len(calls) == 10:  # once, in the first pass's middle
            enter_archive(Archive(self.redis), late)

    monkeypatch.setattr(RatingStore, "rewrite", rewrite_then_enter)
    done = service_ratings.recount_while_quiet(Archive(redis_client), "condottiere")
    assert (done.attempts, done.quiet, done.rated) == (2, True, 31)
    assert snapshot_of_ratings(redis_client) == reference


def test_a_recount_allowed_one_pass_says_it_was_not_quiet(redis_client, monkeypatch):
    """The same race with one attempt allowed: the figures are off and the report says so."""
    fill(redis_client, 30)
    enter_archive(Archive(redis_client), late_game(redis_client))
    reference = snapshot_of_ratings(redis_client)

    redis_client.flushall()
    fill(redis_client, 30)
    late = late_game(redis_client)
    real_rewrite = RatingStore.rewrite
    calls: list[str] = []

    def rewrite_then_enter(self: RatingStore, game_id: str, write: Any) -> None:
        real_rewrite(self, game_id, write)
        calls.append(game_id)
        if len(calls) == 10:
            enter_archive(Archive(self.redis), late)

    monkeypatch.setattr(RatingStore, "rewrite", rewrite_then_enter)
    done = service_ratings.recount_while_quiet(Archive(redis_client), "condottiere", attempts=1)
    assert (done.attempts, done.quiet) == (1, False)
    assert snapshot_of_ratings(redis_client) != reference
