"""What every blueprint shares: the Blueprint class (with the strict JSON parser), the service of
the running app, bearer tokens and fast JSON responses.

Blueprints of other areas (archive, jobs, stats) should use :class:`Blueprint` from here so their
request bodies get the same errors (415, MALFORMED_JSON, VALIDATION_ERROR)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import flask_smorest
import orjson
from flask import Response, current_app, request
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request
from werkzeug.exceptions import RequestEntityTooLarge

from api.problems import PROBLEM_MIME, ProblemError
from schemas.problems import ProblemSchema
from service import GameService

JSON_MIME = "application/json"


# Deepest JSON nesting a request body may have. A command or a configuration needs four levels;
# anything deep is refused before it reaches code that recurses over it (issue 8: the move's
# fingerprint, an orjson.dumps, failed with a 500 on a command nested 253 levels deep).
MAX_JSON_DEPTH = 32


def json_depth(value: Any) -> int:
    """The nesting depth of a parsed JSON value (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_JSON_DEPTH:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest


def read_body(req) -> bytes:
    """The request body, at most the request's limit (MAX_CONTENT_LENGTH; more for imports) however
    it is framed: werkzeug checks a Content-Length against the limit, but a chunked body has none
    (issue 8: 10 MB of chunked JSON were read whole), so the stream is read up to one byte past the
    limit and refused (413) when that byte exists."""
    limit = req.max_content_length
    cached = getattr(req, "_bounded_body", None)
    if cached is not None:
        return cached
    if req.content_length is not None and req.content_length > limit:
        raise RequestEntityTooLarge()
    data = b""
    stream = req.stream
    while len(data) <= limit:
        chunk = stream.read(limit + 1 - len(data))
        if not chunk:
            break
        data += chunk
    if len(data) > limit:
        raise RequestEntityTooLarge()
    req._bounded_body = data
    return data


class StrictJSONParser(FlaskParser):
    """Refuses oversized bodies (413, however framed), non-JSON bodies (415), malformed JSON (400)
    and JSON nested deeper than MAX_JSON_DEPTH (400), and parses with orjson, which also refuses
    what our storage cannot hold (NaN, lone surrogates)."""

    def _raw_load_json(self, req):
        data = read_body(req)
        if not is_json_request(req):
            raise ProblemError(
                415,
                "UNSUPPORTED_MEDIA_TYPE",
                "Unsupported media type",
                "Send the request body as application/json.",
            )
        if not data.strip():
            return core.missing
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError as err:
            raise ProblemError(
                400, "MALFORMED_JSON", "Malformed JSON", f"The body is not valid JSON: {err}"
            ) from None
        if json_depth(value) > MAX_JSON_DEPTH:
            raise ProblemError(
                400,
                "JSON_TOO_DEEP",
                "JSON nested too deeply",
                f"The body nests arrays and objects more than {MAX_JSON_DEPTH} levels deep.",
            )
        return value


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = StrictJSONParser()

    def problems(self, *statuses: int):
        """Document problem+json answers for ``statuses``."""

        def decorate(func):
            for status in statuses:
                func = self.alt_response(status, schema=ProblemSchema, content_type=PROBLEM_MIME)(func)
            return func

        return decorate


def service() -> GameService:
    return current_app.extensions["game_service"]


def bearer_token(required: bool = False) -> str | None:
    """The token of ``Authorization: Bearer <token>``; a malformed header is a 401 (never ignored:
    a client that thinks it acts for a seat must not silently get the spectator's view)."""
    header = request.headers.get("Authorization")
    if header is None:
        if required:
            raise ProblemError(
                401,
                "INVALID_TOKEN",
                "Missing or invalid seat token",
                "Send Authorization: Bearer <seat token>.",
                headers={"WWW-Authenticate": 'Bearer realm="seat"'},
            )
        return None
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 256:
        raise ProblemError(
            401,
            "INVALID_TOKEN",
            "Missing or invalid seat token",
            "Use Authorization: Bearer <seat token>.",
            headers={"WWW-Authenticate": 'Bearer realm="seat", error="invalid_token"'},
        )
    return token


def json_response(body: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    response = Response(orjson.dumps(body), status=status, mimetype=JSON_MIME)
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response
