"""Replays of running games (issue 9): the request folds from the nearest checkpoint kept every
``CHECKPOINT_EVERY`` events instead of the whole log, its current version folds nothing, and the
answer is the one the full fold gives, redaction included."""

from __future__ import annotations

import random

import pytest

from games import get_game
from replays import core
from service.archive import CHECKPOINT_EVERY, ReplayCheckpoints
from store.game_logs import load_log

GAME = get_game("condottiere")


@pytest.fixture()
def running(app):
    """A running three-player Condottiere game (points match: long) of more than three checkpoint
    intervals, played with random legal moves; (game id, seat tokens)."""
    svc = app.extensions["game_service"]
    game_id = svc.create_game("condottiere", {"players": 3, "seed": 11, "options": {"points_target": 12}})[
        "id"
    ]
    tokens = [svc.claim_seat(game_id, name=name).token for name in ("Ann", "Bob", "Cid")]
    rng = random.Random(5)
    while True:
        _, cached = svc.viewer_seat(game_id, None)
        if cached.version > 3 * CHECKPOINT_EVERY + 10:
            break
        assert cached.status == "active", "the game ended too soon for this test"
        seat = rng.choice(GAME.awaiting(cached.state))
        move = rng.choice(GAME.legal_moves(cached.state, seat))
        svc.submit_command(game_id, tokens[seat], move)
    return game_id, tokens


def expected(redis_client, game_id: str, version: int | None, viewer) -> dict:
    log = load_log(redis_client, game_id)
    replay = core.replay_at(GAME, log.events, version, viewer, finished=False)
    return {"game_id": game_id, "prearranged": True, **replay}


def test_replay_of_a_running_game_equals_the_full_fold_at_every_version(client, redis_client, running):
    """Cold and then warm checkpoints, spectator and seat views (hands hidden from the spectator,
    OPT-HID/RL-10 hidden information unchanged): every answer is the full fold's."""
    game_id, tokens = running
    last = load_log(redis_client, game_id).version
    versions = [0, 1, CHECKPOINT_EVERY - 1, CHECKPOINT_EVERY, CHECKPOINT_EVERY + 1, 2 * CHECKPOINT_EVERY]
    versions += [last - 1, last, None, *random.Random(3).sample(range(last), 12)]
    for viewer, headers in ((None, {}), (1, {"Authorization": f"Bearer {tokens[1]}"})):
        for version in versions + versions[::-1]:  # the second pass reads the checkpoints
            query = "" if version is None else f"?version={version}"
            response = client.get(f"/v1/games/{game_id}/replay{query}", headers=headers)
            assert response.status_code == 200, response.get_json()
            assert response.get_json() == expected(redis_client, game_id, version, viewer), version
            assert response.headers["Cache-Control"] == "no-store"
    too_far = client.get(f"/v1/games/{game_id}/replay?version={last + 1}")
    assert too_far.status_code == 422 and too_far.get_json()["last_version"] == last


def test_replay_of_a_running_game_folds_at_most_one_checkpoint_interval(
    client, redis_client, running, monkeypatch
):
    """Once a fold passed them, checkpoints bound each request to CHECKPOINT_EVERY events (the
    whole log is neither read nor folded); the current version folds nothing."""
    game_id, _ = running
    last = load_log(redis_client, game_id).version
    assert client.get(f"/v1/games/{game_id}/replay?version={last - 1}").status_code == 200  # warms
    folded = []
    evolve = GAME.evolve
    monkeypatch.setattr(GAME, "evolve", lambda state, event: folded.append(1) or evolve(state, event))
    for version in random.Random(8).sample(range(last), 20):
        folded.clear()
        assert client.get(f"/v1/games/{game_id}/replay?version={version}").status_code == 200
        assert len(folded) < CHECKPOINT_EVERY, (version, len(folded))
    folded.clear()
    assert client.get(f"/v1/games/{game_id}/replay").get_json()["version"] == last
    assert folded == []


def test_replay_checkpoints_keep_at_most_their_size_least_recently_used_game_first():
    """The per-process checkpoint cache is bounded: a game's states go when the total passes the size."""
    kept = ReplayCheckpoints(every=2, size=5)
    for version in (2, 4, 6):
        kept.put("a", version, f"a{version}")
    for version in (2, 4):
        kept.put("b", version, f"b{version}")
    assert kept.nearest("a", 7) == (6, "a6") and kept.nearest("b", 5) == (4, "b4")
    kept.put("b", 6, "b6")  # six states: the least recently used game (a) goes
    assert kept.nearest("a", 7) == (0, None)
    assert kept.nearest("b", 100) == (6, "b6") and kept.nearest("b", 3) == (2, "b2")
