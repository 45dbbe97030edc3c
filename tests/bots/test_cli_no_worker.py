"""The terminal client when no RQ worker plays the bots (its own module: the other CLI tests run a
worker on the same Redis for the whole module)."""

from __future__ import annotations

import io
import threading
import time

from cli.client import ApiClient
from tests.bots.live import LiveServer


def test_play_hints_at_a_missing_bot_worker(redis_client, redis_server, monkeypatch):
    """SET-2: the bot holds the first token but no RQ worker plays bots: the terminal says why
    nothing happens instead of hanging silently."""
    import cli.play as cli_play

    monkeypatch.setattr(cli_play, "BOT_PATIENCE_SECONDS", 0.5)
    server = LiveServer(redis_server.url, worker=False)
    try:
        client = ApiClient(server.url)
        game_id = client.create_game({"players": 2, "first_condottiere": 1, "seed": 1}, bots={1: "random"})[
            "id"
        ]
        token = client.claim_seat(game_id, name="Ann", seat=0)["token"]
        out = io.StringIO()

        def play():
            try:
                cli_play.play_loop(client, game_id, token, out=out, read_line=lambda: "")
            except OSError:
                pass  # the server is stopped under it at the end of the test

        thread = threading.Thread(target=play, daemon=True)
        thread.start()
        # Wait for the hint, not for a fixed time: on a loaded machine the first view and the
        # patience both take longer than on a quiet one.
        deadline = time.monotonic() + 60
        while "Is it running?" not in out.getvalue() and thread.is_alive() and time.monotonic() < deadline:
            thread.join(timeout=0.1)
        assert "Is it running?" in out.getvalue()
    finally:
        server.stop()
    thread.join(timeout=10)
