"""``condottiere ratings`` and ``condottiere h2h`` against a live test server (issue 32), on server
bot games entered into the archive (and rated) as the archive step enters them."""

from __future__ import annotations

import pytest

from service.aggregates import enter_archive
from store.archive import Archive
from tests.archive.test_ratings import store_finished
from tests.bots.live import LiveServer, run


@pytest.fixture()
def live(redis_client, redis_server):
    server = LiveServer(redis_server.url, worker=False)
    yield server
    server.stop()


def test_ratings_leaderboard_history_and_head_to_head(live, redis_client):
    server = ["--server", live.url]
    archive = Archive(redis_client)
    seats = [("bot", "heuristic"), ("bot", "random"), ("bot", "random")]
    winners = []
    for i in range(4):
        log = store_finished(redis_client, f"cli{i}", seats, 40 + i, f"2026-11-0{i + 1}T12:00:00Z")
        enter_archive(archive, log)
        winners.append(log.result["winners"])
    code, out = run(["ratings", "condottiere", *server])
    assert code == 0, out
    assert "2 rated players" in out and "bot:heuristic" in out and "bot:random" in out
    assert "4 games" in out and "?" in out  # provisional below 10 games
    code, out = run(["ratings", "condottiere", "--player", "bot:random", *server])
    assert code == 0 and out.count("cli") == 4 and "against bot:heuristic" in out
    code, out = run(["h2h", "bot:heuristic", "bot:random", *server])
    heuristic_ahead = sum(w == [0] for w in winners)
    assert code == 0 and f"condottiere: 4 games together; bot:heuristic ahead {heuristic_ahead}," in out
    code, out = run(["h2h", "bot:heuristic", "nobody", *server])
    assert code == 2
