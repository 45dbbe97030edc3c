"""Job resources: status, progress, the link to the result or the error (problem+json), and the
result itself. Jobs are started by the archive, replay and statistics routes (202 + Location)."""

from __future__ import annotations

from typing import Any, cast

from flask import Response, request, url_for
from flask.views import MethodView

from api.accounts import accounts
from api.common import Blueprint, bearer_token, jobs, json_response, parse_bearer, service
from api.problems import PROBLEM_MIME, ProblemError, problem_response
from schemas.jobs import JobSchema
from schemas.problems import ProblemSchema
from service.errors import InvalidToken, ServiceError
from service.identity import READ, is_account_token
from store.jobs import JobRecord

blp = Blueprint(
    "jobs", __name__, url_prefix="/v1/jobs", description="Background jobs: verify, statistics, exports"
)

JOB_ID_PATTERN = r"^[a-z-]{1,20}-[0-9a-f]{24}$"


def job_document(record: JobRecord) -> dict[str, Any]:
    finished = record.status == "finished"
    return {
        "id": record.id,
        "kind": record.kind,
        "status": record.status,
        "progress": record.progress,
        "attempts": record.attempts,
        "params": record.params,
        "data_version": record.data_version,
        "created": record.created,
        "started": record.started,
        "finished": record.finished,
        "result": url_for("jobs.JobResult", job_id=record.id) if finished else None,
        "content_type": record.content_type if finished else None,
        "error": _problem(record.error) if record.status == "failed" and record.error else None,
    }


def _problem(error: dict[str, Any]) -> dict[str, Any]:
    from api.problems import problem_type

    code = error.get("code", "JOB_FAILED")
    body = {
        "type": problem_type(code),
        "title": error.get("title", "The job failed"),
        "status": error.get("status", 500),
        "code": code,
    }
    if error.get("detail"):
        body["detail"] = error["detail"]
    # What locates the problem (an import refused: the offending event's index, the rule it breaks).
    body.update({k: v for k, v in error.items() if k not in ("type", "title", "status", "code", "detail")})
    return body


def requester() -> str | None:
    """The account to tell when the job a request starts has finished (``verified``,
    ``export_ready``): that of an account token (a session, or a personal token with ``read``, the
    scope of the account's feed) in ``Authorization``; None for any other header or none, and for
    an invalid or narrower account token, which a job that needs no token never refused (the job
    is then anonymous, as it always was). Only the id is kept, never the token."""
    header = request.headers.get("Authorization")
    token = parse_bearer(header) if header is not None else None
    if token is None or not is_account_token(token):
        return None
    try:
        return accounts().identify(token, READ).account_id
    except ServiceError:
        return None


def accepted(job_id: str) -> Response:
    """202 Accepted pointing at the job resource (also when the job is already finished: the
    resource then links to the cached result)."""
    # Every caller passes the id JobService.start just created or joined (an expired record is
    # recreated there), and a record lives a day after its job ends: it is there.
    record = cast(JobRecord, jobs().get(job_id))
    location = url_for("jobs.Job", job_id=job_id)
    return json_response(job_document(record), 202, {"Location": location, "Cache-Control": "no-store"})


def _not_found() -> ProblemError:
    return ProblemError(404, "JOB_NOT_FOUND", "No such job", "Unknown job id (results expire after a day).")


def _record_or_404(job_id: str) -> JobRecord:
    import re

    record = jobs().get(job_id) if re.match(JOB_ID_PATTERN, job_id) else None
    if record is None:
        raise _not_found()
    _authorize(record)
    return record


def _authorize(record: JobRecord) -> None:
    """A job computed for one seat (a running game's export redacted for it) is served to that
    seat's token only: 401 without a token, 404 (as for an unknown job) with another game's or
    another seat's token. Jobs over public data (spectator exports, finished games, statistics,
    verification) stay public."""
    viewer = record.params.get("viewer")
    if not isinstance(viewer, int) or isinstance(viewer, bool):
        return
    token = bearer_token(required=True)
    try:
        seat, _ = service().viewer_seat(record.params["game_id"], token)
    except InvalidToken:
        raise _not_found() from None
    if seat != viewer:
        raise _not_found()


@blp.route("/<string:job_id>")
class Job(MethodView):
    @blp.response(200, JobSchema)
    @blp.alt_response(404, schema=ProblemSchema, content_type=PROBLEM_MIME)
    def get(self, job_id: str) -> Response:
        """A job: status, progress, the link to its result, or its error as problem+json."""
        record = _record_or_404(job_id)
        return json_response(job_document(record), 200, {"Cache-Control": "no-store"})


def _schemas(*names: str) -> dict[str, Any]:
    return {"anyOf": [{"$ref": f"#/components/schemas/{name}"} for name in names]}


TEXT = {"schema": {"type": "string"}}
# What each kind of job leaves as its result, by the content type the job resource names.
RESULT_CONTENT = {
    "application/json": {
        "schema": {
            **_schemas(
                "ExchangeDocument", "Imported", "VerifyReport", "GameStats", "PlayerStats", "GlobalStats"
            ),
            "description": "export (log, json), import, verify, statistics",
        }
    },
    "text/markdown": TEXT,
    "text/html": TEXT,
    "application/x-ndjson": {"schema": {"type": "string", "description": "bulk-export: one log per line"}},
    "application/gzip": {
        "schema": {
            "type": "string",
            "contentEncoding": "binary",
            "description": "observations: gzipped NDJSON, one Observation per line",
        }
    },
}


@blp.route("/<string:job_id>/result")
class JobResult(MethodView):
    @blp.response(200, description="The result (its content type is the job's content_type)")
    @blp.problems(400, 401, 404, 409, 422, 500)
    @blp.doc(
        responses={
            200: {"content": RESULT_CONTENT},
            409: {"description": "JOB_NOT_FINISHED (Retry-After, Location: the job)"},
            422: {
                "description": "A failed job's problem, as the request would have had it: an import refused"
            },
            400: {"description": "A failed import's problem: MALFORMED_JSON, JSON_TOO_DEEP"},
            500: {"description": "JOB_FAILED: the job failed for a reason of the server's"},
        },
    )
    def get(self, job_id: str) -> Response:
        """The job's result once it is finished (the failure's problem document if it failed)."""
        record = _record_or_404(job_id)
        if record.status == "failed":
            error = _problem(record.error or {})
            extra = {k: v for k, v in error.items() if k not in ("type", "title", "status", "code", "detail")}
            return problem_response(
                error["status"], error["code"], error["title"], error.get("detail"), **extra
            )
        body = jobs().result(job_id) if record.status == "finished" else None
        if body is None:
            raise ProblemError(
                409,
                "JOB_NOT_FINISHED",
                "The job has not finished",
                f"Status: {record.status}.",
                headers={"Retry-After": "1", "Location": url_for("jobs.Job", job_id=job_id)},
            )
        response = Response(body, status=200, content_type=record.content_type or "application/octet-stream")
        response.headers["Cache-Control"] = "private, max-age=60"
        if record.content_type and not record.content_type.startswith("application/json"):
            extension = {
                "text/markdown": "md",
                "text/html": "html",
                "application/x-ndjson": "ndjson",
                "application/gzip": "ndjson.gz",  # the observation export
            }
            kind = record.content_type.split(";")[0]
            response.headers["Content-Disposition"] = (
                f'inline; filename="{job_id}.{extension.get(kind, "bin")}"'
            )
        return response
