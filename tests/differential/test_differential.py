"""Issue 29, "every behaviour unchanged": the answers and streams of seeded random games of both games
(Condottiere's 2006 and classic rulesets, 2 to 6 players; Rio de la Plata, 3 to 5) over HTTP, byte for
byte (ids, tokens, job ids, seed digests and timestamps normalised: tests/differential/transcript.py)
against the transcripts recorded on main a2668fc, before the refactoring of issue 29.

A failure names the scenario and the first line where the transcripts part, and leaves the new
transcript in var/differential/ for a diff against the golden one (``xz -dc``). Re-record the golden
transcripts (``python -m tests.differential.transcript --record``) only for a change of behaviour
that is meant, and say so in the commit."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import transcript

OUT = Path(__file__).resolve().parents[2] / "var" / "differential"


@pytest.fixture()
def reset(redis_server, queue_server):
    def empty() -> None:
        redis_server.flushall()
        if queue_server is not redis_server:
            queue_server.flushall()

    return empty


def check(scenario: transcript.Scenario, text: bytes, where: str) -> None:
    difference = transcript.first_difference(transcript.read_golden(scenario), text)
    if difference is not None:
        OUT.mkdir(parents=True, exist_ok=True)
        kept = OUT / f"{scenario.name}-{where}.txt"
        kept.write_bytes(text)
        pytest.fail(f"{scenario.name} ({where}): {difference}\n(the new transcript: {kept})", pytrace=False)


@pytest.mark.parametrize("scenario", transcript.SCENARIOS, ids=lambda s: s.name)
def test_the_flask_app_answers_as_before_byte_for_byte(scenario, redis_server, reset):
    """Create, claims, views (spectator and seats, ETag and 304), moves (If-Match, Prefer:
    return=minimal, idempotent replays) and refused ones (their problem documents), event pages,
    summaries; after the end the log, both streams of a finished game (log or view, then ``end``),
    a stream ticket, a replay, the archive entry and search, and the four exports."""
    [(_, text)] = transcript.flask_transcripts(redis_server, reset, [scenario])
    check(scenario, text, "flask")


GUNICORN_SCENARIOS = [s for s in transcript.SCENARIOS if s.name in ("condottiere-2006-4p", "rio-3p")]


def test_gunicorn_in_the_production_configuration_answers_as_before(redis_server, queue_server, reset):
    """The same transcripts from gunicorn with the production worker class (the game-affine gevent
    worker, the move and view-stream fast paths): one scenario of each game here; the script's
    ``--gunicorn`` runs them all."""
    queue_url = queue_server.url
    for scenario, text in transcript.gunicorn_transcripts(redis_server, queue_url, reset, GUNICORN_SCENARIOS):
        check(scenario, text, "gunicorn")
