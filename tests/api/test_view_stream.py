"""The per-seat view stream (GET /v1/games/{id}/view/stream): the viewer's whole view at once, then
after every change, resumable with Last-Event-ID, ending with the game; a seat's view reaches that
seat's stream only (hidden information), spectators get the spectator's view."""

from __future__ import annotations

import json
import threading

from tests.api.conftest import Table
from tests.api.sse import read_messages
from tests.api.test_stream import play_out


def view_stream(client, game_id, headers=None, query=""):
    response = client.get(f"/v1/games/{game_id}/view/stream{query}", headers=headers or {}, buffered=False)
    assert response.status_code == 200, response.get_data()
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-store"
    return response


def views(messages):
    return [m for m in messages if m.event == "view"]


def follow_while_playing(table: Table, headers=None, query=""):
    response = view_stream(table.client, table.id, headers=headers, query=query)
    mover = threading.Timer(0.3, play_out, args=(table, 0.02))
    mover.start()
    try:
        return list(read_messages(response.response))
    finally:
        mover.join()


def test_a_seat_gets_its_view_at_once_then_every_change_then_the_end(client):
    table = Table(client, hand_size=3)
    messages = follow_while_playing(table, headers=table.auth(1))
    got = views(messages)
    assert got[0].id == 3  # the view when the stream opened (after the genesis), before any move
    versions = [m.id for m in got]
    assert versions == sorted(set(versions)), "versions only grow, each sent once"
    assert all(m.data["version"] == m.id and m.data["seat"] == 1 for m in got)
    assert got[-1].data["status"] == "finished"
    assert got[-1].data == table.view(1)  # the last message is exactly GET /view's answer
    assert messages[-1].event == "end"
    # Bob (seat 1) had moves to make during the game: they reached him through the stream.
    assert any(1 in m.data["view"]["awaiting"] and m.data["view"]["legal_moves"] for m in got)


def test_a_seats_stream_never_carries_another_seats_hand(client):
    """Hidden information: Ann's hand (seat 0) is in no message of Bob's stream (seat 1) while she
    holds it, and each message is Bob's own view (his hand, his legal moves)."""
    table = Table(client, hand_size=4)
    ann_hand = set(table.view(0)["view"]["hand"])
    bob_hand = set(table.view(1)["view"]["hand"])
    messages = follow_while_playing(table, headers=table.auth(1))
    live = [m for m in views(messages) if m.data["status"] != "finished"]
    assert live
    for message in live:
        view = message.data["view"]
        assert set(view["hand"]) <= bob_hand
        still_hidden = ann_hand - set(view["players"][0]["played"])
        text = json.dumps(message.data)
        assert not [card for card in still_hidden if f'"{card}"' in text], text
        assert all("hand" not in player for player in view["players"])


def test_spectators_follow_the_spectators_view(client):
    table = Table(client, hand_size=2)
    hands = set(table.view(0)["view"]["hand"]) | set(table.view(1)["view"]["hand"])
    messages = follow_while_playing(table)
    live = [m for m in views(messages) if m.data["status"] != "finished"]
    assert live and all(m.data["seat"] is None for m in live)
    assert all("hand" not in m.data["view"] and "legal_moves" not in m.data["view"] for m in live)
    for message in live:
        face_up = {card for player in message.data["view"]["players"] for card in player["played"]}
        text = json.dumps(message.data)
        assert not [card for card in hands - face_up if f'"{card}"' in text], text
    assert views(messages)[-1].data == table.view()  # the finished game: the full view for everyone


def test_last_event_id_skips_the_view_the_client_already_holds(client):
    table = Table(client, hand_size=2)
    current = table.view(0)
    held = view_stream(client, table.id, headers={**table.auth(0), "Last-Event-ID": str(current["version"])})
    older = view_stream(client, table.id, headers={**table.auth(0), "Last-Event-ID": "1"})
    first_older = next(m for m in read_messages(older.response) if m.event == "view")
    older.close()
    timer = threading.Timer(0.3, play_out, args=(table, 0.02))
    timer.start()
    try:
        first_held = next(m for m in read_messages(held.response) if m.event == "view")
    finally:
        held.close()
        timer.join()
    assert first_older.id == current["version"]  # resumed from an older version: the current view
    assert first_held.id > current["version"]  # already held: only the next change


def test_a_stream_ticket_opens_the_view_stream_as_its_seat(client):
    table = Table(client, hand_size=2)
    ticket = client.post(f"/v1/games/{table.id}/stream-tickets", headers=table.auth(1)).get_json()["ticket"]
    response = view_stream(client, table.id, query=f"?ticket={ticket}")
    first = next(m for m in read_messages(response.response) if m.event == "view")
    response.close()
    assert first.data == table.view(1)
    again = client.get(f"/v1/games/{table.id}/view/stream?ticket={ticket}")
    assert again.status_code == 401  # single use


def test_bad_token_and_unknown_game_are_problems(client):
    table = Table(client, hand_size=2)
    bad = client.get(f"/v1/games/{table.id}/view/stream", headers={"Authorization": "Bearer cst_nope"})
    assert bad.status_code == 401 and bad.mimetype == "application/problem+json"
    missing = client.get("/v1/games/0000000000000000000000000/view/stream")
    assert missing.status_code == 404 and missing.mimetype == "application/problem+json"
    wrong = client.get(f"/v1/games/{table.id}/view/stream", headers={"Last-Event-ID": "x"})
    assert wrong.status_code == 422


def test_opening_a_stream_confirms_the_game_once(client, redis_client):
    """The request that authenticates the viewer confirms that the cached game is current (one
    HMGET of its status and version); the stream starts from that read, not from a second one."""
    from tests.redis_metrics import count_round_trips

    table = Table(client, hand_size=3)
    table.view(1)  # the game is in this process's cache
    with count_round_trips(redis_client) as trips:
        response = view_stream(client, table.id, headers=table.auth(1))
        first = next(m for m in read_messages(response.response) if m.event == "view")
    response.close()
    assert first.id == 3 and first.data == table.view(1)
    assert trips.names.count("HMGET") == 1, trips.commands
