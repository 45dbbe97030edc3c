"""RFC 9457 problem details for every error the API returns, including Flask's and webargs' own
(404/405/413/415/422...) and any unexpected exception (500, logged, never an HTML page)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import orjson
from flask import Response, request
from werkzeug.exceptions import HTTPException

from service.errors import ServiceError
from store.errors import STORE_UNAVAILABLE

log = logging.getLogger(__name__)

PROBLEM_MIME = "application/problem+json"
PROBLEM_TYPE_PREFIX = "tag:condottiere-server,2026:problem:"

# Stable codes for Flask/werkzeug's own HTTP errors.
HTTP_CODES = {
    400: ("BAD_REQUEST", "Bad request"),
    401: ("UNAUTHORIZED", "Unauthorized"),
    403: ("FORBIDDEN", "Forbidden"),
    404: ("NOT_FOUND", "No such resource"),
    405: ("METHOD_NOT_ALLOWED", "Method not allowed"),
    406: ("NOT_ACCEPTABLE", "Not acceptable"),
    409: ("CONFLICT", "Conflict"),
    412: ("PRECONDITION_FAILED", "Precondition failed"),
    413: ("PAYLOAD_TOO_LARGE", "Request body too large"),
    415: ("UNSUPPORTED_MEDIA_TYPE", "Unsupported media type"),
    422: ("VALIDATION_ERROR", "Invalid request"),
    428: ("PRECONDITION_REQUIRED", "Precondition required"),
    429: ("TOO_MANY_REQUESTS", "Too many requests"),
    500: ("INTERNAL_ERROR", "Internal server error"),
    503: ("SERVICE_UNAVAILABLE", "Service unavailable"),
}


class ProblemError(Exception):
    """Raise anywhere in a view to answer with a problem document."""

    def __init__(
        self,
        status: int,
        code: str,
        title: str,
        detail: str | None = None,
        headers: Mapping[str, str] | None = None,
        **extra: Any,
    ):
        super().__init__(detail or title)
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.headers = dict(headers or {})
        self.extra = extra


def problem_type(code: str) -> str:
    return PROBLEM_TYPE_PREFIX + code


def problem_response(
    status: int,
    code: str,
    title: str,
    detail: str | None = None,
    headers: Mapping[str, str] | None = None,
    **extra: Any,
) -> Response:
    response = Response(
        problem_body(status, code, title, detail, **extra), status=status, mimetype=PROBLEM_MIME
    )
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


def problem_body(status: int, code: str, title: str, detail: str | None = None, **extra: Any) -> bytes:
    """The encoded problem document (what :func:`problem_response` sends, for a WSGI answer too)."""
    body: dict[str, Any] = {"type": problem_type(code), "title": title, "status": status}
    if detail:
        body["detail"] = detail
    body["code"] = code
    body.update(extra)
    # Validation messages of list fields are keyed by index (ints): OPT_NON_STR_KEYS, or a 500.
    return orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)


def from_problem_error(error: ProblemError) -> Response:
    return problem_response(error.status, error.code, error.title, error.detail, error.headers, **error.extra)


def too_many_requests(wait: int) -> ProblemError:
    """The 429 of a rate limit that lets the client in again in ``wait`` whole seconds."""
    return ProblemError(
        429,
        HTTP_CODES[429][0],
        HTTP_CODES[429][1],
        f"Too many requests from this client: retry in {wait} s.",
        {"Retry-After": str(wait)},
        retry_after=wait,
    )


STORE_UNAVAILABLE_PROBLEM = ProblemError(
    503, "STORE_UNAVAILABLE", "The game store is unavailable", "Retry shortly.", {"Retry-After": "1"}
)
INTERNAL_ERROR_PROBLEM = ProblemError(500, "INTERNAL_ERROR", "Internal server error")


def as_problem(error: ServiceError, status: int | None = None) -> ProblemError:
    """The problem document of a service error, answered with ``status`` instead of the error's own
    when a view knows better (a version conflict on a version pinned by If-Match is a 412)."""
    headers = {}
    if error.status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="seat"'
    elif error.status == 503:
        headers["Retry-After"] = "1"
    detail = error.message if error.message != error.title else None
    return ProblemError(status or error.status, error.code, error.title, detail, headers, **error.extra)


def from_service_error(error: ServiceError) -> Response:
    return from_problem_error(as_problem(error))


def from_http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    code, title = HTTP_CODES.get(status, (f"HTTP_{status}", error.name))
    extra: dict[str, Any] = {}
    headers: dict[str, str] = {}
    data = getattr(error, "data", None) or {}
    messages = data.get("errors") or data.get("messages")
    if messages is not None:
        extra["errors"] = messages
    if data.get("headers"):
        headers.update(data["headers"])
    if status == 405:
        for key, value in error.get_headers():
            if key.lower() == "allow":
                headers["Allow"] = value
    if status == 404 and not request.path.startswith("/v1") and _wants_html():
        import web

        return web.not_found_page()
    detail = None
    if status == 413:
        limit = request.max_content_length
        detail = f"The request body exceeds {limit} bytes." if limit else None
    elif status == 429:
        from api.ratelimit import retry_after_seconds

        return from_problem_error(too_many_requests(retry_after_seconds()))
    elif status == 422 and messages is not None:
        detail = "The request does not match the schema: see errors."
    elif status not in (500,) and error.description and not messages:
        detail = error.description
    return problem_response(status, code, title, detail, headers, **extra)


def _wants_html() -> bool:
    """A browser asking for a page (Accept: text/html first), not an API client."""
    accept = request.accept_mimetypes
    return accept.accept_html and accept.quality("text/html") > accept.quality("application/json")


def handle_store_unavailable(error: Exception) -> Response:
    log.error("store unavailable on %s %s: %s", request.method, request.path, error)
    return from_problem_error(STORE_UNAVAILABLE_PROBLEM)


def handle_unexpected(error: Exception) -> Response:
    log.exception("unhandled error on %s %s", request.method, request.path)
    return from_problem_error(INTERNAL_ERROR_PROBLEM)


def register(app) -> None:
    app.register_error_handler(ProblemError, from_problem_error)
    app.register_error_handler(ServiceError, from_service_error)
    app.register_error_handler(HTTPException, from_http_exception)
    # Connection trouble is not a bug of ours: 503 with Retry-After (a move either committed or
    # not; the client retries with its Idempotency-Key). Other store errors stay 500s.
    for error_class in STORE_UNAVAILABLE:
        app.register_error_handler(error_class, handle_store_unavailable)
    app.register_error_handler(Exception, handle_unexpected)
