"""Bot seats: an RQ job plays every bot whose decision is due.

Flow: every accepted append fires ``service.signals.events_appended``; :func:`on_events_appended`
(connected by :func:`connect_signals`) enqueues :func:`play_bot_turns` on the ``bots`` queue when a
bot seat is awaited. Nothing polls: the web process only enqueues.

The job loads the game through ``service``, builds each awaited bot's *seat view* (what a client
in that seat would get from the API, legal moves included; never the hidden state), asks the bot
and submits the move with ``GameService.submit_as_seat`` (the trusted path for bot seats: same
rules, same atomic append, same signal as a client's move). It loops while bots are awaited, so an
all-bot game plays to its end in one job.

Idempotency: the job id is ``bots-<game>-<version>`` and a ``SET NX`` marker collapses duplicate
enqueues for one version; each move carries ``expected_version`` and the idempotency key
``bot:<version>:<seat>``, and the bot's randomness is seeded from (game, version, seat), so two jobs
racing on the same version submit the same move and the second gets the first's answer. A job for
a stale version finds nothing due (or plays what is due now): harmless.
"""

from __future__ import annotations

import contextvars
import logging
import os
import time
from typing import Any

import redis
from rq import Queue, Retry, get_current_job

from bots import choose_move, seeded_rng
from games import get_game
from service import GameService
from service import errors as service_errors
from store import GameStore

log = logging.getLogger(__name__)

QUEUE = "bots"
JOB_TIMEOUT_SECONDS = 10 * 60
ENQUEUE_MARKER_TTL_SECONDS = 15 * 60
# A bound on one job's work, far above any real game (the longest simulated matches for points
# take a few thousand moves): only a game whose bots never end it would reach it, and then the job
# stops rather than burn a worker forever (a warning is logged).
MAX_MOVES_PER_JOB = 20_000
# Optional pause before each bot move, so humans watching can follow (seconds; default none).
MOVE_DELAY_SECONDS = float(os.environ.get("BOT_MOVE_DELAY") or 0)

# Set while a bot job submits for a game: its own appends need no new job (it keeps looping).
_playing: contextvars.ContextVar[str | None] = contextvars.ContextVar("bots_playing", default=None)


def job_id(game_id: str, version: int) -> str:
    return f"bots-{game_id}-{version}"


def _marker(game_id: str, version: int) -> str:
    # The game's hash tag keeps the marker in the game's Cluster slot.
    return f"bots:{{g:{game_id}}}:enqueued:{version}"


def enqueue_bot_turns(client: redis.Redis, game_id: str, version: int) -> str | None:
    """Enqueue the bot job for ``game_id`` at ``version``; ``None`` when one was already enqueued
    for that version (the SET NX marker makes this atomic across processes)."""
    if not client.set(_marker(game_id, version), b"1", nx=True, ex=ENQUEUE_MARKER_TTL_SECONDS):
        return None
    jid = job_id(game_id, version)
    try:
        _enqueue(client, game_id, version, jid)
    except Exception:
        client.delete(_marker(game_id, version))  # let a later signal try again
        raise
    return jid


def _enqueue(client: redis.Redis, game_id: str, version: int, jid: str) -> None:
    Queue(QUEUE, connection=client).enqueue(
        "worker.bots.play_bot_turns",
        game_id,
        version,
        job_id=jid,
        retry=Retry(max=2),
        job_timeout=JOB_TIMEOUT_SECONDS,
        result_ttl=600,
        failure_ttl=24 * 3600,
        description=f"bot turns of {game_id} at v{version}",
    )


def on_events_appended(sender: Any, **kwargs: Any) -> None:
    """Receiver of ``events_appended``: enqueue the bot job when a bot seat is awaited."""
    if kwargs.get("finished"):
        return
    bots = kwargs.get("bots") or {}
    awaiting = kwargs.get("awaiting") or []
    if not any(seat in bots for seat in awaiting):
        return
    game_id = kwargs["game_id"]
    if _playing.get() == game_id:
        return  # the running job loops on
    enqueue_bot_turns(sender.store.redis, game_id, int(kwargs["version"]))


def connect_signals() -> None:
    """Connect the receiver (idempotent) in every process that appends: the web process and every worker."""
    from service.signals import connect_receiver

    connect_receiver(on_events_appended)


_services: dict[Any, GameService] = {}


def _service_for(client: redis.Redis) -> GameService:
    """One GameService (and its state cache) per connection pool in this process."""
    key = id(client.connection_pool)
    service = _services.get(key)
    if service is None or service.store.redis.connection_pool is not client.connection_pool:
        service = GameService(GameStore(client))
        _services[key] = service
    return service


def _connection() -> redis.Redis:
    job = get_current_job()
    if job is not None:
        return job.connection
    return redis.Redis.from_url(os.environ["REDIS_URL"])


def play_bot_turns(
    game_id: str, version: int | None = None, *, service: GameService | None = None
) -> dict[str, Any]:
    """Play every due bot move of ``game_id`` until a human is awaited or the game is over.

    ``version`` is the version that triggered the job (informational: the job always acts on the
    current state). Returns ``{"moves": n, "version": v, "status": s}``.
    """
    service = service or _service_for(_connection())
    token = _playing.set(game_id)
    moves = attempts = 0
    try:
        while moves < MAX_MOVES_PER_JOB and attempts < 2 * MAX_MOVES_PER_JOB:
            attempts += 1
            try:
                _, cached = service.viewer_seat(game_id, None)
            except service_errors.GameNotFound:
                return {"moves": moves, "version": None, "status": "not_found"}
            if cached.status != "active" or cached.state is None:
                return {"moves": moves, "version": cached.version, "status": cached.status}
            game = get_game(cached.name)
            due = [seat for seat in game.awaiting(cached.state) if seat in cached.bots]
            if not due:
                return {"moves": moves, "version": cached.version, "status": cached.status}
            seat = due[0]
            view = game.view(cached.state, seat)
            rng = seeded_rng("bot", game_id, cached.version, seat)
            command = choose_move(cached.name, cached.bots[seat], view, rng)
            if MOVE_DELAY_SECONDS:
                time.sleep(MOVE_DELAY_SECONDS)
            try:
                service.submit_as_seat(
                    game_id,
                    seat,
                    command,
                    expected_version=cached.version,
                    idempotency_key=f"bot:{cached.version}:{seat}",
                )
            except service_errors.VersionConflict:
                continue  # someone moved meanwhile: decide again on the new state
            except service_errors.RuleRefusal:
                # Cannot happen for a legal move on the current state; a stale state is re-read.
                log.warning("bot move refused in %s at v%s: %s", game_id, cached.version, command)
                continue
            moves += 1
        _, cached = service.viewer_seat(game_id, None)
        log.warning(
            "bot job for %s stopped after %s moves at v%s: a game that does not end?",
            game_id,
            moves,
            cached.version,
        )
        return {"moves": moves, "version": cached.version, "status": "stopped"}
    finally:
        _playing.reset(token)
