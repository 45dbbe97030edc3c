"""RFC 9457 problem details for every error the API returns, including Flask's and webargs' own
(404/405/413/415/422...) and any unexpected exception (500, logged, never an HTML page). The
documents themselves are :mod:`api.problem_docs` (no Flask), whose names are re-exported here."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from flask import Response, current_app, request
from werkzeug.exceptions import HTTPException

from api.problem_docs import (
    HTTP_CODES,
    INTERNAL_ERROR_PROBLEM,
    PROBLEM_MIME,
    PROBLEM_TYPE_PREFIX,
    STORE_UNAVAILABLE_PROBLEM,
    ProblemError,
    as_problem,
    problem_body,
    problem_type,
    too_many_requests,
)
from service.errors import ServiceError
from store.errors import STORE_UNAVAILABLE

if TYPE_CHECKING:
    from flask import Flask
    from flask_limiter import Limiter

__all__ = [
    "HTTP_CODES",
    "INTERNAL_ERROR_PROBLEM",
    "PROBLEM_MIME",
    "PROBLEM_TYPE_PREFIX",
    "STORE_UNAVAILABLE_PROBLEM",
    "ProblemError",
    "as_problem",
    "problem_body",
    "problem_type",
    "too_many_requests",
    "problem_response",
    "from_problem_error",
    "from_service_error",
    "from_http_exception",
    "handle_store_unavailable",
    "handle_unexpected",
    "register",
    "retry_after_seconds",
]

log = logging.getLogger(__name__)


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


def from_problem_error(error: ProblemError) -> Response:
    return problem_response(error.status, error.code, error.title, error.detail, error.headers, **error.extra)


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
        return from_problem_error(too_many_requests(retry_after_seconds()))
    elif status == 422 and messages is not None:
        detail = "The request does not match the schema: see errors."
    elif status not in (500,) and error.description and not messages:
        detail = error.description
    return problem_response(status, code, title, detail, headers, **extra)


def retry_after_seconds() -> int:
    """Whole seconds until the limit that refused this request lets the client in again (>= 1).
    Here, not in :mod:`api.ratelimit` (which raises problems): it only reads Flask-Limiter's
    extension, and importing the limits from here made a circle."""
    limiter: Limiter | None = current_app.extensions.get("rate_limiter")
    breached = limiter.current_limit if limiter is not None else None
    if breached is None:
        return 1
    return max(1, math.ceil(breached.reset_at - time.time()))


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


def register(app: Flask) -> None:
    app.register_error_handler(ProblemError, from_problem_error)
    app.register_error_handler(ServiceError, from_service_error)
    app.register_error_handler(HTTPException, from_http_exception)
    # Connection trouble is not a bug of ours: 503 with Retry-After (a move either committed or
    # not; the client retries with its Idempotency-Key). Other store errors stay 500s.
    for error_class in STORE_UNAVAILABLE:
        app.register_error_handler(error_class, handle_store_unavailable)
    app.register_error_handler(Exception, handle_unexpected)
