"""Liveness. Deliberately touches no Redis unless asked (``?deep=true``): it is the cheapest request
the server answers, the yardstick the HTTP benchmark compares a move with."""

from __future__ import annotations

from flask import Response, request
from flask.views import MethodView

from api.common import Blueprint, json_response, service
from schemas.games import HealthSchema
from schemas.problems import ProblemSchema
from store.errors import StoreError

_TRUE = ("1", "true", "yes")
_FALSE = ("0", "false", "no")

blp = Blueprint("health", __name__, url_prefix="/v1", description="Liveness and readiness")


@blp.route("/health")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    @blp.alt_response(
        503,
        schema=ProblemSchema,
        content_type="application/problem+json",
        description="Redis unreachable (deep check); `Retry-After` says when to ask again",
    )
    @blp.doc(
        parameters=[
            {"name": "deep", "in": "query", "schema": {"type": "boolean"}, "description": "Also PING Redis"}
        ]
    )
    def get(self) -> Response:
        """Is the server up? (``deep=true``: and is Redis reachable?)"""
        deep = request.args.get("deep")
        if deep is not None and deep.lower() not in _TRUE + _FALSE:
            from api.problems import ProblemError

            raise ProblemError(
                422, "VALIDATION_ERROR", "Invalid request", "deep is a boolean: true or false (or 1, 0)."
            )
        if deep is not None and deep.lower() in _TRUE:
            try:
                service().store.ping()
            except StoreError:
                from api.problems import problem_response

                # Retry-After like every other 503 (api/problems.py), so probes and clients back off
                # the same way everywhere.
                return problem_response(
                    503, "REDIS_UNAVAILABLE", "Redis is unreachable", headers={"Retry-After": "1"}
                )
            return json_response({"status": "ok", "redis": "ok"})
        return json_response({"status": "ok"})
