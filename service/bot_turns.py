"""Bot seats: a job on the ``bots`` queue plays every bot whose decision is due (the job itself is
``worker.bots.play_bot_turns``, a thin wrapper over :func:`play_bot_turns` here).

Flow: every append that leaves a bot seat awaited records the follow-up action ``bot`` in the game's
outbox, atomically with the move (``service.followups``, ``store.outbox``). Its handler
(:func:`bot_followup`, given to every service by ``service.composition``) enqueues the job on the
``bots`` queue, and the action stays pending until no bot is awaited any more: the process that made
the move runs it at once; the sweeper (``worker.janitor``) runs it again for a game left waiting
(the process died after the commit, a worker died inside RQ's dequeue or in the middle of the job)
and then enqueues a fresh job, so a bot turn is played within seconds whatever process is killed.

The job loads the game through ``service``, builds each awaited bot's *seat view* (what a client
in that seat would get from the API, legal moves included; never the hidden state), asks the bot
and submits the move with ``GameService.submit_as_seat`` (the trusted path for bot seats: same
rules, same atomic append, same signal as a client's move). It loops while bots are awaited, so an
all-bot game plays to its end in one job.

Idempotency: the job id is ``bots-<game>-<version>`` and a ``SET NX`` marker collapses duplicate
enqueues for one version (a job enqueued again by the sweeper gets ``-r<ms>`` appended); each move
carries ``expected_version`` and the idempotency key
``bot:<version>:<seat>``, and the bot's randomness is seeded from (game, version, seat), so two jobs
racing on the same version submit the same move and the second gets the first's answer. A job for
a stale version finds nothing due (or plays what is due now): harmless.
"""

from __future__ import annotations

import contextvars
import logging
import os
import time
from typing import TYPE_CHECKING, Any

from bots import choose_move, seeded_rng
from games import get_game
from service import errors as service_errors
from store import GameStore, parts

if TYPE_CHECKING:
    from service.ports import GameAccess

log = logging.getLogger(__name__)

QUEUE = "bots"
JOB_FUNCTION = "worker.bots.play_bot_turns"
JOB_TIMEOUT_SECONDS = 10 * 60
ENQUEUE_MARKER_TTL_SECONDS = 15 * 60
# A job that plays a game refreshes this lease before every move: while it lives, the sweeper does
# not enqueue another job for the game (a bot that thinks longer than this gets a harmless twin).
PLAYING_LEASE_MS = int(os.environ.get("BOT_PLAYING_LEASE_MS") or 2000)
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


def enqueue_bot_turns(store: GameStore, game_id: str, version: int) -> str | None:
    """Enqueue the bot job for ``game_id`` at ``version``; ``None`` when one was already enqueued
    for that version (a SET NX marker in the game's slot makes this atomic across processes)."""
    outbox = parts.outbox(store)
    jid = job_id(game_id, version)
    if not outbox.mark_bot_job(game_id, version, jid, ENQUEUE_MARKER_TTL_SECONDS, replace=False):
        return None
    try:
        _enqueue(store, game_id, version, jid)
    except Exception:
        outbox.forget_bot_job(game_id, version)  # let a later run try again
        raise
    return jid


def _job_alive(store: GameStore, jid: str) -> bool:
    """Is ``jid`` waiting in the bots queue or running? (Not: lost inside a dequeue, finished,
    failed, or gone.)"""
    queues = store.queues
    status = queues.status(jid)
    if status in ("queued", "deferred", "scheduled"):
        # A job a worker took with BLMOVE and then died sits in RQ's intermediate list, still
        # "queued", until RQ's maintenance pass (many minutes later): only the queue itself counts.
        return queues.waiting_in(QUEUE, jid)
    return status == "started" and parts.outbox(store).bot_lease_alive(queues.first_arg(jid))


def bot_followup(service: GameAccess, game_id: str, value: str) -> bool:
    """The ``bot`` follow-up action: done when no bot seat is awaited; otherwise make sure a job
    will play it (enqueue one, or a fresh one when the last has stalled) and stay pending."""
    if _playing.get() == game_id:
        return False  # this process's job loops on; it runs the action again when it stops
    try:
        _, cached = service.viewer_seat(game_id, None)
    except service_errors.GameNotFound:
        return True
    if cached.status != "active" or cached.state is None:
        return True
    game = get_game(cached.name)
    if not any(seat in cached.bots for seat in game.awaiting(cached.state)):
        return True
    store = service.store
    outbox = parts.outbox(store)
    if outbox.bot_lease_alive(game_id):
        return False  # a job is playing this game right now
    if enqueue_bot_turns(store, game_id, cached.version) is not None:
        return False
    last = outbox.bot_job(game_id, cached.version)
    if last is not None and _job_alive(store, last):
        return False
    jid = f"{job_id(game_id, cached.version)}-r{int(time.time() * 1000)}"
    outbox.mark_bot_job(game_id, cached.version, jid, ENQUEUE_MARKER_TTL_SECONDS, replace=True)
    _enqueue(store, game_id, cached.version, jid)
    outbox.count("bot-job", duplicate=True)
    log.warning("bot turn of %s at v%s had stalled (job %s): enqueued %s", game_id, cached.version, last, jid)
    return False


def _enqueue(store: GameStore, game_id: str, version: int, jid: str) -> None:
    store.queues.enqueue(
        QUEUE,
        JOB_FUNCTION,
        game_id,
        version,
        job_id=jid,
        retries=2,
        timeout=JOB_TIMEOUT_SECONDS,
        result_ttl=600,
        failure_ttl=24 * 3600,
        description=f"bot turns of {game_id} at v{version}",
    )


def play_bot_turns(service: GameAccess, game_id: str) -> dict[str, Any]:
    """Play every due bot move of ``game_id`` until a human is awaited or the game is over (the
    job acts on the current state, whatever version triggered it). Returns ``{"moves": n,
    "version": v, "status": s}``.
    """
    outbox = parts.outbox(service.store)
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
            outbox.touch_bot_lease(game_id, PLAYING_LEASE_MS + int(MOVE_DELAY_SECONDS * 1000))
            view = game.view(cached.state, seat)
            rng = seeded_rng("bot", game_id, cached.version, seat)
            command = choose_move(cached.name, cached.bots[seat], view, rng, state=cached.state)
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
        outbox.drop_bot_lease(game_id)
        # The follow-up actions this job's own moves recorded (skipped while it played): done now,
        # or a new job when a bot is still awaited (the job stopped early).
        service.followups.run(game_id)
