"""Live updates over Server-Sent Events: per-viewer redaction, ``id:`` = version, resumable,
heartbeats, and the end of the stream when the game is over."""

from __future__ import annotations

import threading
import time

from tests.api.conftest import Table
from tests.api.sse import read_messages


def stream(client, game_id, headers=None, query=""):
    response = client.get(f"/v1/games/{game_id}/stream{query}", headers=headers or {}, buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-store"
    return response


def next_move(table: Table) -> tuple[int, dict] | None:
    """The seat to move and its first legal command, or None once the game is finished."""
    view = table.view(0)
    if view["status"] == "finished":
        return None
    seat = view["view"]["turn"]
    hand = table.view(seat)["view"]["hand"]
    return seat, {"type": "play", "card": hand[0]} if hand else {"type": "pass"}


def play_out(table: Table, delay: float = 0.0) -> None:
    while (move := next_move(table)) is not None:
        assert table.move(*move).status_code == 200
        time.sleep(delay)


def test_finished_game_streams_the_full_log_then_ends(client):
    table = Table(client, hand_size=2)
    play_out(table)
    messages = list(read_messages(stream(client, table.id).response))
    data = [m for m in messages if m.data is not None and m.event == "message"]
    assert [m.id for m in data] == list(range(1, 8))
    assert all(m.data["version"] == m.id for m in data)
    assert data[1].data["event"]["cards"] is not None  # a finished game's log is public
    assert messages[-1].event == "end" and messages[-1].data == {"status": "finished", "version": 7}


def test_live_stream_is_redacted_resumable_with_heartbeats_and_ends(client):
    table = Table(client, hand_size=3)
    hand0 = table.view(0)["view"]["hand"]
    response = stream(client, table.id, headers={**table.auth(1), "Last-Event-ID": "1"})
    mover = threading.Timer(0.5, play_out, args=(table, 0.05))
    mover.start()
    try:
        messages = list(read_messages(response.response))
    finally:
        mover.join()
    data = [m for m in messages if m.event == "message" and m.data is not None]
    assert [m.id for m in data] == list(range(2, 10))
    dealt_to_ann = data[0].data["event"]
    assert dealt_to_ann["type"] == "cards_dealt" and dealt_to_ann["cards"] is None
    assert any(m.comment == "heartbeat" for m in messages)
    assert messages[-1].event == "end"
    # Ann's cards reach Bob only when played (face up), never while she holds them.
    played_before_end = {m.data["event"].get("card") for m in data}
    assert set(hand0) <= played_before_end


def test_query_after_resumes_and_spectators_see_no_hand(client):
    table = Table(client, hand_size=2)
    response = stream(client, table.id, query="?after=1")
    messages = read_messages(response.response, stop=lambda m: m.id == 3)
    data = [m for m in messages if m.event == "message" and m.data is not None]
    response.close()
    assert [m.id for m in data] == [2, 3]
    assert all(m.data["event"]["cards"] is None for m in data)


def test_a_stream_opened_before_the_start_delivers_the_genesis(client):
    game_id = client.post("/v1/games", json={"game": "toy", "config": {"hand_size": 1}}).get_json()["id"]
    ann = client.post(f"/v1/games/{game_id}/seats", json={"name": "Ann"}).get_json()["token"]
    response = stream(client, game_id, headers={"Authorization": f"Bearer {ann}"})
    timer = threading.Timer(0.3, lambda: client.post(f"/v1/games/{game_id}/seats", json={"name": "Bob"}))
    timer.start()
    messages = read_messages(response.response, stop=lambda m: m.id == 3)
    data = [m for m in messages if m.data is not None and m.id is not None]
    response.close()
    timer.join()
    assert [m.id for m in data] == [1, 2, 3]
    assert data[1].data["event"]["cards"] is not None  # Ann's own cards
    assert data[2].data["event"]["cards"] is None  # Bob's
