"""Per-client rate limits on the routes that create work: game creation, seat claims, moves (and the
other seat actions) and job starts. Flask-Limiter counts in Redis (its own storage client on
``REDIS_URL``), so every web process shares the counters; a refusal is a 429 problem document with
``Retry-After``.

The client is the seat token on routes that authenticate it (a token that is not a seat's is refused
before any work, so inventing tokens buys no fresh budget there) and the address everywhere else:
on routes that never check a token, keying by it would let anyone mint budgets with made-up headers.
Tokens are hashed before they become keys, so Redis never holds one.

Job routes count only the requests that started (or joined) a job (answered 202): a statistics
read served from the cache costs nothing and is not counted.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, request
from flask_limiter import Limiter
from limits import parse_many

# Setting (app config key, environment variable of the same name) -> default. A value is one or more
# limits in Flask-Limiter's notation ("30/minute", "5/second;100/hour").
LIMIT_SETTINGS: dict[str, str] = {
    "RATE_LIMIT_CREATE": "60/minute",
    "RATE_LIMIT_CLAIM": "120/minute",
    "RATE_LIMIT_MOVE": "30/second",
    "RATE_LIMIT_SEAT_ACTION": "30/minute",
    "RATE_LIMIT_JOB": "30/minute",
}


KEY_PREFIX = "ratelimit"


@dataclass(frozen=True)
class RouteLimit:
    setting: str  # which LIMIT_SETTINGS entry applies (also the shared counter's scope)
    methods: tuple[str, ...]
    by_token: bool  # the route authenticates the bearer token: count per seat
    only_when: Callable | None = None  # count only responses for which this is true


def _job_started(response) -> bool:
    return response.status_code == 202


# Endpoint (blueprint.view) -> its limit. Endpoints missing from the app (optional blueprints) are
# skipped.
ROUTE_LIMITS: dict[str, RouteLimit] = {
    "games.Games": RouteLimit("RATE_LIMIT_CREATE", ("POST",), by_token=False),
    "games.Seats": RouteLimit("RATE_LIMIT_CLAIM", ("POST",), by_token=False),
    "games.Moves": RouteLimit("RATE_LIMIT_MOVE", ("POST",), by_token=True),
    "games.SeatToken": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("POST",), by_token=True),
    "games.Resign": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("POST",), by_token=True),
    "games.Abort": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("POST",), by_token=True),
    # Each ticket is a Redis key (30 s); a page asks for one per (re)connection of its stream.
    "games.StreamTickets": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("POST",), by_token=True),
    "archive.Verify": RouteLimit("RATE_LIMIT_JOB", ("POST",), by_token=False, only_when=_job_started),
    "archive.Exports": RouteLimit("RATE_LIMIT_JOB", ("POST",), by_token=True, only_when=_job_started),
    "archive.ArchiveImport": RouteLimit("RATE_LIMIT_JOB", ("POST",), by_token=False, only_when=_job_started),
    "archive.BulkExport": RouteLimit("RATE_LIMIT_JOB", ("POST",), by_token=False, only_when=_job_started),
    "archive.ObservationExport": RouteLimit(
        "RATE_LIMIT_JOB", ("POST",), by_token=False, only_when=_job_started
    ),
    "stats.GlobalStats": RouteLimit("RATE_LIMIT_JOB", ("GET",), by_token=False, only_when=_job_started),
    "stats.PlayerStats": RouteLimit("RATE_LIMIT_JOB", ("GET",), by_token=False, only_when=_job_started),
    "stats.GameStats": RouteLimit("RATE_LIMIT_JOB", ("GET",), by_token=False, only_when=_job_started),
}


def _address() -> str:
    return f"addr:{request.remote_addr or 'unknown'}"


def _token_or_address() -> str:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() == "bearer" and token:
        return seat_key(token)
    return _address()


def seat_key(token: str) -> str:
    return "seat:" + hashlib.sha256(token.encode()).hexdigest()[:32]


def _limit_provider(setting: str) -> Callable[[], str]:
    return lambda: current_app.config[setting]


def install(app: Flask) -> Limiter | None:
    """Wrap the limited endpoints of ``app`` (call after registering every blueprint)."""
    if not app.config.get("RATE_LIMITS_ENABLED", True):
        return None
    url = app.config.get("RATELIMIT_STORAGE_URI") or app.config.get("REDIS_URL")
    if not url:
        return None
    timeout = float(app.config["REDIS_SOCKET_TIMEOUT"])
    options: dict[str, Any] = {"socket_timeout": timeout, "socket_connect_timeout": timeout}
    service = app.extensions.get("game_service")
    if (
        url == app.config.get("REDIS_URL")
        and service is not None
        and url.startswith(("redis://", "rediss://"))
    ):
        # Count in the game service's bounded pool rather than a pool of its own: a web process then
        # holds at most REDIS_MAX_CONNECTIONS + 1 Redis connections (issue 12), limits included.
        options = {"connection_pool": service.store.connection_pool}
    limiter = Limiter(
        _address,
        key_prefix=KEY_PREFIX,
        app=app,
        storage_uri=url,
        storage_options=options,
        strategy=app.config.get("RATE_LIMIT_STRATEGY", "fixed-window"),
        # A refusal is ours to shape (api.problems): no X-RateLimit headers on every answer, which
        # would cost a second Redis round trip per request.
        headers_enabled=False,
    )
    for endpoint, spec in ROUTE_LIMITS.items():
        view = app.view_functions.get(endpoint)
        if view is None:
            continue
        app.view_functions[endpoint] = limiter.shared_limit(
            _limit_provider(spec.setting),
            scope=spec.setting.removeprefix("RATE_LIMIT_").lower(),
            key_func=_token_or_address if spec.by_token else _address,
            methods=list(spec.methods),
            deduct_when=spec.only_when,
        )(view)
    app.extensions["rate_limiter"] = limiter
    return limiter


def retry_after_seconds() -> int:
    """Whole seconds until the limit that refused this request lets the client in again (>= 1)."""
    limiter: Limiter | None = current_app.extensions.get("rate_limiter")
    breached = limiter.current_limit if limiter is not None else None
    if breached is None:
        return 1
    return max(1, math.ceil(breached.reset_at - time.time()))


class SeatLimit:
    """A per-seat route limit counted outside Flask (the WSGI hot path, :mod:`api.move_path`) in
    the very counters Flask-Limiter keeps for the route: the same storage, strategy and keys, so a
    seat's moves share one budget whichever path serves them."""

    def __init__(self, limiter: Limiter, setting: str, value: str):
        self.scope = setting.removeprefix("RATE_LIMIT_").lower()
        # Flask-Limiter checks a route's limits in this order and stops at the first breached.
        self.items = sorted(parse_many(value))
        self.strategy = limiter.limiter

    def hit(self, token: str) -> int | None:
        """Count one request of the seat of ``token``: None when it is allowed, else the whole
        seconds until the breached limit lets it in again (>= 1)."""
        identifiers = (KEY_PREFIX, seat_key(token), self.scope)
        for item in self.items:
            if not self.strategy.hit(item, *identifiers):
                reset_at = self.strategy.get_window_stats(item, *identifiers).reset_time
                return max(1, math.ceil(reset_at - time.time()))
        return None


def seat_limit(app: Flask, endpoint: str) -> SeatLimit | None:
    """The per-seat limit of ``endpoint`` for a caller outside Flask (None when limits are off)."""
    limiter: Limiter | None = app.extensions.get("rate_limiter")
    if limiter is None:
        return None
    spec = ROUTE_LIMITS[endpoint]
    if not spec.by_token or spec.only_when is not None:
        raise ValueError(f"{endpoint}: only a per-seat limit counted on every request is a SeatLimit")
    return SeatLimit(limiter, spec.setting, app.config[spec.setting])
