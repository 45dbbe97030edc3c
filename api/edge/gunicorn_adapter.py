"""The one module of the product that uses gunicorn's private or undocumented internals (the adapter
rule; docs/architecture.md, "Private APIs of dependencies"). Tested with gunicorn 27.0
(pyproject.toml pins ``gunicorn>=27.0,<27.1``; tests/test_dependency_pins.py fails on another
version). What it uses, and why:

- the parsed request's ``req._expected_100_continue`` (``expects_100_continue``), and
  ``gunicorn.http.body.Body`` to put a body already read back (``put_body_back``); the worker's
  ``nr``/``alive``/``max_requests`` request accounting (``count_request``); the default
  ``pre_request``/``post_request`` hooks (``default_request_hooks``); ``GeventWorker``, whose
  ``handle_request`` and ``handle`` the edge's workers override (``api.edge.move_worker``,
  ``api.edge.affinity``): an ordinary move answered from gunicorn's parsed request in one ``send``,
  without a WSGI environ. Measured 1.14 (median B/A web CPU per move). Tests:
  tests/api/test_move_worker.py, tests/api/test_affinity.py.
- ``write.__self__.chunked``: the ``Response`` behind ``start_response``'s ``write``
  (``response_chunked``), so a pushed view stream frames its chunks as gunicorn would, written
  straight to the socket. Measured 1.13. Tests: tests/api/test_view_push.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gunicorn.config import PostRequest, PreRequest
from gunicorn.http.body import Body
from gunicorn.util import http_date
from gunicorn.workers.ggevent import GeventWorker

__all__ = [
    "GeventWorker",
    "count_request",
    "default_request_hooks",
    "expects_100_continue",
    "http_date",
    "put_body_back",
    "response_chunked",
]


def expects_100_continue(req: Any) -> bool:
    """Whether the parsed request sent ``Expect: 100-continue`` (gunicorn answers it itself)."""
    return bool(getattr(req, "_expected_100_continue", False))


def put_body_back(req: Any, body: Any) -> None:
    """Give the parsed request ``body`` (a readable of the bytes read already) as its body again,
    so gunicorn's WSGI path reads them."""
    req.body = Body(body)


def count_request(worker: GeventWorker) -> None:
    """Count one request as gunicorn's worker does: past ``max_requests`` it stops (autorestart)."""
    worker.nr += 1
    if worker.nr >= worker.max_requests and worker.alive:
        worker.log.info("Autorestarting worker after current request.")
        worker.alive = False


def default_request_hooks(cfg: Any) -> bool:
    """Whether the configuration keeps gunicorn's own ``pre_request`` and ``post_request``."""
    return cfg.pre_request is PreRequest.default and cfg.post_request is PostRequest.default


def response_chunked(write: Callable[..., Any]) -> bool | None:
    """Whether gunicorn's response behind ``start_response``'s ``write`` frames its body in
    chunks; None when ``write`` is not gunicorn's (another server, a middleware's wrapper)."""
    chunked = getattr(getattr(write, "__self__", None), "chunked", None)
    return chunked if isinstance(chunked, bool) else None
