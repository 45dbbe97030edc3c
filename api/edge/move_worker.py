"""Moves answered from gunicorn's parsed request, in front of WSGI.

:class:`api.edge.move_path.MovePath` answers an ordinary move in front of Flask, but behind WSGI: for
each move gunicorn still builds the whole WSGI environ, a response object that checks every header,
and writes the head and the body in two ``send`` calls (two TCP segments the client reads apart).
In ``bench/http_bench.py``'s profile of a web worker that plumbing was about a tenth of its CPU, as
much as the move's own work besides the Redis round trip; a health request pays it too, so it
weighed on every move cycle's ratio to one.

:class:`MoveAnsweringWorker` is gunicorn's gevent worker that hands the parsed request of an
ordinary move (``POST /v1/games/<id>/moves``, HTTP/1.1, no query string, no ``Expect``) to
``MovePath.answer_parsed`` and writes the answer in one ``send``: the status line and the headers
gunicorn would write (``Server``, ``Date``, ``Connection``), then the same headers and body as the
WSGI path. Whatever ``MovePath`` would not answer itself goes through WSGI as before, with the body
it may have read put back; ``tests/api/test_move_worker.py`` sends the same requests to both paths
and compares the answers byte for byte. It keeps gunicorn's request accounting (``max_requests``,
keep-alive, ``Connection: close``) and its default ``pre_request`` hook's debug line, and steps
aside where gunicorn does more per request than it does: an access log, a hook of the operator's
(``pre_request`` or ``post_request``), a ``SCRIPT_NAME``.
Without the hot path (``MOVE_FAST_PATH`` off) every request goes through WSGI.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

import gevent

from api.edge.gunicorn_adapter import (
    GeventWorker,
    count_request,
    default_request_hooks,
    expects_100_continue,
    http_date,
    put_body_back,
)

if TYPE_CHECKING:
    from api.edge.move_path import MovePath

# The header values of an answer are the server's own (versions, fixed words), never a client's; a
# line break in one would still split the response, as gunicorn's own check refuses.
_LINE_BREAKS = frozenset("\r\n\0")


class MoveAnsweringWorker(GeventWorker):
    """Gunicorn's gevent worker, answering ordinary moves from the parsed request (module
    docstring)."""

    _moves: MovePath | None = None
    _pre_request: Any = None
    _keepalive = 0
    _date: tuple[int, str] = (0, "")

    def run(self) -> None:
        self._moves = self._move_path()
        # Read once: gunicorn's Config looks every setting up through __getattr__.
        self._pre_request = self.cfg.pre_request
        self._keepalive = self.cfg.keepalive
        super().run()

    def _move_path(self) -> MovePath | None:
        """The app's MovePath, when this worker may answer moves without WSGI."""
        from api.edge.move_path import MovePath  # here: gunicorn's master loads this class, not the app

        moves = getattr(self.wsgi, "wsgi_app", None)
        if not isinstance(moves, MovePath):
            return None
        if self.cfg.accesslog or not default_request_hooks(self.cfg) or "SCRIPT_NAME" in os.environ:
            return None
        return moves

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
        moves = self._moves
        if (
            moves is not None
            and req.method == "POST"
            and req.version == (1, 1)
            and not req.query
            and "%" not in req.path
            and not expects_100_continue(req)
        ):
            try:
                if self._answer_move(moves, req, sock):
                    return True
            except (gevent.GreenletExit, SystemExit):  # as GeventWorker.handle_request
                return None
        return super().handle_request(listener_name, req, sock, addr)

    def _answer_move(self, moves: MovePath, req: Any, sock: Any) -> bool:
        """Answer ``req`` if MovePath answers it; False (the body put back) to let WSGI answer."""
        answer, body = moves.answer_parsed(req.path, req.headers, req.body)
        if answer is None:
            if body is not req.body:
                put_body_back(req, body)  # read already: WSGI reads these bytes again
            return False
        self._pre_request(self, req)  # gunicorn's own (a debug line): WSGI's path runs it otherwise
        count_request(self)
        close = not self.alive or not self._keepalive or req.should_close()
        head = [
            f"HTTP/1.1 {moves.status_line(answer[0])}\r\nServer: gunicorn\r\nDate: {self._http_date()}\r\n"
            f"Connection: {'close' if close else 'keep-alive'}\r\n"
        ]
        for name, value in moves.response_headers(answer):
            if not _LINE_BREAKS.isdisjoint(value):
                raise ValueError(f"a line break in the value of {name}")
            head.append(f"{name}: {value}\r\n")
        head.append("\r\n")
        response = "".join(head).encode("latin-1") + answer[3]
        # One send takes a small answer whole; gevent's sendall would first ask the kernel for the
        # socket's buffer size (getsockopt), at every answer.
        sent = sock.send(response)
        if sent < len(response):
            sock.sendall(memoryview(response)[sent:])
        if close:
            raise StopIteration()  # gunicorn's loop closes the connection
        return True

    def _http_date(self) -> str:
        """gunicorn's Date header, formatted once a second rather than once a response."""
        now = int(time.time())
        if self._date[0] != now:
            self._date = (now, http_date(now))
        return self._date[1]
