"""A differential transcript of the HTTP API (issue 29, "every behaviour unchanged"): seeded random games
of both games played over HTTP, every request and its answer (status, headers, body bytes) written down
in a canonical text, so a refactoring can be compared byte for byte with the transcript recorded
before it (``tests/differential/golden/``, checked by ``test_differential.py``).

What differs on every run is normalised, and only that: game ids, seat tokens and stream tickets, job
ids (keyed by a secret drawn per server), the seed commitments' digests (they hash the game id),
timestamps (each id, token or digest becomes ``<game:N>``, ``<token:N>``, ``<job:N>``, ``<digest:N>``
in order of first appearance, so which answer names which game or token is still compared) and SSE
heartbeats (timing).
The headers every server adds on its own (Date, Server, framing) are left out, so the same transcript
is expected from the Flask app and from gunicorn with the production worker class.

Run it by hand::

    PYTHONPATH=. RATE_LIMITS_ENABLED=false .venv/bin/python -m tests.differential.transcript --out DIR
    ... --gunicorn      # against gunicorn (gunicorn.conf.py: the gevent worker and the fast paths)
    ... --record        # rewrite the golden transcripts (only before a refactoring, never to make it pass)
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import random
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parent / "golden"


@dataclass(frozen=True)
class Scenario:
    name: str
    game: str
    config: dict[str, Any]
    seed: int  # the random players' choices (the game's own shuffles are config["seed"])


SCENARIOS = [
    Scenario("condottiere-2006-2p", "condottiere", {"players": 2, "seed": 11}, 1),
    Scenario("condottiere-2006-4p", "condottiere", {"players": 4, "seed": 12}, 2),
    Scenario("condottiere-classic-3p", "condottiere", {"players": 3, "ruleset": "classic", "seed": 13}, 3),
    Scenario("condottiere-classic-6p", "condottiere", {"players": 6, "ruleset": "classic", "seed": 14}, 4),
    Scenario("rio-3p", "rio_de_la_plata", {"players": 3, "seed": 21}, 5),
    Scenario("rio-4p", "rio_de_la_plata", {"players": 4, "seed": 22}, 6),
    Scenario("rio-5p", "rio_de_la_plata", {"players": 5, "seed": 23}, 7),
]

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]

# Headers a server or the framework adds on its own, or that the normalisation makes meaningless.
SKIPPED_HEADERS = {"date", "server", "content-length", "connection", "transfer-encoding", "keep-alive"}


# -- normalisation ---------------------------------------------------------------------------------

GAME_ID = re.compile(rb"(?<![0-9a-z])[0-9a-hjkmnp-tv-z]{20}(?![0-9a-z])")
TOKEN = re.compile(rb"cst_[A-Za-z0-9_-]{43}")
JOB_ID = re.compile(rb"\b([a-z][a-z_]*)-[0-9a-f]{24}\b")
TIMESTAMP = re.compile(rb"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
# The seed's commitment hashes the game id with it (docs/fairness.md): new with every id.
DIGEST = re.compile(rb'(?<="digest":")[0-9a-f]{64}(?=")')
HEARTBEAT = re.compile(rb"^: heartbeat\n\n", re.MULTILINE)


class Normaliser:
    """Replaces what differs on every run by stable names, in order of first appearance."""

    def __init__(self) -> None:
        self.names: dict[bytes, bytes] = {}
        self.counts: dict[bytes, int] = {}

    def _name(self, kind: bytes, value: bytes) -> bytes:
        if value not in self.names:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            self.names[value] = b"<%s:%d>" % (kind, self.counts[kind])
        return self.names[value]

    def __call__(self, data: bytes) -> bytes:
        data = TOKEN.sub(lambda m: self._name(b"token", m.group()), data)
        data = JOB_ID.sub(lambda m: self._name(b"job", m.group()), data)
        data = GAME_ID.sub(lambda m: self._name(b"game", m.group()), data)
        data = DIGEST.sub(lambda m: self._name(b"digest", m.group()), data)
        return TIMESTAMP.sub(b"<time>", data)


# -- transports ------------------------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class FlaskTransport:
    """The app in this process (werkzeug's test client: the WSGI app, its fast paths included)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.client = app.test_client()

    def request(self, method: str, path: str, headers: dict[str, str], body: bytes | None) -> Answer:
        response = self.client.open(path, method=method, headers=headers, data=body, buffered=False)
        try:
            data = b"".join(response.iter_encoded())
        finally:
            response.close()
        return Answer(response.status_code, list(response.headers.items()), data)

    def run_jobs(self) -> None:
        from tests.app_fixtures import run_queued_jobs

        run_queued_jobs(self.app.extensions["game_service"].store.queue_redis)


class HttpTransport:
    """A server over HTTP (gunicorn); jobs run in this process on the server's Redis."""

    def __init__(self, base: str, queue_url: str) -> None:
        import redis
        import requests

        self.base = base
        self.session = requests.Session()
        self.redis = redis.Redis.from_url(queue_url)

    def request(self, method: str, path: str, headers: dict[str, str], body: bytes | None) -> Answer:
        response = self.session.request(
            method, self.base + path, headers=headers, data=body, timeout=60, stream=True
        )
        try:
            data = b"".join(response.raw.stream(65536, decode_content=False))
        finally:
            response.close()
        return Answer(response.status_code, list(response.headers.items()), data)

    def run_jobs(self) -> None:
        from tests.app_fixtures import run_queued_jobs

        run_queued_jobs(self.redis)


# -- the transcript --------------------------------------------------------------------------------


class Recorder:
    def __init__(self, transport: FlaskTransport | HttpTransport) -> None:
        self.transport = transport
        self.normalise = Normaliser()
        self.lines: list[bytes] = []

    def call(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        data: bytes | None = None,
        headers: dict[str, str] | None = None,
        note: str = "",
    ) -> Answer:
        headers = dict(headers or {})
        if json_body is not None:
            data = json.dumps(json_body, separators=(",", ":")).encode()
            headers.setdefault("Content-Type", "application/json")
        answer = self.transport.request(method, path, headers, data)
        n = self.normalise
        request_line = f"### {method} {path}"
        if note:
            request_line += f"  [{note}]"
        self.lines.append(n(request_line.encode()))
        for name, value in sorted(headers.items()):
            if name != "Authorization":  # a token: the note says whose
                self.lines.append(n(f">   {name}: {value}".encode()))
        if data is not None:
            self.lines.append(b">   " + n(data))
        self.lines.append(b"<   %d" % answer.status)
        for name, value in sorted(answer.headers, key=lambda h: h[0].lower()):
            if name.lower() not in SKIPPED_HEADERS:
                self.lines.append(n(f"<   {name}: {value}".encode()))
        body = answer.body
        if headers_of(answer, "content-type").startswith("text/event-stream"):
            body = HEARTBEAT.sub(b"", body)
        for line in n(body).split(b"\n"):
            self.lines.append(b"|" + line)
        return answer

    def text(self) -> bytes:
        return b"\n".join(self.lines) + b"\n"


def headers_of(answer: Answer, name: str) -> str:
    return next((v for k, v in answer.headers if k.lower() == name), "")


def play(recorder: Recorder, scenario: Scenario) -> None:
    """Create, claim, play the scenario's game to its end with seeded random legal moves (and some
    refused ones), then read what a finished game offers: summary, events, streams, archive, exports."""
    rng = random.Random(scenario.seed)
    call = recorder.call
    players = scenario.config["players"]
    names = [f"{NAMES[i]}-{scenario.name}" for i in range(players)]

    call("POST", "/v1/games", data=b"{not json", headers={"Content-Type": "application/json"}, note="refused")
    call("POST", "/v1/games", json_body={"game": "chess", "config": {"players": 2}}, note="refused")
    created = call("POST", "/v1/games", json_body={"game": scenario.game, "config": scenario.config})
    assert created.status == 201, created.body
    game_id = created.json()["id"]
    base = f"/v1/games/{game_id}"
    call("GET", f"{base}/view", note="open game, spectator")

    tokens: list[str] = []
    for seat, name in enumerate(names):
        claimed = call("POST", f"{base}/seats", json_body={"name": name}, note=f"seat {seat}")
        assert claimed.status == 201, claimed.body
        tokens.append(claimed.json()["token"])
        if seat == 0:
            call("POST", f"{base}/seats", json_body={"name": names[0], "seat": 0}, note="taken, refused")
    call("POST", f"{base}/seats", json_body={"name": "Late"}, note="full, refused")

    def auth(seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {tokens[seat]}"}

    call("GET", f"{base}/view", headers={"Authorization": "Bearer cst_" + "A" * 43}, note="unknown token")
    call("GET", "/v1/games/0000000000zzzzzzzzzz/view", note="unknown game")
    call("GET", base)

    step = 0
    while True:
        spectator = call("GET", f"{base}/view", note="spectator") if step % 10 == 0 else None
        if spectator is not None and step % 20 == 0:
            etag = headers_of(spectator, "etag")
            call("GET", f"{base}/view", headers={"If-None-Match": etag}, note="spectator, revalidated")
        summary = call("GET", base).json() if step % 15 == 0 else None
        if summary is None:  # read, not written down: the transcript stays small
            summary = json.loads(recorder.transport.request("GET", base, {}, None).body)
        if summary["status"] == "finished":
            break
        awaiting = summary["awaiting"]
        seat = rng.choice(awaiting)
        view = call("GET", f"{base}/view", headers=auth(seat), note=f"seat {seat}")
        etag = headers_of(view, "etag")
        legal = view.json()["view"]["legal_moves"]
        if step % 9 == 0:
            call(
                "GET", f"{base}/view", headers={**auth(seat), "If-None-Match": etag}, note=f"seat {seat}, 304"
            )
        if step % 17 == 3:
            refusals(recorder, base, auth, seat, awaiting, players, summary["version"], legal)
        move = choose(rng, legal)
        headers = auth(seat)
        if step % 4 == 1:
            headers["If-Match"] = etag
        if step % 6 == 2:
            headers["Prefer"] = "return=minimal"
        if step % 8 == 5:
            headers["Idempotency-Key"] = f"key-{step}"
        answer = call(
            "POST", f"{base}/moves", json_body={"command": move}, headers=headers, note=f"seat {seat}"
        )
        assert answer.status == 200, answer.body
        if "Idempotency-Key" in headers:
            call(
                "POST",
                f"{base}/moves",
                json_body={"command": move},
                headers=headers,
                note=f"seat {seat}, again",
            )
        if step % 25 == 7:
            call("GET", f"{base}/events?after={max(0, summary['version'] - 3)}&limit=5", headers=auth(seat))
            call("GET", f"{base}/events?after=0&limit=4", note="spectator")
        step += 1
        assert step < 5000, "the random game does not end"

    finished(recorder, base, game_id, tokens, names)


def choose(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A random legal move: a command type first, then one of its moves. Trade offers are rarely
    chosen: a random player opens and extends offers a thousand times a game (Rio games of 1,600 to
    3,700 moves, against 450 to 700 so)."""
    types = sorted({move["type"] for move in legal})
    weights = [0.15 if kind.startswith("offer") else 1.0 for kind in types]
    kind = rng.choices(types, weights)[0]
    return rng.choice([move for move in legal if move["type"] == kind])


def spoiled(move: dict[str, Any]) -> dict[str, Any] | None:
    """``move`` with each argument replaced by one that names nothing (a card, a region, a cell off
    the board); None for a move without arguments."""
    wrong = {
        key: value
        if key == "type"
        else ("nowhere" if isinstance(value, str) else [99, 99] if isinstance(value, list) else 99)
        for key, value in move.items()
    }
    return wrong if wrong != move and len(move) > 1 else None


def refusals(
    recorder: Recorder,
    base: str,
    auth: Callable[[int], dict[str, str]],
    seat: int,
    awaiting: list[int],
    players: int,
    version: int,
    legal: list[dict[str, Any]],
) -> None:
    """Moves the server refuses, each with its problem document (and nothing changes)."""
    call = recorder.call
    # Well-formed, but naming what is not there: refused by the rules (a few kinds of command).
    wrong = {json.dumps(w): w for w in map(spoiled, legal) if w is not None}
    for move in list(wrong.values())[:3]:
        call("POST", f"{base}/moves", json_body={"command": move}, headers=auth(seat), note="rules, refused")
    call(
        "POST",
        f"{base}/moves",
        json_body={"command": {"type": "no_such_move"}},
        headers=auth(seat),
        note="refused",
    )
    call("POST", f"{base}/moves", json_body={"command": "pass"}, headers=auth(seat), note="refused")
    call("POST", f"{base}/moves", json_body={"command": {"type": "pass"}}, note="no token, refused")
    stale = {**auth(seat), "If-Match": f'"{max(0, version - 1)}"'}
    call(
        "POST", f"{base}/moves", json_body={"command": {"type": "pass"}}, headers=stale, note="stale, refused"
    )
    call(
        "POST",
        f"{base}/moves",
        json_body={"command": {"type": "pass"}, "expected_version": version - 1},
        headers=auth(seat),
        note="stale, refused",
    )
    others = [s for s in range(players) if s not in awaiting]
    if others:
        call(
            "POST",
            f"{base}/moves",
            json_body={"command": {"type": "pass"}},
            headers=auth(others[0]),
            note=f"seat {others[0]} not awaited, refused",
        )
    call("GET", f"{base}/events?after=-1", note="refused")
    call("GET", f"{base}/view", headers={"Authorization": "Basic abc"}, note="refused")


def finished(recorder: Recorder, base: str, game_id: str, tokens: list[str], names: list[str]) -> None:
    call = recorder.call
    auth0 = {"Authorization": f"Bearer {tokens[0]}"}
    call("GET", base, note="finished")
    call("GET", f"{base}/view", note="finished, spectator")
    last = call("GET", f"{base}/view", headers=auth0, note="finished, seat 0")
    call("GET", f"{base}/view", headers={**auth0, "If-None-Match": headers_of(last, "etag")}, note="304")
    call(
        "POST", f"{base}/moves", json_body={"command": {"type": "pass"}}, headers=auth0, note="over, refused"
    )
    after = 0
    while True:
        page = call("GET", f"{base}/events?after={after}&limit=200").json()
        if not page["events"]:
            break
        after = page["events"][-1]["version"]
    call("GET", f"{base}/stream", note="finished")
    call("GET", f"{base}/stream", headers={"Last-Event-ID": str(max(0, after - 5))}, note="resumed")
    call("GET", f"{base}/stream", headers=auth0, note="seat 0")
    call("GET", f"{base}/view/stream", note="finished, spectator")
    call("GET", f"{base}/view/stream", headers=auth0, note="finished, seat 0")
    call("GET", f"{base}/view/stream", headers={**auth0, "Last-Event-ID": str(after)}, note="known")
    ticket = call("POST", f"{base}/stream-tickets", headers=auth0).json()
    call("GET", ticket["stream"], note="ticket")
    call("GET", ticket["stream"], note="ticket used, refused")
    call("GET", f"{base}/replay?version=3")
    recorder.transport.run_jobs()  # the follow-ups of the end: archive entry, statistics, ratings
    call("GET", f"/v1/archive/{game_id}")
    call("GET", f"/v1/archive?player={names[0]}")
    for fmt in ("log", "json", "markdown", "html"):
        job = call("POST", f"{base}/exports", json_body={"format": fmt})
        recorder.transport.run_jobs()
        location = headers_of(job, "location")
        done = call("GET", location).json()
        call("GET", done["result"])
    call("POST", f"{base}/exports", json_body={"format": "pdf"}, note="refused")


def transcript(transport: FlaskTransport | HttpTransport, scenario: Scenario) -> bytes:
    recorder = Recorder(transport)
    play(recorder, scenario)
    return recorder.text()


# -- running ---------------------------------------------------------------------------------------


def golden_path(scenario: Scenario) -> Path:
    return GOLDEN / f"{scenario.name}.txt.xz"


def read_golden(scenario: Scenario) -> bytes:
    return lzma.decompress(golden_path(scenario).read_bytes())


def write_golden(scenario: Scenario, text: bytes) -> None:
    GOLDEN.mkdir(exist_ok=True)
    golden_path(scenario).write_bytes(lzma.compress(text, preset=9 | lzma.PRESET_EXTREME))


def first_difference(expected: bytes, actual: bytes) -> str | None:
    """None when equal, else where the transcripts part: the line, the request it belongs to, and
    the two versions of it (cut around the first differing character)."""
    if expected == actual:
        return None
    old, new = expected.split(b"\n"), actual.split(b"\n")
    number = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
    if number is None:
        return f"one transcript ends first ({len(old)} lines before, {len(new)} now)"
    a, b = old[number], new[number]
    request = next((line for line in reversed(old[: number + 1]) if line.startswith(b"### ")), b"?")
    column = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    start = max(0, column - 150)
    return (
        f"the transcripts part at line {number + 1}, column {column + 1}, in the answer to\n"
        f"  {request.decode(errors='replace')}\n"
        f"before: ...{a[start : column + 150].decode(errors='replace')}\n"
        f"now:    ...{b[start : column + 150].decode(errors='replace')}"
    )


def flask_transcripts(
    redis_server: Any, reset: Callable[[], None], scenarios: list[Scenario]
) -> Iterator[tuple[Scenario, bytes]]:
    """Each scenario's transcript from the Flask app on ``redis_server``, emptied by ``reset``
    before each."""
    from tests.app_fixtures import make_app

    for scenario in scenarios:
        reset()
        apps = make_app(redis_server)
        app = next(apps)
        try:
            yield scenario, transcript(FlaskTransport(app), scenario)
        finally:
            next(apps, None)


def gunicorn_transcripts(
    redis_server: Any, queue_url: str, reset: Callable[[], None], scenarios: list[Scenario]
) -> Iterator[tuple[Scenario, bytes]]:
    """Each scenario's transcript from gunicorn in the production configuration (gunicorn.conf.py:
    its default worker class, the fast paths on), one web worker; jobs run here on ``queue_url``."""
    from tests.gunicorn_server import start_gunicorn, wait_until_serving

    with tempfile.NamedTemporaryFile(prefix="differential-gunicorn-", suffix=".log") as log:
        process, base = start_gunicorn(redis_server.url, log)
        try:
            wait_until_serving(process, base, Path(log.name))
            for scenario in scenarios:
                reset()
                yield scenario, transcript(HttpTransport(base, queue_url), scenario)
        finally:
            process.terminate()
            process.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, help="also write each transcript (plain text) here")
    parser.add_argument("--gunicorn", action="store_true", help="against gunicorn instead of the Flask app")
    parser.add_argument("--record", action="store_true", help="rewrite the golden transcripts")
    parser.add_argument("--only", action="append", help="a scenario's name (repeatable)")
    args = parser.parse_args(argv)
    os.environ.setdefault("RATE_LIMITS_ENABLED", "false")
    from tests.redis_server import PrivateRedis

    scenarios = [s for s in SCENARIOS if not args.only or s.name in args.only]
    server = PrivateRedis()
    failed = 0
    try:
        if args.gunicorn:
            runs = gunicorn_transcripts(server, server.url, server.flushall, scenarios)
        else:
            runs = flask_transcripts(server, server.flushall, scenarios)
        for scenario, text in runs:
            if args.out:
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / f"{scenario.name}.txt").write_bytes(text)
            if args.record:
                write_golden(scenario, text)
                print(f"{scenario.name}: recorded ({len(text)} bytes)")
                continue
            difference = first_difference(read_golden(scenario), text)
            print(f"{scenario.name}: {'same' if difference is None else difference}")
            failed += difference is not None
    finally:
        server.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
