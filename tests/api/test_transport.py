"""The Flask routes reach the play edge only through the transport the app factory gives them at
start-up (issue 29, item 1): ``api.transport``, which ``api.edge.install`` fills in. The import
contract "The play edge (api.edge) is imported only by the app factory" keeps the routes from
importing the edge; these tests check that they still get what they need, and from the transport."""

from __future__ import annotations

import zlib

from api.edge import EdgeTransport
from api.edge.move_path import MovePath
from api.transport import PLAIN, Transport
from tests.api.conftest import Table
from tests.api.sse import read_messages
from tests.api.test_view_stream import view_stream


class Recording(Transport):
    """The plain transport, noting what the routes ask of it; it places games on even CRC32s."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def placement(self):
        self.calls.append("placement")
        return lambda game_id: zlib.crc32(game_id.encode()) % 2 == 0

    def hang_up_watch(self, environ, wake):
        self.calls.append("hang_up_watch")
        return super().hang_up_watch(environ, wake)

    def view_stream(self, body, *args, **kwargs):
        self.calls.append("view_stream")
        return super().view_stream(body, *args, **kwargs)


def test_the_app_factory_gives_the_app_the_edge(app):
    assert isinstance(app.extensions["transport"], EdgeTransport)
    assert isinstance(app.wsgi_app, MovePath)  # MOVE_FAST_PATH's default


def test_a_new_game_is_placed_by_the_transport_the_route_was_given(app, client):
    recording = Recording()
    app.extensions["transport"] = recording
    for _ in range(4):  # each id drawn by chance would pass one time in two
        table = Table(client)
        assert zlib.crc32(table.id.encode()) % 2 == 0
    assert recording.calls.count("placement") == 4


def test_the_streams_ask_the_transport_for_their_response_and_their_hang_up_watch(app, client):
    table = Table(client)
    recording = Recording()
    app.extensions["transport"] = recording
    response = view_stream(client, table.id, headers=table.auth(0))
    first = next(view for view in read_messages(response.response) if view.event == "view")
    response.close()
    assert first.data["seat"] == 0
    assert recording.calls == ["view_stream"]
    events = client.get(f"/v1/games/{table.id}/stream", headers=table.auth(0), buffered=False)
    assert events.status_code == 200
    # The stream's first message is sent before it watches its client; its first events after.
    assert next(m for m in read_messages(events.response) if m.id is not None).id >= 1
    events.close()
    assert recording.calls == ["view_stream", "hang_up_watch"]


def test_without_an_edge_the_routes_use_the_plain_transport(app, client):
    del app.extensions["transport"]
    table = Table(client)
    response = view_stream(client, table.id, headers=table.auth(1))
    first = next(view for view in read_messages(response.response) if view.event == "view")
    response.close()
    assert first.data["seat"] == 1
    assert PLAIN.placement() is None
