"""One decision path per move: what a move's request means and how it is answered,
whichever entry point received it. The Flask route (``api.games.Moves``) and the fast paths in front
of Flask (:mod:`api.edge.move_path`, which the gunicorn worker calls) read the body with
:func:`well_formed_move` and answer with :func:`answer_move`; a refusal is an
:class:`api.problem_docs.ProblemError` or a ``service.errors.ServiceError``.

No Flask here (an import contract keeps it so): the fast paths need neither a request context nor
the routes module, and the routes need nothing of the fast paths."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

from api.problem_docs import ProblemError, as_problem
from schemas.common import integral_floats_as_ints, too_deep
from schemas.games import MAX_VERSION
from service.errors import VersionConflict

if TYPE_CHECKING:
    from service import GameService

IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
_ETAG_VERSION = re.compile(r'^(?:W/)?"?(\d{1,18})(?:\.[a-z0-9]+)?"?$')
# What If-Match takes (stripped, as the route reads it): "*", or a version or view ETag.
IF_MATCH_PATTERN = r'^ *(?:\*|(?:W/)?"?[0-9]{1,18}(?:\.[a-z0-9]+)?"?) *$'


_MOVE_FIELDS = frozenset(("command", "expected_version"))


def well_formed_move(value: Any) -> dict[str, Any] | None:
    """``value`` (a parsed body) when it is a move body exactly as ``MoveRequest`` loads it, checked
    by hand: the marshmallow load (which stays the documented contract) costs more than the rest of
    the parse. None for anything else, which the schema then refuses with its own errors. A body
    this accepts has no field but ``command`` and ``expected_version``, so no token in it either."""
    if type(value) is dict and value.keys() <= _MOVE_FIELDS and type(value.get("command")) is dict:
        expected = value.get("expected_version", 0)
        if type(expected) is int and 0 <= expected <= MAX_VERSION:
            return value
    return None


def move_body(data: bytes) -> dict[str, Any] | None:
    """The move body of the raw ``data`` when the route's parser would take it as is (JSON, not too
    deep, integral floats as integers, :func:`well_formed_move`), else None: the route's parser
    then says what is wrong."""
    try:
        value = orjson.loads(data)
    except ValueError:
        return None
    if too_deep(data, value):
        return None
    return well_formed_move(integral_floats_as_ints(data, value))


def prefers_minimal(header: str | None) -> bool:
    """RFC 7240 ``Prefer: return=minimal`` (any case, with or without spaces or quotes)."""
    if not header:
        return False
    for preference in header.split(","):
        name, _, value = preference.partition(";")[0].partition("=")
        if name.strip().lower() == "return" and value.strip().strip('"').lower() == "minimal":
            return True
    return False


def answer_move(
    svc: GameService,
    game_id: str,
    token: str,
    body: Mapping[str, Any],
    if_match: str | None = None,
    idempotency_key: str | None = None,
    prefer: str | None = None,
    account: str | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """The move on plain values: status, headers (besides Content-Type) and the encoded answer of
    the checked ``body`` from the seat of ``token``. The Flask route (``api.games.Moves``) and the
    fast paths in front of it (:mod:`api.edge.move_path`, and the gunicorn worker through it) all
    answer with this, so they cannot drift apart. Raises ProblemError or ServiceError for a
    refusal. ``account``: see ``GameService.submit_command`` (the caller checked the token)."""
    expected = body.get("expected_version")
    pinned = if_match_version(if_match)
    if pinned is not None:
        if expected is not None and expected != pinned:
            # Not VALIDATION_ERROR: each is valid, and no schema can say that two must agree.
            raise ProblemError(
                422,
                "VERSIONS_DISAGREE",
                "If-Match and expected_version disagree",
                "Send one of them, or the same version in both.",
                errors={"json": {"expected_version": ["Differs from If-Match."]}},
            )
        expected = pinned
    if idempotency_key is not None and not IDEMPOTENCY_KEY.match(idempotency_key):
        raise ProblemError(
            422,
            "VALIDATION_ERROR",
            "Invalid request",
            "Idempotency-Key must be 1-255 visible ASCII characters.",
            errors={"headers": {"Idempotency-Key": ["1-255 visible ASCII characters."]}},
        )
    minimal = prefers_minimal(prefer)
    try:
        # The command part itself: GameService.submit_command only passes the call on (one call
        # fewer on every move).
        outcome = svc.commands.submit_command(
            game_id, token, body["command"], expected, idempotency_key, minimal=minimal, account=account
        )
    except VersionConflict as conflict:
        if pinned is None:
            raise
        # The version came from If-Match: RFC 9110 answers a failed precondition with 412.
        raise as_problem(conflict, status=412) from None
    answer = outcome.body
    headers = {"Cache-Control": "no-store", "ETag": f'"{answer["version"]}.s{outcome.seat}"'}
    if outcome.replayed:
        headers["Idempotent-Replayed"] = "true"
    if minimal:
        headers["Preference-Applied"] = "return=minimal"
        encoded = orjson.dumps({"game_id": answer["game_id"], "version": answer["version"]})
    elif outcome.view_json is not None:
        encoded = orjson.dumps({**answer, "view": orjson.Fragment(outcome.view_json)})
    else:
        encoded = orjson.dumps(answer)
    return outcome.status_code, headers, encoded


def if_match_version(header: str | None) -> int | None:
    """The version an ``If-Match`` header pins (None without one, or with ``*``)."""
    if header is None or header.strip() == "*":
        return None
    match = _ETAG_VERSION.match(header.strip())
    if not match:
        raise ProblemError(
            422,
            "VALIDATION_ERROR",
            "Invalid request",
            'If-Match must be a view ETag or a quoted version such as "12".',
            errors={"headers": {"If-Match": ["Not a version ETag."]}},
        )
    return int(match.group(1))
