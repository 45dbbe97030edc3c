"""Soak test of the API with the simulator: many bot games at once through the real HTTP API
(localhost, bounded in count and time). Every response is checked (no 5xx), every game must finish,
and every finished log must verify through the rules with its fold equal to the stored snapshot."""

from __future__ import annotations

import threading

import pytest
import requests

from cli.client import ApiClient
from cli.simulate import simulate_http
from games import get_game
from games.base import fold
from service import GameService, composition

GAMES = 12
CONCURRENCY = 6


class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.statuses: dict[int, int] = {}
        self.server_errors: list[str] = []

    def hook(self, response, *args, **kwargs):
        with self.lock:
            self.statuses[response.status_code] = self.statuses.get(response.status_code, 0) + 1
            if response.status_code >= 500:
                self.server_errors.append(f"{response.request.method} {response.url}: {response.text[:300]}")

    def client_factory(self, url):
        def make():
            session = requests.Session()
            session.hooks["response"].append(self.hook)
            return ApiClient(url, session=session)

        return make


def assert_fold_equals_snapshot(service: GameService, game_id: str) -> None:
    stored = service.store.load(game_id)
    events = [entry.event for entry in service.store.read_events(game_id, after=0, limit=1_000_000)]
    game = get_game(stored.meta["game"])
    assert stored.snapshot["version"] == len(events)
    assert game.state_to_json(fold(game, events)) == stored.snapshot["state"]


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    "config, lineup, server_bots",
    [
        ({"ruleset": "2006"}, ["heuristic", "random", "random", "random"], False),
        ({"ruleset": "classic", "options": {"capturing": True}}, ["heuristic", "heuristic", "random"], False),
        (
            {"ruleset": "2006", "options": {"hidden_cards": True, "draw_after_battle": True}},
            ["heuristic", "random", "heuristic", "random", "random"],
            False,
        ),
        (
            {"ruleset": "2006", "options": {"capturing": True}},
            ["heuristic", "random", "heuristic", "random"],
            True,
        ),
    ],
    ids=["2006-client-bots", "classic-capturing", "hidden-draw-5p", "server-bots"],
)
def test_soak_concurrent_bot_games_through_the_api(live, redis_server, config, lineup, server_bots):
    """VIC-1, CL-2, OPT-CAP-1, OPT-HID-1, OPT-DRAW-1: concurrent bot games through the API finish,
    without a single 5xx, and their logs verify."""
    recorder = Recorder()
    records = simulate_http(
        live.url,
        "condottiere",
        config,
        lineup,
        GAMES if not server_bots else 6,
        seed=7,
        concurrency=CONCURRENCY,
        server_bots=server_bots,
        verify=True,
        timeout=300,
        client_factory=recorder.client_factory(live.url),
    )
    assert not recorder.server_errors, recorder.server_errors[:5]
    assert all(record.winners or record.reason for record in records)
    service = composition.game_service_at(redis_server.url)
    for record in records:
        summary = service.get_summary(record.game_id)
        assert summary["status"] == "finished"
        assert_fold_equals_snapshot(service, record.game_id)
    # Client-side bots make at least one request per move; server bots only follow the stream.
    if not server_bots:
        assert sum(count for status, count in recorder.statuses.items() if status < 400) > len(records) * 20
