"""Pushed view streams: under gunicorn's gevent worker each seat's new view is written straight to
that stream's socket by whoever delivers the move.

A view stream served as a WSGI iterator costs, for every message, a wake of the stream's greenlet
(with a gevent ``Timeout`` for its heartbeat), a walk up werkzeug's and gunicorn's iterator wrappers
and gevent's ``sendall``: in a profile of the hot path about four times the view itself. Here whoever
delivers a move to the process's streams (the live reader, or the request that took the move:
``service.live.LiveHub.deliver_local``), right after the process's cached game holds it, computes
each local stream's view and writes it with one non-blocking ``os.write``. The stream's own
greenlet only wakes for what a push must not do: finish a write the socket's buffer could not
take whole (a slow reader gets the newest view next, as the iterator path would: every message is
a whole view), read Redis when the cache is behind, send heartbeats and the end.

The bytes on the wire are the iterator path's (tests/api/test_view_push.py compares them): the same
messages, one HTTP chunk each. Used only where it is safe: gunicorn's socket in the environ,
non-blocking at the OS level (gevent's sockets are), gunicorn's own response as the ``write``
callable ``start_response`` returns (its ``chunked`` says how to frame), and gevent's cooperative
threads (see ``cooperative_threads``). Elsewhere (the development
server, the test client, another WSGI server, a middleware wrapping ``start_response``) the same
response is served through its iterator.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import gevent
import gevent.socket
from flask import Response
from gevent.monkey import is_module_patched

from api.edge.gunicorn_adapter import response_chunked
from api.sse import END, HEARTBEAT, RETRY, revoked_message, view_message
from service.cache import CachedGame
from service.games import GameService
from service.queries import StreamGrant

log = logging.getLogger(__name__)


def cooperative_threads() -> bool:
    """Whether ``threading`` is gevent's (gunicorn.conf.py patches it for the gevent workers). The
    reader and a stream's greenlet then switch only where one of them blocks, which ``_Pusher``'s
    ``busy`` flag relies on; with real threads (gunicorn's gthread worker, say) the two could write
    at once, so the stream is served through its iterator."""
    return is_module_patched("threading")


def client_hung_up(sock: Any) -> bool:
    """Wait (this greenlet) until a stream's socket turns readable, then whether its client hung
    up. A stream's client sends nothing after its request, so its socket turns readable only when
    the client closes it, or sends its next request early, which is left in the socket for gunicorn
    (a one-byte ``MSG_PEEK`` tells the two apart). Without a watch a vanished client was noticed at
    the stream's next write, up to a heartbeat later, and held its subscription and its connection
    (which the workers' placement counts, api/edge/affinity.py) until then."""
    try:
        gevent.socket.wait_read(sock.fileno())
        return bool(sock.recv(1, socket.MSG_PEEK) == b"")
    except OSError:
        return True


class HangUpWatch:
    """The same watch for a stream served as an iterator (the event stream): where gunicorn's gevent
    socket is at hand, a greenlet waits for the client to hang up, then marks the stream ``gone``
    and calls ``wake`` (which ends the stream's wait for news). A context manager: leaving it stops
    the watch, before gunicorn reads the connection's next request."""

    def __init__(self, sock: Any, wake: Callable[[], None]):
        self.gone = False
        self._sock = sock if sock is not None and cooperative_threads() else None
        self._wake = wake
        self._watcher: gevent.Greenlet[[], None] | None = None

    def __enter__(self) -> HangUpWatch:
        if self._sock is not None:
            self._watcher = gevent.spawn(self._watch)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._watcher is not None:
            self._watcher.kill(block=False)

    def _watch(self) -> None:
        if client_hung_up(self._sock):
            self.gone = True
            self._wake()


class PushedViewStream(Response):
    """A view stream's response: pushed by the live reader where the server allows it (see the
    module docstring), else served through ``body``, the same stream as an iterator."""

    def __init__(
        self,
        body: Iterable[bytes],
        svc: GameService,
        game_id: str,
        grant: StreamGrant,
        known: int | None,
        heartbeat: float,
        current: CachedGame | None = None,
    ):
        super().__init__(body, mimetype="text/event-stream")
        self._stream = (svc, game_id, grant, known, heartbeat, current)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        sock = environ.get("gunicorn.socket")
        app_iter, status, headers = self.get_wsgi_response(environ)
        write = start_response(status, headers)
        chunked = response_chunked(write)
        if sock is None or chunked is None or os.get_blocking(sock.fileno()) or not cooperative_threads():
            return app_iter
        close = getattr(app_iter, "close", None)
        if close is not None:
            close()  # never started: the pushed stream replaces it
        svc, game_id, grant, known, heartbeat, current = self._stream
        _Pusher(svc, game_id, grant, sock, chunked, heartbeat).run(write, known, current)
        return []  # all written; gunicorn ends the response (the last chunk) and keeps the connection


class _Pusher:
    """One pushed stream. ``push`` runs on the greenlet that delivers a move (the live reader's, or
    the request's that took it) and never blocks; ``run`` on the stream's own greenlet. Under gevent
    all run on one thread and switch only where one of them blocks (a socket write that waits, a
    Redis read), so ``busy`` marks those spans: ``push`` then leaves the newest version to the
    stream's greenlet instead of writing in the middle of another message."""

    def __init__(
        self, svc: GameService, game_id: str, grant: StreamGrant, sock: Any, chunked: bool, heartbeat: float
    ):
        self.svc = svc
        self.game_id = game_id
        self.grant = grant
        self.sock = sock
        self.fd = sock.fileno()
        self.chunked = chunked
        self.heartbeat = heartbeat
        self.version = -1  # the newest view written (or being written)
        self.behind = -1  # a newer version the reader left to the greenlet
        self.remainder = b""  # framed bytes the socket did not take at once
        self.busy = True  # until the response's head is out: nothing may be written before it
        self.finished = False
        self.revoked: str | None = None  # why the stream's seat may no longer see its views
        self.failed = False
        self.last_write = time.monotonic()
        self.wake = threading.Event()
        # The account token that opened the stream, checked once per heartbeat (pushes or not).
        self.check = svc.queries.credential_check(grant, heartbeat)

    def frame(self, message: bytes) -> bytes:
        if self.chunked:
            return b"%X\r\n%s\r\n" % (len(message), message)
        return message

    def push(self, position: int) -> None:
        """The game has news up to ``position``: write the viewer's view now if it can be written
        without waiting, else leave it to the stream's greenlet."""
        if self.failed or self.finished or self.revoked or position <= self.version:
            return
        update = None
        if not self.busy and not self.remainder:
            update = self.svc.queries.cached_view_update(self.game_id, self.grant, position)
        if update is None:
            self.behind = max(self.behind, position)
            self.wake.set()
            return
        if update.revoked is not None:
            self.revoked = update.revoked  # the stream's greenlet says so and ends it
            self.wake.set()
            return
        message = view_message(update)
        # frame(), inline: this runs for every viewer at every move.
        data = b"%X\r\n%s\r\n" % (len(message), message) if self.chunked else message
        try:
            written = os.write(self.fd, data)
        except BlockingIOError:
            written = 0
        except OSError:  # the client went away
            self.failed = True
            self.wake.set()
            return
        self.version = update.version
        self.last_write = time.monotonic()
        if written < len(data):
            self.remainder = data[written:]
            self.wake.set()
        if update.status == "finished":
            self.finished = True
            self.wake.set()

    def _send(self, data: bytes) -> None:
        """A write that may wait (gevent's sendall), from the stream's greenlet only."""
        self.busy = True
        try:
            self.sock.sendall(data)
        finally:
            self.busy = False
        self.last_write = time.monotonic()

    def run(
        self, write: Callable[[bytes], Any], known: int | None, current: CachedGame | None = None
    ) -> None:
        subscription, first, cached = self.svc.queries.open_view_stream(
            self.game_id, self.grant, known, self.push, current
        )
        watcher = gevent.spawn(self._watch_client)
        with subscription, self.check.watching(self.wake.set):
            try:
                write(RETRY)  # gunicorn sends the head with it, and frames it as it decided
                if first is not None:
                    write(view_message(first))
                self.version = max(self.version, cached.version)
                self.finished = self.finished or cached.status == "finished"
                self.busy = False
                self.last_write = time.monotonic()
                self._follow()
            except OSError:
                self.failed = True  # the client went away; gunicorn sees the closed socket too
                raise
            finally:
                watcher.kill(block=False)  # before gunicorn reads the connection's next request

    def _watch_client(self) -> None:
        """End the stream as soon as its client hangs up (``client_hung_up``)."""
        if client_hung_up(self.sock):
            self.failed = True
            self.wake.set()

    def _follow(self) -> None:
        while not self.failed:
            if self.remainder:
                data, self.remainder = self.remainder, b""
                self._send(data)
            elif self.revoked is not None:
                self._send(self.frame(revoked_message(self.revoked)))
                return
            elif self.behind > self.version:
                self.busy = True  # a Redis read may switch to the reader
                try:
                    update = self.svc.queries.view_update_at_least(self.game_id, self.grant, self.behind)
                finally:
                    self.busy = False
                if update.revoked is not None:
                    self.revoked = update.revoked
                    continue
                self.version = update.version
                self.finished = update.status == "finished"
                self._send(self.frame(view_message(update)))
            elif self.finished:
                self._send(self.frame(END))
                return
            else:
                self.busy = True  # the check may read Redis, and so switch to the reader
                try:
                    revoked = self.check.due()
                finally:
                    self.busy = False
                if revoked is not None:
                    self.revoked = revoked
                    continue
                self.wake.clear()
                if (
                    self.remainder
                    or self.behind > self.version
                    or self.finished
                    or self.failed
                    or self.revoked is not None
                ):
                    continue  # set between the checks above and the clear
                idle = time.monotonic() - self.last_write
                if not self.wake.wait(self.check.bound(max(0.0, self.heartbeat - idle))):
                    if time.monotonic() - self.last_write >= self.heartbeat:
                        self._send(self.frame(HEARTBEAT))
