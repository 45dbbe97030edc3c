"""A small HTTP client for the game server's public API (what any third-party client would do).

Used by the command-line client and by the simulator's HTTP mode; it only speaks the documented
routes, so it doubles as a check that the API is usable from outside.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import requests

DEFAULT_SERVER = "http://127.0.0.1:8000"


def default_server() -> str:
    return os.environ.get("CONDOTTIERE_SERVER", DEFAULT_SERVER)


class ApiError(Exception):
    """A problem+json answer (RFC 9457) from the server."""

    def __init__(self, status: int, problem: Mapping[str, Any]):
        self.status = status
        self.problem = dict(problem)
        self.code = problem.get("code")
        detail = problem.get("detail") or problem.get("title") or ""
        super().__init__(f"HTTP {status} {self.code or ''}: {detail}".strip())


@dataclass
class SseEvent:
    event: str
    data: Any
    id: str | None


class ApiClient:
    def __init__(
        self, server: str | None = None, *, timeout: float = 30.0, session: requests.Session | None = None
    ):
        self.server = (server or default_server()).rstrip("/")
        self.timeout = timeout
        # How many times a request refused with 429 (rate limit) is sent again after Retry-After: a
        # Rio de la Plata seat makes many small moves, faster than the move limit when a bot plays it.
        self.rate_limit_retries = 8
        self.session = session or requests.Session()

    # -- plumbing --------------------------------------------------------------------------

    def _url(self, path: str) -> str:
        return f"{self.server}{path}"

    @staticmethod
    def _headers(token: str | None = None, **extra: str | None) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        headers.update({k.replace("_", "-"): v for k, v in extra.items() if v is not None})
        return headers

    @staticmethod
    def _object(response: requests.Response) -> dict[str, Any]:
        """The JSON object a route answers (each documents one). Anything else is refused like a body
        that is not JSON at all (``response.json()`` raises a ``ValueError`` then)."""
        body = response.json()
        if not isinstance(body, dict):
            raise ValueError(f"{response.url}: expected a JSON object, got {type(body).__name__}")
        return body

    def _check(self, response: requests.Response) -> requests.Response:
        if response.status_code >= 400:
            try:
                problem = response.json()
            except ValueError:
                problem = {"detail": response.text[:500]}
            raise ApiError(response.status_code, problem if isinstance(problem, dict) else {})
        return response

    def request(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        json_body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> requests.Response:
        all_headers = self._headers(token)
        all_headers.update(headers or {})
        timeout = kwargs.pop("timeout", self.timeout)
        for attempt in range(self.rate_limit_retries + 1):
            response = self.session.request(
                method,
                self._url(path),
                json=json_body,
                params=params,
                headers=all_headers,
                timeout=timeout,
                **kwargs,
            )
            if response.status_code != 429 or attempt == self.rate_limit_retries:
                break
            # A refused request changed nothing (docs/api.md, "What every client can rely on"), so it is
            # sent again, with the same idempotency key, once the server's Retry-After has passed.
            time.sleep(_retry_after(response))
        return self._check(response)

    # -- games -----------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        return self._object(self.request("GET", "/v1/health"))

    def create_game(
        self,
        config: Mapping[str, Any],
        *,
        game: str = "condottiere",
        bots: Mapping[int, str] | Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"game": game, "config": dict(config)}
        if bots:
            body["bots"] = {str(seat): level for seat, level in bots.items()}
        return self._object(self.request("POST", "/v1/games", json_body=body))

    def game(self, game_id: str) -> dict[str, Any]:
        return self._object(self.request("GET", f"/v1/games/{game_id}"))

    def list_games(self, **params: Any) -> dict[str, Any]:
        return self._object(self.request("GET", "/v1/games", params=params))

    def claim_seat(
        self,
        game_id: str,
        *,
        name: str | None = None,
        seat: int | None = None,
        bot: str | None = None,
        account_token: str | None = None,
    ) -> dict[str, Any]:
        """Claim a seat; with ``account_token`` (a session or personal access token) the seat is
        bound to the account."""
        body: dict[str, Any] = {}
        if name is not None:
            body["name"] = name
        if seat is not None:
            body["seat"] = seat
        if bot is not None:
            body["bot"] = bot
        return self._object(
            self.request("POST", f"/v1/games/{game_id}/seats", json_body=body, token=account_token)
        )

    # -- accounts --------------------------------------------------------------------------

    def create_account(self, handle: str, password: str, *, bot: bool = False) -> dict[str, Any]:
        body = {"handle": handle, "password": password, "bot": bot}
        return self._object(self.request("POST", "/v1/accounts", json_body=body))

    def sign_in(self, handle: str, password: str) -> dict[str, Any]:
        return self._object(
            self.request("POST", "/v1/sessions", json_body={"handle": handle, "password": password})
        )

    def sign_out(self, token: str) -> None:
        self.request("DELETE", "/v1/sessions/current", token=token)

    def me(self, token: str) -> dict[str, Any]:
        return self._object(self.request("GET", "/v1/me", token=token))

    def my_games(self, token: str, *, before: int | None = None, limit: int = 20) -> dict[str, Any]:
        params: dict[str, Any] = {"limit": limit}
        if before is not None:
            params["before"] = before
        return self._object(self.request("GET", "/v1/me/games", token=token, params=params))

    def fetch_seat_token(self, game_id: str, seat: int, token: str) -> dict[str, Any]:
        return self._object(self.request("POST", f"/v1/games/{game_id}/seats/{seat}/token", token=token))

    def view(self, game_id: str, token: str | None = None) -> dict[str, Any]:
        return self._object(self.request("GET", f"/v1/games/{game_id}/view", token=token))

    def move(
        self,
        game_id: str,
        token: str,
        command: Mapping[str, Any],
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        minimal: bool = False,
    ) -> dict[str, Any]:
        """POST a move. ``minimal``: the caller follows its view stream, so the answer need only say
        the new version (``Prefer: return=minimal``: no events, no view)."""
        body: dict[str, Any] = {"command": dict(command)}
        if expected_version is not None:
            body["expected_version"] = expected_version
        headers = {"Idempotency-Key": idempotency_key or uuid.uuid4().hex}
        if minimal:
            headers["Prefer"] = "return=minimal"
        return self._object(
            self.request("POST", f"/v1/games/{game_id}/moves", token=token, json_body=body, headers=headers)
        )

    def rotate_token(self, game_id: str, token: str) -> dict[str, Any]:
        return self._object(self.request("POST", f"/v1/games/{game_id}/token", token=token))

    def resign(self, game_id: str, token: str) -> dict[str, Any]:
        return self._object(self.request("POST", f"/v1/games/{game_id}/resign", token=token))

    def abort(self, game_id: str, token: str) -> dict[str, Any]:
        return self._object(self.request("POST", f"/v1/games/{game_id}/abort", token=token))

    def events(
        self, game_id: str, token: str | None = None, *, after: int = 0, limit: int | None = None
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"after": after}
        if limit is not None:
            params["limit"] = limit
        return self._object(self.request("GET", f"/v1/games/{game_id}/events", token=token, params=params))

    def all_events(self, game_id: str, token: str | None = None, *, after: int = 0) -> list[dict[str, Any]]:
        """Every event after ``after`` visible to the caller, as ``{"version", "event"}`` items,
        following the pagination."""
        collected: list[dict[str, Any]] = []
        while True:
            page = self.events(game_id, token, after=after)
            items = page.get("events") or []
            collected.extend(items)
            if not items or not page.get("has_more"):
                return collected
            after = page.get("next_after") or items[-1]["version"]

    def stream(
        self,
        game_id: str,
        token: str | None = None,
        *,
        last_event_id: int | str | None = None,
        read_timeout: float | None = 60.0,
    ) -> Iterator[SseEvent]:
        """Server-sent events of the game (``text/event-stream``), parsed."""
        headers = self._headers(
            token, Last_Event_ID=str(last_event_id) if last_event_id is not None else None
        )
        headers["Accept"] = "text/event-stream"
        response = self.session.get(
            self._url(f"/v1/games/{game_id}/stream"),
            headers=headers,
            stream=True,
            timeout=(self.timeout, read_timeout),
        )
        self._check(response)
        with response:
            yield from parse_sse(response.iter_lines(decode_unicode=True))

    def follow_views(
        self, game_id: str, token: str | None = None, *, read_timeout: float | None = 60.0
    ) -> Iterator[dict[str, Any] | None]:
        """The caller's view now and after every change (``GET .../view/stream``): each item is the
        document ``view()`` returns, or ``None`` for a heartbeat (so a reader can check its own
        deadline). A dropped stream is reopened with ``Last-Event-ID`` (the view already held is not
        sent again); the iterator ends after the finished game's view."""
        known: int | None = None
        while True:
            headers = self._headers(token, Last_Event_ID=str(known) if known is not None else None)
            headers["Accept"] = "text/event-stream"
            try:
                response = self.session.get(
                    self._url(f"/v1/games/{game_id}/view/stream"),
                    headers=headers,
                    stream=True,
                    timeout=(self.timeout, read_timeout),
                )
                self._check(response)
                with response:
                    for item in parse_sse(response.iter_lines(decode_unicode=True)):
                        if item.event == "view":
                            known = item.data["version"]
                            yield item.data
                        elif item.event == "end":
                            return
                        elif item.event == "comment":
                            yield None
            except ApiError:
                raise
            except requests.RequestException:
                yield None  # a dropped or timed-out stream: let the reader check its deadline, reconnect
                time.sleep(0.2)

    # -- archive (the ARCHIVE engineer's routes) --------------------------------------------

    def export_log(
        self, game_id: str, token: str | None = None, *, format: str = "log", timeout: float = 30.0
    ) -> Any:
        """The game exported in ``format`` by the server's export job (``POST .../exports``, then
        the job's result). For the ``log`` format, when the server has no export route or no
        archive worker answers within ``timeout``, the same exchange document is built here from
        the events the caller may see (``GET .../events``)."""
        summary = self.game(game_id)  # 404 for an unknown game, before anything else
        try:
            job = self._object(
                self.request(
                    "POST", f"/v1/games/{game_id}/exports", token=token, json_body={"format": format}
                )
            )
        except ApiError as error:
            if format == "log" and error.status in (404, 405):
                return self._local_log(game_id, token, summary)
            raise
        deadline = time.monotonic() + timeout
        # A job has no event stream: poll its resource, gently.
        while job.get("status") not in ("finished", "failed"):
            if time.monotonic() > deadline:
                if format == "log":
                    return self._local_log(game_id, token, summary)
                raise TimeoutError(f"export job {job.get('id')} did not finish in {timeout} s")
            time.sleep(0.2)
            job = self._object(self.request("GET", f"/v1/jobs/{job['id']}", token=token))
        if job["status"] == "failed":
            raise ApiError(500, job.get("error") or {"detail": "export job failed"})
        result = self.request("GET", f"/v1/jobs/{job['id']}/result", token=token)
        if "json" in (result.headers.get("Content-Type") or ""):
            return result.json()
        return result.text

    def _local_log(self, game_id: str, token: str | None, summary: Mapping[str, Any]) -> dict[str, Any]:
        from games import get_game
        from replays.export import export_log

        game = get_game(summary["game"])
        current = self.view(game_id, token)
        events = [item["event"] for item in self.all_events(game_id, token)]
        players = [seat.get("name") for seat in summary.get("seats") or []]
        finished = summary["status"] == "finished"
        return export_log(
            game,
            events,
            players=players,
            finished=finished,
            viewer=current.get("seat"),
            game_id=game_id,
            result=summary.get("result"),
        )

    def import_log(self, document: Mapping[str, Any], timeout: float = 120.0) -> dict[str, Any]:
        """Import an exchange document into the server's archive: ``{"id", "game"}`` of the imported
        game. The server replays the log in a job (202 + the job's Location): this waits for it and
        raises :class:`ApiError` with the job's problem (422 with the offending ``index`` and
        ``rule``) when the log is refused, ``TimeoutError`` when no worker finished it in time."""
        response = self.request("POST", "/v1/archive/import", json_body=document)
        job = self._object(response)
        if response.status_code != 202:  # a server from before imports were jobs answers 201 at once
            return job
        deadline = time.monotonic() + timeout
        # A job has no event stream: poll its resource, gently.
        while job.get("status") not in ("finished", "failed"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"import job {job.get('id')} did not finish in {timeout} s")
            time.sleep(0.1)
            job = self._object(self.request("GET", f"/v1/jobs/{job['id']}"))
        if job["status"] == "failed":
            problem = job.get("error") or {"detail": "import job failed"}
            raise ApiError(int(problem.get("status") or 500), problem)
        return self._object(self.request("GET", f"/v1/jobs/{job['id']}/result"))


def _retry_after(response: requests.Response, longest: float = 10.0) -> float:
    """Seconds to wait before repeating a request the server refused with 429 (its Retry-After in
    seconds, at most ``longest``; one second when it sent none)."""
    try:
        return min(longest, max(0.0, float(response.headers.get("Retry-After", "1"))))
    except ValueError:
        return 1.0


def parse_sse(lines: Iterator[str]) -> Iterator[SseEvent]:
    """Parse the text/event-stream format (WHATWG HTML, "server-sent events"). Comments come out as
    ``event == "comment"`` items; everything else as the spec dispatches it."""
    event, last_id = "message", None
    data: list[str] = []
    for line in lines:
        if line is None:
            continue
        if line == "":
            if data:
                text = "\n".join(data)
                try:
                    payload: Any = json.loads(text)
                except ValueError:
                    payload = text
                yield SseEvent(event, payload, last_id)
            event, data = "message", []
            continue
        if line.startswith(":"):
            # A comment (the server's heartbeat): surfaced so a reader can check its own deadline.
            yield SseEvent("comment", line[1:].strip(), last_id)
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)
        elif field == "id":
            last_id = value
