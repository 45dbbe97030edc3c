"""The move's hot path: ``POST /v1/games/{id}/moves`` answered in front of Flask.

A move is the request a game server answers most, and in a gunicorn worker Flask's dispatch
(request context, URL matching, hooks, the response object) costs more than the move's own work
besides the Redis round trip. :class:`MovePath` wraps the app's WSGI callable and answers a move
itself when the request is the ordinary one: a ``Bearer`` token, an ``application/json`` body of a
known length that is a well-formed move, no query string and no ``Origin`` (a browser's request
needs the CORS answer Flask gives). Everything else (a malformed or oversized body, a bad header,
a CORS request...) goes to Flask untouched, which refuses it exactly as before; nothing has been
done by then but reading the body, which Flask reads again.

What it answers it answers with the route's own code: :func:`api.moves.answer_move` (the route
calls it too), the problem documents of :mod:`api.problem_docs`, and the seat's rate limit counted in
Flask-Limiter's own counters (:class:`api.ratelimit.SeatLimit`). With rate limits on, it answers
only a token the process knows as a seat's (its cached game): anything else, counted against the
client's address, is Flask's. ``tests/api/test_move_path.py``
sends the same requests through both paths and compares the answers byte for byte.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from flask import Flask
from werkzeug.http import HTTP_STATUS_CODES

from api.common import JSON_MIME, parse_bearer
from api.moves import answer_move, move_body
from api.problem_docs import (
    INTERNAL_ERROR_PROBLEM,
    PROBLEM_MIME,
    STORE_UNAVAILABLE_PROBLEM,
    ProblemError,
    as_problem,
    problem_body,
    too_many_requests,
)
from api.ratelimit import seat_limit
from service.errors import ServiceError
from store.errors import STORE_UNAVAILABLE

log = logging.getLogger(__name__)

# Flask's rule is /v1/games/<string:game_id>/moves, and the string converter takes anything but "/".
_MOVES = re.compile(r"/v1/games/([^/]+)/moves")

Answer = tuple[int, str, dict[str, str], bytes]
# The request headers an ordinary move's answer reads, named as gunicorn's parser names them, and
# their WSGI keys (``MovePath.answer_parsed``).
_READ_HEADERS = {
    "AUTHORIZATION": "HTTP_AUTHORIZATION",
    "CONTENT-LENGTH": "CONTENT_LENGTH",
    "CONTENT-TYPE": "CONTENT_TYPE",
    "IDEMPOTENCY-KEY": "HTTP_IDEMPOTENCY_KEY",
    "IF-MATCH": "HTTP_IF_MATCH",
    "ORIGIN": "HTTP_ORIGIN",
    "PREFER": "HTTP_PREFER",
    "TRANSFER-ENCODING": "HTTP_TRANSFER_ENCODING",
}
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class MovePath:
    """WSGI middleware: answers ordinary moves itself, passes every other request to ``wsgi_app``
    (see the module docstring)."""

    def __init__(self, app: Flask, wsgi_app: WSGIApp, cors_headers: Iterable[tuple[str, Any]] = ()):
        self.wsgi_app = wsgi_app
        # The CORS headers Flask adds to every answer of a request without Origin.
        self.cors_headers = [(name, str(value)) for name, value in cors_headers]
        self.service = app.extensions["game_service"]
        self.max_body = int(app.config.get("MAX_CONTENT_LENGTH") or 0)
        self.limit = seat_limit(app, "games.Moves")

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "POST":
            match = _MOVES.fullmatch(environ.get("PATH_INFO", ""))
            if match is not None:
                answer = self._answer(environ, match.group(1))
                if answer is not None:
                    start_response(self.status_line(answer[0]), self.response_headers(answer))
                    return [answer[3]]
        return self.wsgi_app(environ, start_response)

    @staticmethod
    def status_line(status: int) -> str:
        return f"{status} {HTTP_STATUS_CODES.get(status, '')}"

    def response_headers(self, answer: Answer) -> list[tuple[str, str]]:
        """The headers of ``answer`` as the app sends them (flask-cors's included)."""
        _, mimetype, headers, body = answer
        return [
            ("Content-Type", mimetype),
            ("Content-Length", str(len(body))),
            *headers.items(),
            *self.cors_headers,
        ]

    def answer_parsed(
        self, path: str, headers: Iterable[tuple[str, str]], body: Any
    ) -> tuple[Answer | None, Any]:
        """The answer to a ``POST`` of ``path`` (no query string, no percent-escape) given as an
        HTTP parser hands it over rather than as a WSGI environ: ``headers`` with upper-case names,
        ``body`` readable (``read(n)``) (``api.edge.move_worker``). None when the WSGI app must answer
        it; then the body it must read comes second (``body``, or its bytes once they were read)."""
        match = _MOVES.fullmatch(path)
        if match is None:
            return None, body
        environ: dict[str, Any] = {"REQUEST_METHOD": "POST", "PATH_INFO": path, "wsgi.input": body}
        for name, value in headers:
            key = _READ_HEADERS.get(name)
            if key is not None:
                if key in environ:  # sent twice: the WSGI server joins them, and Flask says what is wrong
                    return None, body
                environ[key] = value
        return self._answer(environ, match.group(1)), environ["wsgi.input"]

    def _answer(self, environ: dict[str, Any], game_id: str) -> Answer | None:
        """The answer to an ordinary move, or None to let Flask answer."""
        if environ.get("QUERY_STRING") or "HTTP_ORIGIN" in environ or "HTTP_TRANSFER_ENCODING" in environ:
            return None
        header = environ.get("HTTP_AUTHORIZATION")
        token = parse_bearer(header) if header is not None else None
        if token is None:
            return None
        # Only a token this process knows as a seat's: any other is counted against its address,
        # and its 401 among the address's failed checks, by Flask (api.ratelimit), behind ProxyFix.
        # An account token's entry is read once here; the move reuses the account it names.
        found = self.service.queries.cached_player(game_id, token) if self.limit is not None else None
        if found is None and self.limit is not None:
            return None
        seat, account = found if found is not None else (None, None)
        if environ.get("CONTENT_TYPE", "").partition(";")[0].strip().lower() != JSON_MIME:
            return None
        length = environ.get("CONTENT_LENGTH", "")
        if not length.isdigit() or not 0 < int(length) <= self.max_body:
            return None
        data = environ["wsgi.input"].read(int(length))
        body = move_body(data)
        if body is None:
            environ["wsgi.input"] = io.BytesIO(data)  # Flask reads it again and says what is wrong
            return None
        fields: dict[str, str] = {}  # the seat's rate-limit fields, on every answer once counted
        try:
            if self.limit is not None:
                assert seat is not None
                wait = self.limit.hit(game_id, seat)
                fields = self.limit.headers(game_id, seat)
                if wait is not None:
                    raise too_many_requests(wait)
            status, headers, encoded = answer_move(
                self.service,
                game_id,
                token,
                body,
                if_match=environ.get("HTTP_IF_MATCH"),
                idempotency_key=environ.get("HTTP_IDEMPOTENCY_KEY"),
                prefer=environ.get("HTTP_PREFER"),
                account=account,
            )
            return status, JSON_MIME, {**headers, **fields}, encoded
        except ServiceError as error:
            return _problem(as_problem(error), fields)
        except ProblemError as error:
            return _problem(error, fields)
        except STORE_UNAVAILABLE as error:
            # As api.problems.handle_store_unavailable: the move may have committed; never try again
            # here (only the client's retry with its Idempotency-Key can tell).
            log.error("store unavailable on POST %s: %s", environ.get("PATH_INFO"), error)
            return _problem(STORE_UNAVAILABLE_PROBLEM)
        except Exception:
            log.exception("unhandled error on POST %s", environ.get("PATH_INFO"))
            return _problem(INTERNAL_ERROR_PROBLEM)


def _problem(error: ProblemError, fields: Mapping[str, str] | None = None) -> Answer:
    body = problem_body(error.status, error.code, error.title, error.detail, **error.extra)
    return error.status, PROBLEM_MIME, {**error.headers, **(fields or {})}, body
