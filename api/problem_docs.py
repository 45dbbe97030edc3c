"""RFC 9457 problem documents as values, without Flask: the error a view or the move's decision
(:mod:`api.moves`) raises, and its encoded body. :mod:`api.problems` answers them in Flask; the move
fast path writes them itself, so both send the same bytes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from service.errors import ServiceError

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


def problem_body(status: int, code: str, title: str, detail: str | None = None, **extra: Any) -> bytes:
    """The encoded problem document (what :func:`api.problems.problem_response` sends, and a
    WSGI answer)."""
    body: dict[str, Any] = {"type": problem_type(code), "title": title, "status": status}
    if detail:
        body["detail"] = detail
    body["code"] = code
    body.update(extra)
    # Validation messages of list fields are keyed by index (ints): OPT_NON_STR_KEYS, or a 500.
    return orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)


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
    elif error.status == 429 and "retry_after" in error.extra:
        headers["Retry-After"] = str(error.extra["retry_after"])
    detail = error.message if error.message != error.title else None
    return ProblemError(status or error.status, error.code, error.title, detail, headers, **error.extra)
