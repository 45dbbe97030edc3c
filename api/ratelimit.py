"""Per-client rate limits on the routes that create work: game creation, seat claims, moves (and the
other seat actions) and job starts. Flask-Limiter counts in Redis (its own storage client on
``REDIS_URL``), so every web process shares the counters; a refusal is a 429 problem document with
``Retry-After``.

This is also Flask-Limiter's adapter, the one module of the product that relies on its internals
(the adapter rule; docs/architecture.md, "Private APIs of dependencies"), tested with
Flask-Limiter 4.1 (pyproject.toml pins ``flask-limiter[redis]>=4.1,<4.2``;
tests/test_dependency_pins.py fails on another version): :class:`SeatLimit` rebuilds the key a
shared limit is counted under (``key_prefix``, key, ``scope``) outside Flask, and reads the
limiter's strategy (``Limiter.limiter``), so the move fast path (``api.edge.move_path``, through
:func:`seat_limit`) counts a seat's moves in the very counters Flask-Limiter keeps for the route.
Why: it lets the fast path answer moves under rate limits (the whole fast path measured 1.92 and
1.72, B/A web CPU per move). Tests: tests/api/test_rate_limits.py.

The client is the seat on routes that authenticate a seat token, when this process knows the token
as that seat's (its cached copy of the game: no Redis read), and the address everywhere else. Keyed
by the seat rather than by the token, a rotation buys no fresh budget (150 rotations in
2.3 s, each a new token with a new budget); keyed by the address when the token is not known, a
made-up token per request buys none either (60 moves, each with a new made-up token, were
never limited). Redis never holds a token: keys name the game and the seat.

Failed credential checks are counted too (``RATE_LIMIT_TOKEN_FAILURE``, per address): a request that
presents a token this process does not know as a seat's, a stream ticket or a device link's code, is
refused with 429 once the address has failed that often, before anything is checked, and its 401 is
counted. A token the
process knows is never held up by it (nor does it cost the check's round trip), so a guesser behind
the same address as real players locks out only other unknown tokens.

Job routes count only the requests that started (or joined) a job (answered 202): a statistics
read served from the cache costs nothing and is not counted.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import orjson
from flask import Flask, Response, current_app, g, request
from flask.typing import RouteCallable
from flask_limiter import Limiter
from limits import parse_many

from api.common import parse_bearer
from api.problems import too_many_requests

# Setting (app config key, environment variable of the same name) -> default. A value is one or more
# limits in Flask-Limiter's notation ("30/minute", "5/second;100/hour").
LIMIT_SETTINGS: dict[str, str] = {
    "RATE_LIMIT_CREATE": "60/minute",
    "RATE_LIMIT_CLAIM": "120/minute",
    "RATE_LIMIT_MOVE": "30/second",
    "RATE_LIMIT_SEAT_ACTION": "30/minute",
    "RATE_LIMIT_JOB": "30/minute",
    # Device links made per seat: each is a Redis key for ten minutes and a code that moves the seat.
    "RATE_LIMIT_DEVICE_LINK": "5/minute;30/hour",
    # Token guesses (any route: a view, a stream, a move), ticket and device-link code guesses, per
    # address.
    "RATE_LIMIT_TOKEN_FAILURE": "10/second;60/minute",
    # Accounts. Sign-in attempts are counted per address; failed sign-ins per (handle, address),
    # tightly, and per handle only as a slow-down (:class:`SignInFailures`): handles are public, so a
    # per-handle lockout would let anyone lock an owner out.
    "RATE_LIMIT_SIGN_UP": "20/hour",
    "RATE_LIMIT_SIGN_IN": "10/minute;100/hour",
    "RATE_LIMIT_SIGN_IN_FAILURE": "5 per 15 minutes",
    "RATE_LIMIT_SIGN_IN_HANDLE": "10/minute;100/hour",
}


KEY_PREFIX = "ratelimit"


@dataclass(frozen=True)
class RouteLimit:
    setting: str  # which LIMIT_SETTINGS entry applies (also the shared counter's scope)
    methods: tuple[str, ...]
    by_token: bool  # the route authenticates the bearer token: count per seat
    only_when: Callable[[Response], bool] | None = None  # count only responses for which this is true


def _job_started(response: Response) -> bool:
    return response.status_code == 202


# Endpoint (blueprint.view) -> its limit. Endpoints missing from the app (optional blueprints) are
# skipped.
ROUTE_LIMITS: dict[str, RouteLimit] = {
    "games.Games": RouteLimit("RATE_LIMIT_CREATE", ("POST",), by_token=False),
    "games.Seats": RouteLimit("RATE_LIMIT_CLAIM", ("POST",), by_token=False),
    "seeks.Seeks": RouteLimit("RATE_LIMIT_CLAIM", ("POST",), by_token=False),  # anonymous ones too
    "games.Moves": RouteLimit("RATE_LIMIT_MOVE", ("POST",), by_token=True),
    "games.SeatToken": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("POST",), by_token=True),
    "games.Resign": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("POST",), by_token=True),
    "games.Abort": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("POST",), by_token=True),
    "games.Seat": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("DELETE",), by_token=True),
    "games.Rematch": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("POST",), by_token=True),
    "accounts.UpgradeToBot": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("POST",), by_token=True),
    # Each ticket is a Redis key (30 s); a page asks for one per (re)connection of its stream.
    "games.StreamTickets": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("POST",), by_token=True),
    "games.DeviceLinks": RouteLimit("RATE_LIMIT_DEVICE_LINK", ("POST",), by_token=True),
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
    "accounts.Accounts": RouteLimit("RATE_LIMIT_SIGN_UP", ("POST",), by_token=False),
    "accounts.Sessions": RouteLimit("RATE_LIMIT_SIGN_IN", ("POST",), by_token=False),
    # No game in these paths: counted per address (an account token is not a seat's known here).
    "accounts.Tokens": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("POST",), by_token=True),
    "accounts.Password": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("POST",), by_token=True),
    "accounts.Me": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("DELETE",), by_token=True),  # password guesses
    "accounts.AccountSeatToken": RouteLimit("RATE_LIMIT_SEAT_ACTION", ("POST",), by_token=True),
}

# Endpoints whose request body carries a one-time code to check: their failures (401) count as token
# guesses of the address.
CODE_REDEMPTIONS = frozenset({"games.RedeemDeviceLink"})

# A second limit on an endpoint, counted per what its key function names (endpoint -> setting, key).
KEYED_LIMITS: dict[str, tuple[str, Callable[[], str]]] = {}


def _address() -> str:
    return address_key(request.remote_addr)


def address_key(address: str | None) -> str:
    return f"addr:{address or 'unknown'}"


def seat_key(game_id: str, seat: int) -> str:
    return f"seat:{game_id}:{seat}"


def known_seat(game_id: str | None, token: str | None) -> int | None:
    """The seat of ``game_id`` whose token ``token`` is, as this process's copy of the game knows
    it (no Redis read); None when it does not (unknown token, game not cached here)."""
    if not game_id or not token:
        return None
    seat: int | None = current_app.extensions["game_service"].queries.cached_seat(game_id, token)
    return seat


def _request_token() -> str | None:
    header = request.headers.get("Authorization")
    return parse_bearer(header) if header is not None else None


def _request_seat() -> int | None:
    """The seat this request's token is known to be (cached once per request)."""
    if "known_seat" not in g:
        game_id = (request.view_args or {}).get("game_id")
        g.known_seat = known_seat(game_id, _request_token())
    seat: int | None = g.known_seat
    return seat


def _seat_or_address() -> str:
    seat = _request_seat()
    if seat is None:
        return _address()
    return seat_key(request.view_args["game_id"], seat)  # type: ignore[index]


def _presents_unknown_credential() -> bool:
    """Whether this request presents a credential to check that is not a token known here: a
    ``Bearer`` header (well formed or not) whose token is not a seat's known to this process, a
    stream ticket, or a device link's code (its redemption needs no token: the code is one)."""
    if request.args.get("ticket") is not None or request.endpoint in CODE_REDEMPTIONS:
        return True
    return request.headers.get("Authorization") is not None and _request_seat() is None


def _handle_tried() -> str:
    """The handle a sign-in tries, folded as accounts compare them and hashed (Redis never holds a
    handle in a limit's key); one shared key for a body with no handle (the route refuses it)."""
    from api.common import read_body
    from service.identity import fold_handle

    try:
        handle = orjson.loads(read_body(request)).get("handle")
    except Exception:  # noqa: BLE001 - not JSON, no object: the route answers what is wrong
        handle = None
    if not isinstance(handle, str):
        return "handle:none"
    return "handle:" + hashlib.sha256(fold_handle(handle).encode()).hexdigest()[:32]


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
        # holds at most REDIS_MAX_CONNECTIONS + 1 Redis connections, limits included.
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
        # The wrapper has the view's own signature (Flask-Limiter's overload): a RouteCallable still.
        app.view_functions[endpoint] = cast(
            RouteCallable,
            limiter.shared_limit(
                _limit_provider(spec.setting),
                scope=spec.setting.removeprefix("RATE_LIMIT_").lower(),
                key_func=_seat_or_address if spec.by_token else _address,
                methods=list(spec.methods),
                deduct_when=spec.only_when,
            )(view),
        )
    for endpoint, (setting, key_func) in KEYED_LIMITS.items():
        view = app.view_functions.get(endpoint)
        if view is None:
            continue
        app.view_functions[endpoint] = cast(
            RouteCallable,
            limiter.shared_limit(
                _limit_provider(setting),
                scope=setting.removeprefix("RATE_LIMIT_").lower(),
                key_func=key_func,
                methods=["POST"],
            )(view),
        )
    app.extensions["rate_limiter"] = limiter
    failures = TokenFailures(limiter, app.config["RATE_LIMIT_TOKEN_FAILURE"])
    app.extensions["token_failures"] = failures

    def refuse_a_guesser() -> None:
        g.checks_credential = _presents_unknown_credential()
        if g.checks_credential:
            wait = failures.blocked(_address())
            if wait is not None:
                raise too_many_requests(wait)

    def count_a_failure(response: Response) -> Response:
        if response.status_code == 401 and g.get("checks_credential"):
            failures.failed(_address())
        return response

    def advertise_the_limit(response: Response) -> Response:
        if response.mimetype == "text/event-stream":
            # A stream is opened once and lives for hours: its fields would be stale at once, and
            # reading the counters for each of a thousand streams opened together takes as many
            # Redis connections on a cluster (whose per-node pools are not bounded like ours).
            return response
        try:
            response.headers.update(_limit_fields(limiter, failures))
        except Exception as error:  # noqa: BLE001 - the counters unreachable: the answer goes without them
            current_app.logger.warning("rate-limit fields left out: %s", error)
        return response

    sign_ins = SignInFailures(
        limiter, app.config["RATE_LIMIT_SIGN_IN_FAILURE"], app.config["RATE_LIMIT_SIGN_IN_HANDLE"]
    )
    app.extensions["sign_in_failures"] = sign_ins

    def is_sign_in() -> bool:
        return request.endpoint == "accounts.Sessions" and request.method == "POST"

    def hold_a_sign_in() -> None:
        if is_sign_in():
            wait = sign_ins.blocked(_handle_tried(), _address())
            if wait is not None:
                raise too_many_requests(wait)

    def count_a_sign_in(response: Response) -> Response:
        if response.status_code == 401 and is_sign_in():
            sign_ins.failed(_handle_tried(), _address())
        return response

    app.before_request(refuse_a_guesser)
    app.before_request(hold_a_sign_in)
    app.after_request(count_a_failure)
    app.after_request(count_a_sign_in)
    app.after_request(advertise_the_limit)
    return limiter


def _limit_fields(limiter: Limiter, failures: TokenFailures) -> dict[str, str]:
    """The rate-limit fields of this request's answer: its route's limit when the route has one for
    this method (per seat or per address, as counted), else the limit on failed credential checks
    that every request of the address is subject to."""
    spec = ROUTE_LIMITS.get(request.endpoint or "")
    if spec is not None and request.method in spec.methods:
        items = sorted(parse_many(current_app.config[spec.setting]))
        key = _seat_or_address() if spec.by_token else _address()
        return rate_limit_headers(
            limiter.limiter, items, key, spec.setting.removeprefix("RATE_LIMIT_").lower()
        )
    return rate_limit_headers(limiter.limiter, failures.items, _address(), TokenFailures.SCOPE)


def rate_limit_headers(strategy: Any, items: list[Any], key: str, scope: str) -> dict[str, str]:
    """The ``RateLimit-Policy`` and ``RateLimit`` fields (draft-ietf-httpapi-ratelimit-headers-10)
    of the limit ``items`` counted for ``key`` under ``scope``: one policy per window, named
    ``<scope>-<window>s``, with its quota (``q``) and window (``w``, seconds), and for each its
    remaining quota (``r``) and the seconds until that window resets (``t``). One read of the
    counters per window (Flask-Limiter's strategy, as the counting itself)."""
    now = time.time()
    policies, states = [], []
    for item in items:
        window = int(item.get_expiry())
        name = f"{scope}-{window}s"
        stats = strategy.get_window_stats(item, KEY_PREFIX, key, scope)
        policies.append(f'"{name}";q={item.amount};w={window}')
        # The storage rounds the window's end up to a whole second: never past the window itself.
        reset = min(window, max(0, math.ceil(stats.reset_time - now))) if stats.remaining < item.amount else 0
        states.append(f'"{name}";r={max(0, stats.remaining)};t={reset}')
    return {"RateLimit-Policy": ", ".join(policies), "RateLimit": ", ".join(states)}


class SignInFailures:
    """Failed sign-ins, as OWASP's authentication cheat sheet advises (lock out the attempts, never
    the account): counted per (handle, address) and per handle, in Flask-Limiter's storage.

    - An address that failed ``per_pair`` times at a handle is refused (429) for that handle until
      the window ends; its sign-ins at other handles, and other addresses, are not affected.
    - A handle that failed ``per_handle`` times (from any addresses) is slowed down, not locked:
      while it is, only addresses with no failure at it in the pair's window get through. Its owner,
      from an address that has not failed, signs in; a guesser spread over many addresses gets one
      try per address per pair window instead of ``per_pair``.

    Only failures count (a 401 of the sign-in route): successes and refusals cost no budget.
    Keys name the handle only as a hash (Redis never holds a handle in a limit's key)."""

    PAIR, HANDLE = "sign_in_failure", "sign_in_handle"

    def __init__(self, limiter: Limiter, per_pair: str, per_handle: str):
        self.pair_items = sorted(parse_many(per_pair))
        self.handle_items = sorted(parse_many(per_handle))
        self.strategy = limiter.limiter

    def _pair(self, handle_key: str, address_key: str) -> tuple[str, str, str]:
        return (KEY_PREFIX, f"{handle_key}:{address_key}", self.PAIR)

    def _wait(self, item: Any, identifiers: tuple[str, str, str]) -> int:
        reset_at = self.strategy.get_window_stats(item, *identifiers).reset_time
        return max(1, math.ceil(reset_at - time.time()))

    def blocked(self, handle_key: str, address_key: str) -> int | None:
        """None when this address may try this handle now, else the whole seconds to wait (>= 1)."""
        pair = self._pair(handle_key, address_key)
        for item in self.pair_items:
            if not self.strategy.test(item, *pair):
                return self._wait(item, pair)
        handle = (KEY_PREFIX, handle_key, self.HANDLE)
        for item in self.handle_items:
            if not self.strategy.test(item, *handle):
                stats = [(i, self.strategy.get_window_stats(i, *pair)) for i in self.pair_items]
                failed_here = [i for i, seen in stats if seen.remaining < i.amount]
                if failed_here:  # the slow-down: only addresses that have not failed at it pass
                    return max(self._wait(i, pair) for i in failed_here)
                return None
        return None

    def failed(self, handle_key: str, address_key: str) -> None:
        for item in self.pair_items:
            self.strategy.hit(item, *self._pair(handle_key, address_key))
        for item in self.handle_items:
            self.strategy.hit(item, KEY_PREFIX, handle_key, self.HANDLE)


class TokenFailures:
    """Failed credential checks per address (``RATE_LIMIT_TOKEN_FAILURE``), in Flask-Limiter's
    storage: tested before a request with an unknown credential, counted after its 401."""

    SCOPE = "token_failure"

    def __init__(self, limiter: Limiter, value: str):
        self.items = sorted(parse_many(value))
        self.strategy = limiter.limiter

    def blocked(self, address_key: str) -> int | None:
        """None while ``address_key`` may try again, else the whole seconds until it may (>= 1)."""
        identifiers = (KEY_PREFIX, address_key, self.SCOPE)
        for item in self.items:
            if not self.strategy.test(item, *identifiers):
                reset_at = self.strategy.get_window_stats(item, *identifiers).reset_time
                return max(1, math.ceil(reset_at - time.time()))
        return None

    def failed(self, address_key: str) -> None:
        for item in self.items:
            self.strategy.hit(item, KEY_PREFIX, address_key, self.SCOPE)


class SeatLimit:
    """A per-seat route limit counted outside Flask (the WSGI hot path, :mod:`api.edge.move_path`) in
    the very counters Flask-Limiter keeps for the route: the same storage, strategy and keys, so a
    seat's moves share one budget whichever path serves them. The hot path answers only tokens the
    process knows as a seat's (``known_seat``): every other request goes to Flask, which counts it
    against its address."""

    def __init__(self, limiter: Limiter, setting: str, value: str):
        self.scope = setting.removeprefix("RATE_LIMIT_").lower()
        # Flask-Limiter checks a route's limits in this order and stops at the first breached.
        self.items = sorted(parse_many(value))
        self.strategy = limiter.limiter

    def hit(self, game_id: str, seat: int) -> int | None:
        """Count one request of ``seat``: None when it is allowed, else the whole seconds until the
        breached limit lets it in again (>= 1)."""
        identifiers = (KEY_PREFIX, seat_key(game_id, seat), self.scope)
        for item in self.items:
            if not self.strategy.hit(item, *identifiers):
                reset_at = self.strategy.get_window_stats(item, *identifiers).reset_time
                return max(1, math.ceil(reset_at - time.time()))
        return None

    def headers(self, game_id: str, seat: int) -> dict[str, str]:
        """The rate-limit fields of ``seat``'s budget (:func:`rate_limit_headers`), as Flask sends them."""
        return rate_limit_headers(self.strategy, self.items, seat_key(game_id, seat), self.scope)


def seat_limit(app: Flask, endpoint: str) -> SeatLimit | None:
    """The per-seat limit of ``endpoint`` for a caller outside Flask (None when limits are off)."""
    limiter: Limiter | None = app.extensions.get("rate_limiter")
    if limiter is None:
        return None
    spec = ROUTE_LIMITS[endpoint]
    if not spec.by_token or spec.only_when is not None:
        raise ValueError(f"{endpoint}: only a per-seat limit counted on every request is a SeatLimit")
    return SeatLimit(limiter, spec.setting, app.config[spec.setting])
