"""What the routes ask of the server that carries them: the interface through which the
play edge (:mod:`api.edge`) serves them, given to the app at start-up (``create_app`` calls
``api.edge.install``, which puts its implementation in ``app.extensions["transport"]``). The routes
import this module, never the edge: a route reads the same answers whether the edge is there or not,
and only where it is can the server do better (place a game, watch a socket, push a view stream).

:class:`Transport` itself is the plain answer of any WSGI server, and what the routes use when no
edge was installed."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from flask import Response, current_app

if TYPE_CHECKING:
    from service.cache import CachedGame
    from service.games import GameService
    from service.queries import StreamGrant


class HangUpWatch(Protocol):
    """A live stream's watch on its client: ``gone`` once the client hung up (a context manager:
    leaving it stops the watch)."""

    gone: bool

    def __enter__(self) -> HangUpWatch: ...

    def __exit__(self, *exc: object) -> None: ...


class _NoWatch:
    """A watch that never fires: the stream learns of a vanished client at its next write."""

    gone = False

    def __enter__(self) -> _NoWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class Transport:
    """The plain transport (any WSGI server); the edge's subclass overrides what it does better."""

    def placement(self) -> Callable[[str], bool] | None:
        """Where this process would place a new game, as a test of its id; None: any id will do."""
        return None

    def hang_up_watch(self, environ: dict[str, Any], wake: Callable[[], None]) -> HangUpWatch:
        """A watch on the client of the stream that ``environ`` serves: once it hangs up, the watch
        turns ``gone`` and calls ``wake`` (which ends the stream's wait for news)."""
        return _NoWatch()

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
        """The response of a view stream whose messages ``body`` yields (the other arguments say
        which stream it is, for a server that writes its messages otherwise)."""
        return Response(body, mimetype="text/event-stream")


PLAIN = Transport()


def transport() -> Transport:
    """The running app's transport (the edge's, or the plain one)."""
    found: Transport = current_app.extensions.get("transport", PLAIN)
    return found
