"""The clock enforcer: finds seats past their deadline and submits their timeouts.

Run as the Procfile's ``clock`` process (``python -m worker.clocks``); any number may run at once.
Each pass reads the games due now from the ``clocks:due`` sorted set (``store``) and asks the service
to enforce their clocks; the timeout is an ordinary append at the version the deadline belongs to,
so two enforcers racing on one deadline apply it once (the other's append is a version conflict).

Nothing lives in the process: deadlines are in the game's metadata (written atomically with each
move) and in ``clocks:due``. A killed enforcer loses nothing; the next pass of any enforcer (a
survivor, or the restarted one) applies what is overdue. The due set is written just after each
append; should a process die in between, the periodic rescan of active games puts the deadline
back (at most ``RESCAN_SECONDS`` late).

Why not RQ's scheduler (``enqueue_at``): a worker holding RQ's scheduler lock that is SIGKILLed keeps
that lock for 61 s (``interval + 60``) and an abandoned job is handed back only after its heartbeat
expires (60 s or more), so a deadline could be a minute late; this loop has no lock to lose and a
deadline survives in Redis. (A deadline recorded by the append script itself, through
the outbox, would remove the rescan.)
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import time
from typing import Any

from service import GameService, composition
from service import errors as service_errors

log = logging.getLogger("worker.clocks")

INTERVAL_SECONDS = float(os.environ.get("CLOCK_INTERVAL_SECONDS") or 0.25)
RESCAN_SECONDS = float(os.environ.get("CLOCK_RESCAN_SECONDS") or 30)


def enforce_due(service: GameService, now_ms: int | None = None, limit: int = 100) -> list[dict[str, Any]]:
    """One pass: enforce every game due at ``now_ms``; returns the timeouts applied."""
    now_ms = now_ms if now_ms is not None else int(time.time() * 1000)
    applied = []
    for game_id in service.store.clocks.due(now_ms, limit=limit):
        try:
            applied.extend(service.enforce_clock(game_id, now_ms))
        except service_errors.ServiceError as error:  # a game that moved on or vanished meanwhile
            log.info("clock of %s not enforced: %s", game_id, error)
    return applied


def run(url: str, interval: float = INTERVAL_SECONDS, rescan: float = RESCAN_SECONDS) -> None:
    # A seat handed to the bot is played by the bots queue; a timeout that ends a game is verified
    # (the composition root's services carry out every follow-up action).
    service = composition.game_service(composition.Settings.from_env(redis_url=url))
    stopping = False

    def stop(*_: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    next_rescan = 0.0
    log.info("enforcing clocks every %.2f s (rescan every %.0f s)", interval, rescan)
    while not stopping:
        started = time.monotonic()
        try:
            if started >= next_rescan:
                service.deadlines.rescan_clocks()
                next_rescan = started + rescan
            for timeout in enforce_due(service):
                log.info("timeout: %s", timeout)
        except Exception:  # noqa: BLE001 - keep enforcing; Redis may be back next pass
            log.exception("clock pass failed")
        time.sleep(max(0.0, interval - (time.monotonic() - started)))


def main() -> None:
    parser = argparse.ArgumentParser(description="Enforce the clocks of timed games")
    parser.add_argument("--url", default=os.environ.get("REDIS_URL"))
    parser.add_argument("--interval", type=float, default=INTERVAL_SECONDS)
    parser.add_argument("--rescan", type=float, default=RESCAN_SECONDS)
    args = parser.parse_args()
    if not args.url:
        raise SystemExit("worker.clocks: set REDIS_URL or --url")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s clock %(levelname)s %(message)s")
    run(args.url, args.interval, args.rescan)


if __name__ == "__main__":
    main()
