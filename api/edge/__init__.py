"""The play edge: everything that serves moves and live streams faster than plain Flask,
and leans on the internals of gunicorn, gevent, Flask and its extensions to do so (the table
"Private APIs of dependencies" in docs/architecture.md lists each use). One job: carry the API's own
answers to and from the socket with less work, never decide one. What a move means and how it is
answered is :mod:`api.moves` (shared with the Flask route); the bytes of a stream's messages are
:mod:`api.sse` (shared with the routes' iterators).

- :mod:`api.edge.move_path`: ordinary moves answered in front of Flask (WSGI middleware);
- :mod:`api.edge.move_worker`: the gunicorn gevent worker that answers them from the parsed request;
- :mod:`api.edge.affinity`: that worker, placing each game's connections in one process;
- :mod:`api.edge.view_push`: view streams written straight to their sockets, and the hang-up watch;
- :mod:`api.edge.gunicorn_adapter`: the one module using gunicorn's internals, for the
  three above.

Why a subpackage of ``api`` rather than a top-level package: the edge is a transport of this API
(its routes' answers, rate-limit counters and problem documents) and the app factory composes it,
so a package beside ``api`` would import ``api`` and be imported by its factory. The Flask route
modules never import it (an import contract in pyproject.toml: only the app factory may): they reach
it through :class:`api.transport.Transport`, which :func:`install` gives the app at start-up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask, Response

from api.edge import affinity, view_push
from api.edge.move_path import MovePath
from api.transport import HangUpWatch, Transport
from service.cache import CachedGame
from service.games import GameService
from service.queries import StreamGrant


class EdgeTransport(Transport):
    """The routes' transport under this project's server: game placement from the game-affine
    worker, the hang-up watch on gunicorn's socket and, with ``push``, pushed view streams."""

    def __init__(self, push: bool):
        self.push = push

    def placement(self) -> Callable[[str], bool] | None:
        return affinity.placement()

    def hang_up_watch(self, environ: dict[str, Any], wake: Callable[[], None]) -> HangUpWatch:
        return view_push.HangUpWatch(environ.get("gunicorn.socket"), wake)

    def view_stream(
        self,
        body: Iterable[bytes],
        svc: GameService,
        game_id: str,
        grant: StreamGrant,
        known: int | None,
        heartbeat: float,
        current: CachedGame | None = None,
    ) -> Response:
        if not self.push:
            return super().view_stream(body, svc, game_id, grant, known, heartbeat, current)
        return view_push.PushedViewStream(body, svc, game_id, grant, known, heartbeat, current)


def install(app: Flask, cors_headers: Callable[[], Iterable[tuple[str, Any]]]) -> None:
    """Give ``app`` the edge (call last in the app factory, after every blueprint, the rate limits
    and CORS): the routes' transport (``VIEW_STREAM_PUSH``: pushed view streams) and, with
    ``MOVE_FAST_PATH``, the move fast path in front of the app's WSGI callable, which adds
    ``cors_headers()`` to its answers (what flask-cors adds to a request without Origin)."""
    app.extensions["transport"] = EdgeTransport(push=bool(app.config["VIEW_STREAM_PUSH"]))
    if app.config["MOVE_FAST_PATH"]:
        # Outside ProxyFix too: a move's answer depends on its token, never on the client's address.
        app.wsgi_app = MovePath(app, app.wsgi_app, list(cors_headers()))  # type: ignore[method-assign]
