"""The webhook delivery loop: ``python -m worker.webhooks`` (the Procfile's ``webhooks``).

Several may run: each account's task takes its due deliveries with a lease
(``WEBHOOK_LEASE_SECONDS``, 30 s), so two loops never send one delivery at once, and a loop killed
mid-delivery leaves its deliveries due again when the lease ends (at least once). Accounts are
served concurrently, one task per account at a time (``WEBHOOK_CONCURRENCY`` threads, 16): a
receiver that never answers holds its own account's task only. The loop starts tasks for the due
accounts every ``WEBHOOK_LOOP_INTERVAL`` seconds (default 0.5) when there was nothing to do, and
every :data:`BUSY_SECONDS` while tasks run or start.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from typing import Any

from service import composition

log = logging.getLogger("worker.webhooks")

INTERVAL_SECONDS = float(os.environ.get("WEBHOOK_LOOP_INTERVAL") or 0.5)
# While tasks run: how soon the loop looks again for accounts that became due (and tasks that ended).
BUSY_SECONDS = 0.02


def main() -> int:
    logging.basicConfig(
        level=os.environ.get("LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s webhooks %(levelname)s %(message)s",
    )
    stopping: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        stopping.append(signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    settings = composition.Settings.from_env(enqueues=False, redis_options={"socket_timeout": 10})
    deliverer = composition.deliverer(settings)
    log.info(
        "delivering (private targets %s)",
        "allowed" if deliverer.settings.allow_private_targets else "refused",
    )
    running: list[Any] = []
    while not stopping:
        try:
            started = deliverer.dispatch()
            running += started
            ended = [f for f in running if f.done()]
            running = [f for f in running if not f.done()]
            report = deliverer.collect(ended)
            if report.sent + report.retried + report.failed + report.dropped:
                log.info("sent %d, retrying %d, failed %d", report.sent, report.retried, report.failed)
            if started or ended or running:
                time.sleep(BUSY_SECONDS)
                continue
        except Exception:  # noqa: BLE001 - Redis down or a bug: log, and try again after a pause
            log.exception("delivery pass failed")
        time.sleep(INTERVAL_SECONDS)
    deliverer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
