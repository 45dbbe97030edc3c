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

from api.problems import PROBLEM_MIME, ProblemError
from schemas.problems import ProblemSchema
from service import GameService

JSON_MIME = "application/json"


class StrictJSONParser(FlaskParser):
    """Refuses non-JSON bodies (415) and malformed JSON (400), and parses with orjson, which also
    refuses what our storage cannot hold (NaN, lone surrogates, nesting beyond 1024)."""

    def _raw_load_json(self, req):
        data = req.get_data(cache=True)  # raises 413 past MAX_CONTENT_LENGTH
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
            return orjson.loads(data)
        except orjson.JSONDecodeError as err:
            raise ProblemError(
                400, "MALFORMED_JSON", "Malformed JSON", f"The body is not valid JSON: {err}"
            ) from None


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
