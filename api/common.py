"""What every blueprint shares: the Blueprint class (with the strict JSON parser), the service of
the running app, bearer tokens and fast JSON responses.

Blueprints of other areas (archive, jobs, stats) should use :class:`Blueprint` from here so their
request bodies get the same errors (415, MALFORMED_JSON, VALIDATION_ERROR)."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar, cast, overload

import flask_smorest
import orjson
from flask import Request, Response, current_app, request
from webargs import core
from webargs.flaskparser import is_json_request
from werkzeug.exceptions import RequestEntityTooLarge

from api.problems import PROBLEM_MIME, ProblemError
from api.smorest_adapter import copy_apidoc
from api.webargs_adapter import BodyReaderParser
from schemas.common import MAX_JSON_DEPTH, integral_floats_as_ints, stream_id_ok, too_deep
from schemas.problems import ProblemSchema
from service import GameService
from service.archive import ArchiveService
from service.jobs import JobService
from service.stats import StatsService

JSON_MIME = "application/json"

_F = TypeVar("_F", bound=Callable[..., Any])


def read_body(req: Request) -> bytes:
    """The request body, at most the request's limit (MAX_CONTENT_LENGTH; more for imports) however
    it is framed: werkzeug checks a Content-Length against the limit, but a chunked body has none
    (10 MB of chunked JSON were read whole), so the stream is read up to one byte past the
    limit and refused (413) when that byte exists."""
    # create_app's DEFAULTS always set MAX_CONTENT_LENGTH (archive imports raise it): never None.
    limit = cast(int, req.max_content_length)
    cached = getattr(req, "_bounded_body", None)
    if cached is not None:
        return cast(bytes, cached)
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
    req._bounded_body = data  # type: ignore[attr-defined]  # the request's own cache of its body
    return data


def load_json_body(req: Request) -> Any:
    """The request's JSON body, as every route reads it (webargs through
    ``api.webargs_adapter.BodyReaderParser``, the move route directly). Refuses oversized bodies
    (413, however framed), non-JSON bodies (415), malformed JSON (400) and JSON nested deeper than
    MAX_JSON_DEPTH (400), and parses with orjson, which also refuses what our storage cannot hold
    (NaN, lone surrogates); an empty body is ``webargs.core.missing``."""
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
    if too_deep(data, value):
        raise ProblemError(
            400,
            "JSON_TOO_DEEP",
            "JSON nested too deeply",
            f"The body nests arrays and objects more than {MAX_JSON_DEPTH} levels deep.",
        )
    if isinstance(value, dict):
        for name in value:
            if name.lower() in TOKEN_PARAMETERS:
                raise token_not_in_header(f"request body ({name!r})")
    return integral_floats_as_ints(data, value)


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = BodyReaderParser(load_json_body)

    def problems(self, *statuses: int) -> Callable[[_F], _F]:
        """Document problem+json answers for ``statuses``."""

        def decorate(func: _F) -> _F:
            for status in statuses:
                func = self.alt_response(status, schema=ProblemSchema, content_type=PROBLEM_MIME)(func)
            return func

        return decorate

    def hot(
        self, parse: Callable[[], Any] | None = None
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Outermost decorator of a hot route's method: calls the undecorated method directly, with
        ``parse()``'s result in place of the parsed ``arguments``, and keeps the documentation the
        flask-smorest decorators below collected. Those decorators each wrap the call (about a dozen
        nested calls, each looking ``current_app`` up) and webargs runs the whole marshmallow load:
        about a fifth of a move's server CPU (a profile of the hot path). Only for methods that return a
        ``Response`` themselves (the response decorators then only document)."""

        def decorate(documented: Callable[..., Any]) -> Callable[..., Any]:
            method = inspect.unwrap(documented)
            if parse is None:

                def hot(*args: Any, **kwargs: Any) -> Any:
                    return method(*args, **kwargs)
            else:

                def hot(*args: Any, **kwargs: Any) -> Any:
                    return method(*args, parse(), **kwargs)

            functools.update_wrapper(hot, method)
            copy_apidoc(documented, hot)
            return hot

        return decorate


def service() -> GameService:
    """The running app's game service."""
    return cast(GameService, current_app.extensions["game_service"])


def jobs() -> JobService:
    """The running app's job service (``create_app`` builds it on the game service's store)."""
    return cast(JobService, current_app.extensions["job_service"])


def archive() -> ArchiveService:
    """The running app's archive service."""
    return cast(ArchiveService, current_app.extensions["archive_service"])


def stats() -> StatsService:
    """The running app's statistics service."""
    return cast(StatsService, current_app.extensions["stats_service"])


# RFC 6750 section 2.1: "Bearer", one or more spaces, then the token exactly as issued. Anything else
# (a tab, surrounding or inner whitespace, other characters) is refused rather than trimmed: the
# token a client sends is the token it gets compared with.
_BEARER = re.compile(r"^[Bb][Ee][Aa][Rr][Ee][Rr] +([A-Za-z0-9._~+/-]{1,256}=*)$")
_INVALID_TOKEN_HEADERS = {"WWW-Authenticate": 'Bearer realm="seat", error="invalid_token"'}

# Where clients mistakenly put a seat token. RFC 6750 allows a query parameter, but a token in a URL
# lands in logs, browser history and Referer headers, so this API refuses it loudly: silently
# ignoring it would hand the caller the spectator's view while it believes it acts for its seat.
TOKEN_PARAMETERS = ("token", "access_token", "seat_token", "bearer", "authorization")


def token_not_in_header(where: str) -> ProblemError:
    return ProblemError(
        400,
        "TOKEN_NOT_IN_HEADER",
        "A seat token goes in the Authorization header",
        f"Send the seat token as Authorization: Bearer <token>, not in the {where}.",
    )


def refuse_tokens_outside_header() -> None:
    """A ``before_request`` hook: 400 when the query string carries a token parameter."""
    for name in request.args:
        if name.lower() in TOKEN_PARAMETERS:
            raise token_not_in_header(f"query string ({name}=)")


@overload
def bearer_token(required: Literal[True]) -> str: ...
@overload
def bearer_token(required: bool = False) -> str | None: ...
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
    token = parse_bearer(header)
    if token is None:
        raise ProblemError(
            401,
            "INVALID_TOKEN",
            "Missing or invalid seat token",
            "Use Authorization: Bearer <seat token>, the token exactly as issued (no other whitespace).",
            headers=_INVALID_TOKEN_HEADERS,
        )
    return token


def parse_bearer(header: str) -> str | None:
    """The token of an ``Authorization`` header, None unless it is exactly ``Bearer <token>``."""
    match = _BEARER.match(header)
    return match.group(1) if match is not None else None


def json_response(body: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    response = Response(orjson.dumps(body), status=status, mimetype=JSON_MIME)
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


def feed_resume_point(not_one: str) -> str | None:
    """Where a stream over a feed resumes: its ``Last-Event-ID`` (an id the stream sent), None
    without one; any other id is a 422 whose header error says ``not_one``."""
    after = (request.headers.get("Last-Event-ID") or "").strip() or None
    if after is not None and not stream_id_ok(after):
        raise ProblemError(
            422,
            "VALIDATION_ERROR",
            "Invalid request",
            "Last-Event-ID must be an id this stream sent.",
            errors={"headers": {"Last-Event-ID": [not_one]}},
        )
    return after
